package paygate

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/shopspring/decimal"
)

// BalanceService is the balance resource group of the API.
type BalanceService service

// BalanceParams selects the currency of the balance; nil or an empty
// Currency leaves the choice to the gateway.
type BalanceParams struct {
	// Currency is an ISO 4217 code (three uppercase letters) when given.
	Currency string `url:"currency,omitempty"`
}

func (p *BalanceParams) validate(Form) error {
	if p == nil || p.Currency == "" {
		return nil
	}
	return checkCurrency("currency", p.Currency)
}

// Balance is the merchant's balance. The gateway sends every figure as a
// string; they decode exactly.
type Balance struct {
	// Amount is the available amount.
	Amount         decimal.Decimal `json:"amount"`
	RollingReserve decimal.Decimal `json:"rolling_reserve"`
	Currency       string          `json:"currency"`
	// BaseAmount is the total in the base currency.
	BaseAmount         decimal.Decimal `json:"base_amount"`
	BaseRollingReserve decimal.Decimal `json:"base_rolling_reserve"`
}

// Get reads the merchant balance (GET balance; extended form only),
// optionally in one currency.
func (s *BalanceService) Get(ctx context.Context, p *BalanceParams, opts ...CallOption) (*Balance, error) {
	var out balanceResponse
	ep := endpoint{method: http.MethodGet, path: "balance", extendedOnly: true}
	if err := s.client.do(ctx, ep, p, &out, opts); err != nil {
		return nil, err
	}
	return &out.Balance, nil
}

// balanceResponse remembers which figures were present, so that a missing
// amount is an error rather than a silent zero.
type balanceResponse struct {
	Balance
	hasAmount bool
}

func (r *balanceResponse) UnmarshalJSON(b []byte) error {
	var present struct {
		Amount json.RawMessage `json:"amount"`
	}
	if err := json.Unmarshal(b, &present); err != nil {
		return err
	}
	r.hasAmount = len(present.Amount) > 0 && string(present.Amount) != "null"
	return json.Unmarshal(b, &r.Balance)
}

func (r *balanceResponse) check() error {
	switch {
	case !r.hasAmount:
		return missing("amount")
	case r.Currency == "":
		return missing("currency")
	}
	return nil
}
