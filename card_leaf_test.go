package paygate

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/paygate/paygate-go/callback"
	"github.com/stretchr/testify/require"
)

// merchantOrder is a merchant's own struct holding card secrets in
// unexported fields: fmt and slog walk those by reflection without calling
// any method of the leaf types.
type merchantOrder struct {
	ID      string
	card    CardDetails
	number  CardNumber
	code    SecurityCode
	expiry  Expiry
	token   CardToken
	account AccountNumber
	paRes   ACSData
	tokens  []CardToken
	byName  map[string]SecurityCode
	params  *TokenizeParams
	charge  ChargeParams
	// A client and a verifier held by value keep a private key.
	client   Client
	verifier callback.Verifier
}

// TestLeaf_UnexportedFieldOfAMerchantStructNeverPrints is DESIGN's rule: a
// secret held in an unexported field of a merchant's own struct never
// prints, whether by %v, %+v, %#v, slog's text or JSON handler, or JSON.
func TestLeaf_UnexportedFieldOfAMerchantStructNeverPrints(t *testing.T) {
	const (
		token   = "c41e8a2f6b0d4f9a8e3c5b7d1f2a6e90"
		account = "5555555555554444"
		paRes   = "eJzVWNuTokgWfu9fQfQ8bMxGtSAXLzg2sZkgAoqKImq9bCCkXOSmgIr"
	)
	card := CardDetails{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(11, 2047), SecurityCode: NewSecurityCode(secretCode), Holder: "JANE DOE"}
	order := merchantOrder{
		ID: "ord-1", card: card, number: NewCardNumber(visaApproved), code: NewSecurityCode(secretCode),
		expiry: NewExpiry(11, 2047), token: NewCardToken(token), account: NewAccountNumber(account), paRes: NewACSData(paRes),
		tokens: []CardToken{NewCardToken(token)}, byName: map[string]SecurityCode{"cvc": NewSecurityCode(secretCode)},
		params: &TokenizeParams{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(11, 2047), SecurityCode: NewSecurityCode(secretCode)},
		charge: ChargeParams{User: "100452", CardToken: NewCardToken(token), Card: &card},
	}
	client, err := NewClient("proj-1", leafTestKey, WithBaseURL("https://gw.example"))
	require.NoError(t, err)
	verifier, err := callback.NewVerifier([]string{leafTestKey})
	require.NoError(t, err)
	order.client, order.verifier = *client, *verifier
	printers := map[string]func(v any) string{
		"%v":  func(v any) string { return fmt.Sprintf("%v", v) },
		"%+v": func(v any) string { return fmt.Sprintf("%+v", v) },
		"%#v": func(v any) string { return fmt.Sprintf("%#v", v) },
		"%s":  func(v any) string { return fmt.Sprintf("%s", v) },
		// A wrong verb makes fmt print the value again with %v, from the
		// top: a pointer to a struct would show what it points to.
		"%d": func(v any) string { return fmt.Sprintf("%d", v) },
		"%x": func(v any) string { return fmt.Sprintf("%x", v) },
		"slog text": func(v any) string {
			var buf bytes.Buffer
			slog.New(slog.NewTextHandler(&buf, nil)).Info("order", "order", v)
			return buf.String()
		},
		"slog JSON": func(v any) string {
			var buf bytes.Buffer
			slog.New(slog.NewJSONHandler(&buf, nil)).Info("order", "order", v)
			return buf.String()
		},
		"json.Marshal": func(v any) string {
			b, err := json.Marshal(v)
			require.NoError(t, err)
			return string(b)
		},
	}
	for _, v := range []struct {
		name  string
		value any
	}{{"value", order}, {"pointer", &order}} {
		for name, print := range printers {
			t.Run(v.name+" "+name, func(t *testing.T) {
				out := print(v.value)
				requireNoCardData(t, out, visaApproved, secretCode)
				requireNoCardData(t, out, account, secretCode)
				requireNoKey(t, out)
				for _, secret := range []string{"2047", token, paRes} {
					require.NotContains(t, out, secret, "secret leaked into %q", out)
				}
				if name != "%x" {
					require.Contains(t, out, "ord-1", "the rest of the struct still prints")
				}
			})
		}
	}
}

// leafTestKey is a private key found nowhere else in the test data.
const leafTestKey = "k3y-5d8f1c0a9e7b"

// requireNoKey fails when out holds leafTestKey as text, hex or the
// decimal bytes fmt prints a []byte as.
func requireNoKey(t *testing.T, out string) {
	t.Helper()
	b := []byte(leafTestKey)
	for _, form := range []string{leafTestKey, hex.EncodeToString(b), strings.Trim(fmt.Sprint(b[:6]), "[]")} {
		require.NotContains(t, out, form, "the private key leaked into %q", out)
	}
}

// TestLeaf_ZeroValueIsNotGiven keeps the zero value meaning "not given":
// it prints empty, reports IsZero, and is not sent.
func TestLeaf_ZeroValueIsNotGiven(t *testing.T) {
	require.True(t, CardNumber{}.IsZero())
	require.True(t, NewCardToken("").IsZero())
	require.False(t, NewSecurityCode("123").IsZero())
	require.Equal(t, "", fmt.Sprint(SecurityCode{}))
	require.Equal(t, "***", fmt.Sprint(NewACSData("x")))
	require.Equal(t, "**/****", fmt.Sprint(NewExpiry(1, 2030)))
	require.Equal(t, 1, NewExpiry(1, 2030).Month())
	require.Equal(t, 2030, NewExpiry(1, 2030).Year())
	require.Equal(t, "4242424242424242", NewCardNumber("4242424242424242").Reveal())
	// A month that does not fit the kept form is refused, not wrapped into
	// another year.
	var v *ValidationError
	require.ErrorAs(t, (&TokenizeParams{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(112, 2030), SecurityCode: NewSecurityCode("123")}).validate(FormExtended), &v)
	require.Equal(t, "expiration_month", v.Field)
}
