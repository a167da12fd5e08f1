package paygate

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Currency codes are three ASCII letters (ISO 4217); codes with A or Z at
// either end, and either letter case, which the gateway accepts, pass.
func TestCheckCurrency_ThreeLetters(t *testing.T) {
	for _, cur := range []string{"AUD", "CAD", "ZAR", "NZD", "CZK", "AZN", "ZZZ", "AAA", "EUR", "USD", "aud", "Aud", "zar", "zZa"} {
		assert.NoError(t, checkCurrency("currency", cur), cur)
	}
	for _, cur := range []string{
		"@UD", "A@D", "AU@", "[AR", "Z[R", "ZA[", // just outside A..Z
		"`ud", "a`d", "au`", "{ar", "z{r", "za{", // just outside a..z
		"EU", "A", "EURO", "AUDD", // wrong lengths
		"E1R", "EU ", " EU", "ÄUD", // not letters
	} {
		err := checkCurrency("currency", cur)
		var ve *ValidationError
		if assert.ErrorAs(t, err, &ve, "%q", cur) {
			assert.Equal(t, "currency", ve.Field)
		}
	}
	var ve *ValidationError
	require.ErrorAs(t, checkCurrency("currency", ""), &ve)
	assert.Equal(t, &ValidationError{Field: "currency", Reason: "is required"}, ve)
}

// A currency with A or Z reaches the gateway unchanged.
func TestBalance_CurrenciesWithAOrZAreSent(t *testing.T) {
	for _, cur := range []string{"AUD", "CAD", "ZAR", "NZD", "CZK"} {
		t.Run(cur, func(t *testing.T) {
			r := requestSent(t, http.MethodGet, "balance", "balance.json", balanceWith(&BalanceParams{Currency: cur}))
			requireSignedFields(t, r, map[string]string{"currency": cur})
		})
	}
}

// The spec states no length for a card number, only digits (and DESIGN
// Luhn): numbers of 11, 12, 19 and 20 digits that pass Luhn are all sent.
func TestTokenize_CardNumberOfAnyLengthPassingLuhnIsSent(t *testing.T) {
	for _, number := range []string{"50180000007", "501800000009", "6011000000000000001", "60110000000000000004"} {
		t.Run(number, func(t *testing.T) {
			r := requestSent(t, http.MethodGet, "card/getToken", "card_get_token.json",
				tokenizeWith(edit(validTokenize(), func(p *TokenizeParams) { p.Number = NewCardNumber(number) })))
			assert.Equal(t, number, r.Params.Get("number"))
		})
	}
}

// The other checks at their bounds: each message names the field and the
// rule, never the value.
func TestChecks_Bounds(t *testing.T) {
	tests := []checkCase{
		{"order id at the limit", checkMaxLen("order_id", string(make([]byte, MaxOrderIDLength)), MaxOrderIDLength), ""},
		{"order id one over", checkMaxLen("order_id", string(make([]byte, MaxOrderIDLength+1)), MaxOrderIDLength), "paygate: invalid parameter order_id: must be at most 64 characters"},
		{"required", checkRequired("description", ""), "paygate: invalid parameter description: is required"},
		{"present", checkRequired("description", "x"), ""},
		{"month 1", checkExpiry("m", 1, "y", 2030), ""},
		{"month 12", checkExpiry("m", 12, "y", 2030), ""},
		{"month 0", checkExpiry("m", 0, "y", 2030), "paygate: invalid parameter m: must be 1 to 12"},
		{"month 13", checkExpiry("m", 13, "y", 2030), "paygate: invalid parameter m: must be 1 to 12"},
		{"year 1000", checkExpiry("m", 1, "y", 1000), ""},
		{"year 9999", checkExpiry("m", 1, "y", 9999), ""},
		{"year 999", checkExpiry("m", 1, "y", 999), "paygate: invalid parameter y: must be a four-digit year"},
		{"year 10000", checkExpiry("m", 1, "y", 10000), "paygate: invalid parameter y: must be a four-digit year"},
		{"phone empty", checkPhone("phone", ""), ""},
		{"phone digits", checkPhone("phone", "380501234567"), ""},
		{"phone with plus", checkPhone("phone", "+380501234567"), "paygate: invalid parameter phone: must be digits only in international format, without + or separators"},
		{"card number missing", checkCardNumber("card[number]", ""), "paygate: invalid parameter card[number]: is required"},
		{"card number with spaces", checkCardNumber("card[number]", "4242 4242 4242 4242"), "paygate: invalid parameter card[number]: must be digits only, without spaces or separators"},
		{"card number failing Luhn", checkCardNumber("card[number]", "4242424242424241"), "paygate: invalid parameter card[number]: fails the Luhn check"},
	}
	assertChecks(t, tests)
}

func TestFirstError_ReturnsTheFirstNonNil(t *testing.T) {
	a, b := &ValidationError{Field: "a"}, &ValidationError{Field: "b"}
	assert.NoError(t, firstError())
	assert.NoError(t, firstError(nil, nil))
	assert.Same(t, a, firstError(nil, a, b))
	assert.Same(t, b, firstError(b, a))
}

// checkCase is the error one check gave and the message it should have
// given, "" for none.
type checkCase struct {
	name string
	err  error
	want string
}

func assertChecks(t *testing.T, tests []checkCase) {
	t.Helper()
	for _, tt := range tests {
		if tt.want == "" {
			assert.NoError(t, tt.err, tt.name)
		} else if assert.Error(t, tt.err, tt.name) {
			assert.Equal(t, tt.want, tt.err.Error(), tt.name)
		}
	}
}
