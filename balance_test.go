package paygate

import (
	"context"
	"net/http"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
)

func TestBalance_SignedAndDecodedExactly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		params *BalanceParams
		fields map[string]string
	}{
		{"without currency", nil, map[string]string{}},
		{"empty params", &BalanceParams{}, map[string]string{}},
		{"per currency", &BalanceParams{Currency: "EUR"}, map[string]string{"currency": "EUR"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, r := exchange(t, http.MethodGet, "balance", "balance.json", func(c *Client) (*Balance, error) {
				return c.Balance.Get(context.Background(), tt.params)
			})
			requireSignedFields(t, r, tt.fields)

			assert.Equal(t, "EUR", got.Currency)
			for _, f := range []struct {
				got  decimal.Decimal
				want string
			}{
				{got.Amount, "15234.87"}, {got.RollingReserve, "1250.1"}, {got.BaseAmount, "16489.12"}, {got.BaseRollingReserve, "1353.01"},
			} {
				assert.Equal(t, f.want, f.got.String())
			}
		})
	}
}

func TestBalance_MissingAmountIsAnErrorNotZero(t *testing.T) {
	t.Parallel()
	requireMalformedAnswer(t, http.MethodGet, "balance", fixtureResponder(t, 200, "balance_missing_amount.json"), "amount", balanceWith(nil))
}

func balanceWith(p *BalanceParams) func(*Client) error {
	return func(c *Client) error { return errOf(c.Balance.Get(context.Background(), p)) }
}

func TestBalance_CurrencyValidated(t *testing.T) {
	t.Parallel()
	for _, cur := range []string{"EU", "EURO", "E1R"} {
		t.Run(cur, func(t *testing.T) {
			requireRejectedLocally(t, "currency", balanceWith(&BalanceParams{Currency: cur}))
		})
	}
}

func TestBalance_SignatureErrorIsMatchedByCode(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodGet, "balance", 403, "error_signature_invalid.json")
	_, err := c.Balance.Get(context.Background(), nil)
	assert.ErrorIs(t, err, ErrSignatureInvalid)
}
