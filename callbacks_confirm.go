package paygate

import (
	"context"
	"slices"
)

// CallbackConfirmation compares a callback with what GET transaction/status
// reports for its transaction id.
type CallbackConfirmation struct {
	// Transaction is what the status endpoint reported.
	Transaction *TransactionStatus
	// StatusAgrees reports whether the transaction's status or original
	// status is one that the callback's status corresponds to (see
	// [CallbackStatus.TransactionStatuses]). Checking the original status
	// too keeps a completed payment that was refunded since confirmable.
	StatusAgrees bool
	// PriceAgrees reports whether the prices are equal as numbers (the
	// callback sends four decimals, the status endpoint two).
	PriceAgrees bool
	// CurrencyAgrees reports whether the currencies are equal.
	CurrencyAgrees bool
	// OrderIDAgrees reports whether the order ids are equal (both empty
	// included): the field a merchant fulfils by, and so the one most
	// worth protecting.
	OrderIDAgrees bool
}

// Confirmed reports whether status, price, currency and order id all agree.
func (c *CallbackConfirmation) Confirmed() bool {
	return c.StatusAgrees && c.PriceAgrees && c.CurrencyAgrees && c.OrderIDAgrees
}

// Mismatches returns the callback fields that disagree with the
// transaction ("status", "price", "currency", "order_id"), or nil.
func (c *CallbackConfirmation) Mismatches() []string {
	var out []string
	for _, m := range []struct {
		ok   bool
		name string
	}{{c.StatusAgrees, "status"}, {c.PriceAgrees, "price"}, {c.CurrencyAgrees, "currency"}, {c.OrderIDAgrees, "order_id"}} {
		if !m.ok {
			out = append(out, m.name)
		}
	}
	return out
}

// ConfirmCallback looks up the callback's transaction (GET
// transaction/status by id) and reports whether its status, price,
// currency and order id agree with the callback.
//
// The gateway signs the values of a callback but not their field names, so
// a genuine callback whose values were moved between fields (an order id
// into user, a status into reason) still verifies. Merchants who fulfil
// high-value orders should confirm a callback before fulfilling: a
// callback that does not confirm should not be acted on. A transaction
// whose status moved on after the callback (a later refund, a payment
// still processing) does not confirm either; the look-up tells which. An
// error is returned only when the look-up fails.
func (c *Client) ConfirmCallback(ctx context.Context, cb *Callback, opts ...CallOption) (*CallbackConfirmation, error) {
	if cb == nil || cb.ID == 0 {
		return nil, &ValidationError{Field: "id", Reason: "the callback carries no transaction id"}
	}
	tx, err := c.Transactions.Status(ctx, &StatusParams{ID: cb.ID}, opts...)
	if err != nil {
		return nil, err
	}
	return confirmCallback(cb, tx), nil
}

// TransactionStatuses returns the transaction statuses that the status
// endpoint reports for a transaction whose callback had status s, or nil
// for a status the spec does not list:
//
//	completed                     completed
//	waiting_approval              waiting_approval
//	processing                    processing
//	failed                        failed
//	verified                      verified
//	reversed                      reversed, refunded
//	refund_completed              refunded; completed when the transaction is the refund itself
//	chargeback_completed          charged_back
//	retrieval_completed           retrieved
//	penalty_completed             completed (the penalty transaction)
//	payout_completed              completed
//	payout_failed                 failed
//	payout_cancelled              cancelled
//	payout_abandoned              abandoned
func (s CallbackStatus) TransactionStatuses() []Status {
	return slices.Clone(callbackTransactionStatuses[s])
}

var callbackTransactionStatuses = map[CallbackStatus][]Status{
	CallbackCompleted:           {StatusCompleted},
	CallbackWaitingApproval:     {StatusWaitingApproval},
	CallbackProcessing:          {StatusProcessing},
	CallbackFailed:              {StatusFailed},
	CallbackVerified:            {StatusVerified},
	CallbackReversed:            {StatusReversed, StatusRefunded},
	CallbackRefundCompleted:     {StatusRefunded},
	CallbackChargebackCompleted: {StatusChargedBack},
	CallbackRetrievalCompleted:  {StatusRetrieved},
	CallbackPenaltyCompleted:    {StatusCompleted},
	CallbackPayoutCompleted:     {StatusCompleted},
	CallbackPayoutFailed:        {StatusFailed},
	CallbackPayoutCancelled:     {StatusCancelled},
	CallbackPayoutAbandoned:     {StatusAbandoned},
}

func confirmCallback(cb *Callback, tx *TransactionStatus) *CallbackConfirmation {
	want := callbackTransactionStatuses[cb.Status]
	sameTx := tx.ID == cb.ID
	// A refund_completed callback is about the refund transaction (its
	// reference_id is the refunded payment), whose own status is completed;
	// requiring type refund keeps a payment's id, swapped in from
	// reference_id, from confirming it.
	refundItself := cb.Status == CallbackRefundCompleted && tx.Type == TypeRefund && tx.Status == StatusCompleted
	return &CallbackConfirmation{
		Transaction:    tx,
		StatusAgrees:   sameTx && (slices.Contains(want, tx.Status) || slices.Contains(want, tx.OriginalStatus) || refundItself),
		PriceAgrees:    sameTx && tx.Price.Equal(cb.Price),
		CurrencyAgrees: sameTx && tx.Currency == cb.Currency,
		OrderIDAgrees:  sameTx && tx.OrderID == cb.OrderID,
	}
}
