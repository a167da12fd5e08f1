package paygate

import (
	"context"
	"net/http"
)

// TransactionsService is the transactions resource group of the API:
// reversals, alternative-method payments, status, look-ups and listings.
type TransactionsService service

// StatusParams selects the transaction whose status to read: by ID or by
// OrderID, exactly one of them.
type StatusParams struct {
	ID      ID     `url:"id,omitempty"`
	OrderID string `url:"order_id,omitempty"`
}

func (p *StatusParams) validate(Form) error {
	switch {
	case p.ID == 0 && p.OrderID == "":
		return &ValidationError{Field: "id", Reason: "either id or order_id is required"}
	case p.ID != 0 && p.OrderID != "":
		return &ValidationError{Field: "order_id", Reason: "give either id or order_id, not both"}
	}
	return checkMaxLen("order_id", p.OrderID, MaxOrderIDLength)
}

// Status reads a transaction's status (GET transaction/status). Its Status
// includes the later effects of other transactions, such as a refund.
func (s *TransactionsService) Status(ctx context.Context, p *StatusParams, opts ...CallOption) (*TransactionStatus, error) {
	if p == nil {
		return nil, &ValidationError{Field: "id", Reason: "either id or order_id is required"}
	}
	out := new(TransactionStatus)
	if err := s.client.do(ctx, endpoint{method: http.MethodGet, path: "transaction/status"}, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

func (t *TransactionStatus) check() error {
	switch {
	case t.ID == 0:
		return missing("id")
	case t.Status == "":
		return missing("status")
	}
	return nil
}
