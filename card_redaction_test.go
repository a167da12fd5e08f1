package paygate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"regexp"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/internal/formenc"
)

// Card data for the redaction table, chosen so that none of it can turn up
// by chance in a timestamp, a duration or a mask.
const (
	redactMonth          = 11
	redactYear           = 2047
	redactPayoutNumber   = "5555555555554444"
	redactRemitterNumber = "4000056655665556"
	redactCardToken      = "c41e8a2f6b0d4f9a8e3c5b7d1f2a6e90"
	redactRemitterToken  = "7b2d9e4f0a6c1e8b3d5f7a9c0e2b4d6f"
	redactPaRes          = "eJzVWNuTokgWfu9fQfQ8bMxGtSAXLzg2sZkgAoqKImq9bCCkXOSmgIr++s3ES1mt3dMz"
	redactMD             = "MD-3f9c2a71e5b84d06"
	redactExtraValue     = "DE89370400440532013000"
)

// expiryField matches an expiry field followed by a digit in any of the
// printed forms: "ExpirationMonth":11, expiration_year=2047,
// RemitterCardExpirationMonth:"11", cardExpirationDate=11/47.
var expiryField = regexp.MustCompile(`(?i)expiration_?(month|year|date)\W{0,3}\d`)

// cardBearingParams are every params type that carries card data or card
// authentication data, each with the part of it that is still shown. The
// tests print each through a pointer too.
func cardBearingParams() []struct {
	name  string
	value any
	shows string
} {
	card := CardDetails{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(redactMonth, redactYear), SecurityCode: NewSecurityCode(secretCode), Holder: "JANE DOE"}
	tokenize := TokenizeParams{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(redactMonth, redactYear), SecurityCode: NewSecurityCode(secretCode)}
	price := decimal.RequireFromString("24.90")
	withCard := ChargeParams{User: "100452", Card: &card, Price: price, Currency: "EUR", Description: "Order", OrderID: "ord-1"}
	withToken := ChargeParams{User: "100452", CardToken: NewCardToken(redactCardToken), Price: price, Currency: "EUR", Description: "Order", OrderID: "ord-1"}
	authenticate := AuthenticateParams{PaRes: NewACSData(redactPaRes), MD: NewACSData(redactMD), PaymentID: 8123, OrderID: "ord-1"}
	cardType := PayoutType{ID: 1, Key: PayoutTypeCreditCard}
	payout := PayoutParams{Type: cardType, Account: NewAccountNumber(redactPayoutNumber), Amount: price, Currency: "EUR", OrderID: "ord-1",
		RemitterCardNumber: NewAccountNumber(redactRemitterNumber), RemitterCardToken: NewCardToken(redactRemitterToken),
		RemitterCardExpirationMonth: "11", RemitterCardExpirationYear: "2047", Extra: map[string]string{"bankAccount": redactExtraValue}}
	payoutByToken := PayoutParams{Type: cardType, CardToken: NewCardToken(redactCardToken), CardExpirationDate: "11/47", Amount: price, Currency: "EUR", OrderID: "ord-1"}
	parameters := PayoutParametersParams{Type: cardType, Account: NewAccountNumber(redactPayoutNumber), Currency: "EUR"}
	return []struct {
		name  string
		value any
		shows string
	}{
		{"CardDetails", card, "4242"},
		{"TokenizeParams", tokenize, "4242"},
		{"ChargeParams with a card", withCard, "100452"},
		{"ChargeParams with a token", withToken, "100452"},
		{"AuthenticateParams", authenticate, "8123"},
		{"PayoutParams to a card", payout, "4444"},
		{"PayoutParams by token", payoutByToken, "EUR"},
		{"PayoutParametersParams", parameters, "4444"},
	}
}

// requireNoCardOrAuthData fails when out holds any card number beyond its
// last four digits, the security code, the expiry, a card token, PaRes, MD
// or a payout's Extra value.
func requireNoCardOrAuthData(t *testing.T, out string) {
	t.Helper()
	requireNoCardData(t, out, visaApproved, secretCode)
	requireNoCardData(t, out, redactPayoutNumber, secretCode)
	requireNoCardData(t, out, redactRemitterNumber, secretCode)
	for _, secret := range []string{"2047", "11/47", redactCardToken, redactRemitterToken, redactPaRes, redactMD, redactExtraValue} {
		require.NotContains(t, out, secret, "secret leaked into %q", out)
	}
	require.False(t, expiryField.MatchString(out), "the expiry leaked into %q", out)
}

