package paygate

import (
	"context"

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
	if p.Currency == "" {
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
	// Warnings lists the figures of the answer that could not be read and
	// were left zero (see DecodeWarning): amount and currency must be
	// present and readable, the others are informational.
	Warnings []DecodeWarning `json:"-"`
}

// Get reads the merchant balance (GET balance; extended form only),
// optionally in one currency.
func (s *BalanceService) Get(ctx context.Context, p *BalanceParams, opts ...CallOption) (*Balance, error) {
	return call[Balance](ctx, s.client, epBalance, p, opts)
}

func (b *Balance) setWarnings(w []DecodeWarning) { b.Warnings = w }