// TestRedaction_ParamsNeverPrintCardData prints every params type that
// carries card data in every way a merchant's code or logger may: JSON,
// the fmt verbs and both slog handlers. Only the last four digits of a
// number and the fields that are not card data may show.
func TestRedaction_ParamsNeverPrintCardData(t *testing.T) {
	printers := []struct {
		name  string
		print func(v any) string
	}{
		{"json.Marshal", func(v any) string {
			b, err := json.Marshal(v)
			require.NoError(t, err)
			return string(b)
		}},
		{"%v", func(v any) string { return fmt.Sprintf("%v", v) }},
		{"%+v", func(v any) string { return fmt.Sprintf("%+v", v) }},
		{"%#v", func(v any) string { return fmt.Sprintf("%#v", v) }},
		{"%s", func(v any) string { return fmt.Sprintf("%s", v) }},
		{"slog JSONHandler", func(v any) string {
			var buf bytes.Buffer
			slog.New(slog.NewJSONHandler(&buf, timeless)).Info("request", "params", v)
			return buf.String()
		}},
		{"slog TextHandler", func(v any) string {
			var buf bytes.Buffer
			slog.New(slog.NewTextHandler(&buf, timeless)).Info("request", "params", v)
			return buf.String()
		}},
	}
	for _, p := range cardBearingParams() {
		ptr := reflect.New(reflect.TypeOf(p.value))
		ptr.Elem().Set(reflect.ValueOf(p.value))
		for _, shape := range []struct {
			name  string
			value any
		}{{p.name, p.value}, {"*" + p.name, ptr.Interface()}} {
			for _, pr := range printers {
				t.Run(shape.name+" "+pr.name, func(t *testing.T) {
					out := pr.print(shape.value)
					requireNoCardOrAuthData(t, out)
					assert.Contains(t, out, p.shows, "what is not card data still shows")
				})
			}
		}
	}
}

// TestRedaction_JSONMasksTheExpiry pins the masks: a set expiry shows as
// asterisks, one that is not set stays empty.
func TestRedaction_JSONMasksTheExpiry(t *testing.T) {
	b, err := json.Marshal(CardDetails{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(redactMonth, redactYear), SecurityCode: NewSecurityCode(secretCode)})
	require.NoError(t, err)
	var card map[string]any
	require.NoError(t, json.Unmarshal(b, &card))
	assert.Equal(t, map[string]any{"Number": "************4242", "Expiry": "**/****", "SecurityCode": "***", "Holder": ""}, card)

	b, err = json.Marshal(PayoutParams{RemitterCardExpirationMonth: "11", CardExpirationDate: "11/47"})
	require.NoError(t, err)
	var payout map[string]any
	require.NoError(t, json.Unmarshal(b, &payout))
	assert.Equal(t, "**", payout["RemitterCardExpirationMonth"])
	assert.Equal(t, "", payout["RemitterCardExpirationYear"])
	assert.Equal(t, "**/**", payout["CardExpirationDate"])
}

// TestRedaction_WireKeepsTheCardData guards the other side: what goes to the
// gateway is the card data itself, not its printed form.
func TestRedaction_WireKeepsTheCardData(t *testing.T) {
	for _, p := range cardBearingParams() {
		if p.name == "PayoutParametersParams" {
			continue // it sends only a BIN: TestPayoutParameters_CardSendsOnlyTheBINUnsigned
		}
		t.Run(p.name, func(t *testing.T) {
			v := p.value
			if payout, ok := v.(PayoutParams); ok {
				v = &payoutRequest{Type: payout.Type.ID, PayoutParams: &payout}
			}
			pairs, err := formenc.Append(nil, v)
			require.NoError(t, err)
			var want map[string]string
			switch p.name {
			case "CardDetails":
				want = map[string]string{"number": visaApproved, "expiration_month": "11", "expiration_year": "2047", "security_code": secretCode}
			case "TokenizeParams":
				want = map[string]string{"number": visaApproved, "expiration_month": "11", "expiration_year": "2047", "security_code": secretCode}
			case "ChargeParams with a card":
				want = map[string]string{"card[number]": visaApproved, "card[expiration_month]": "11", "card[expiration_year]": "2047", "card[security_code]": secretCode}
			case "ChargeParams with a token":
				want = map[string]string{"card_token": redactCardToken}
			case "AuthenticateParams":
				want = map[string]string{"PaRes": redactPaRes, "MD": redactMD}
			case "PayoutParams to a card":
				want = map[string]string{"account": redactPayoutNumber, "remitterCardNumber": redactRemitterNumber, "remitterCardToken": redactRemitterToken,
					"remitterCardExpirationMonth": "11", "remitterCardExpirationYear": "2047", "bankAccount": redactExtraValue}
			case "PayoutParams by token":
				want = map[string]string{"cardToken": redactCardToken, "cardExpirationDate": "11/47"}
			}
			require.NotEmpty(t, want)
			for key, value := range want {
				got, ok := pairs.Get(key)
				require.True(t, ok, "%s is not sent", key)
				assert.Equal(t, value, got, key)
			}
		})
	}
}
