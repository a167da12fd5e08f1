package paygate

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// secretCode is a security code that appears nowhere else in the test data,
// so finding it in output means it leaked.
const secretCode = "8317"

// requireNoCardData fails when out holds the full number, its first twelve
// digits, the security code, or either of them hex-encoded. Pointer
// addresses that %v prints (0x35835a383170) are not data and are left out:
// their digits hold a four-digit code by chance now and then.
func requireNoCardData(t *testing.T, out, number, code string) {
	t.Helper()
	data := strings.ToLower(pointerAddress.ReplaceAllString(out, "0x…"))
	for _, secret := range []string{number, number[:12], code, hex.EncodeToString([]byte(number)), hex.EncodeToString([]byte(code))} {
		require.NotContains(t, data, strings.ToLower(secret), "card data leaked into %q", out)
	}
}

// pointerAddress matches an address as fmt prints a pointer.
var pointerAddress = regexp.MustCompile(`0x[0-9a-f]+`)

func cardInputs() map[string]any {
	details := CardDetails{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode(secretCode), Holder: "JANE DOE"}
	tokenize := TokenizeParams{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode(secretCode)}
	charge := ChargeParams{User: "100452", Card: &details, Price: decimal.RequireFromString("24.90"), Currency: "EUR", Description: "Order"}
	return map[string]any{
		"CardNumber":      NewCardNumber(visaApproved),
		"SecurityCode":    NewSecurityCode(secretCode),
		"CardDetails":     details,
		"*CardDetails":    &details,
		"TokenizeParams":  tokenize,
		"*TokenizeParams": &tokenize,
		"ChargeParams":    charge,
		"*ChargeParams":   &charge,
		"nested struct": struct {
			Card   CardDetails
			Number CardNumber
		}{details, NewCardNumber(visaApproved)},
		"slice": []CardNumber{NewCardNumber(visaApproved)},
		"map":   map[string]SecurityCode{"cvc": NewSecurityCode(secretCode)},
	}
}

func TestCardInput_EveryFormattingVerbRedacts(t *testing.T) {
	t.Parallel()
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "% x", "%d", "%30s", "%-30v", "%.40s", "%#q", "%#x", "%U", "%t"}
	for name, v := range cardInputs() {
		for _, verb := range verbs {
			t.Run(name+" "+verb, func(t *testing.T) {
				requireNoCardData(t, fmt.Sprintf(verb, v), visaApproved, secretCode)
			})
		}
		t.Run(name+" Sprint", func(t *testing.T) {
			requireNoCardData(t, fmt.Sprint(v), visaApproved, secretCode)
			requireNoCardData(t, fmt.Sprintln(v), visaApproved, secretCode)
		})
	}
}

func TestCardInput_ShowsAtMostTheLastFourDigits(t *testing.T) {
	t.Parallel()
	n := NewCardNumber(visaApproved)
	assert.Equal(t, "************4242", n.String())
	assert.Equal(t, "************4242", fmt.Sprintf("%v", n))
	assert.Equal(t, `"************4242"`, fmt.Sprintf("%q", n))
	assert.Equal(t, `paygate.CardNumber("************4242")`, fmt.Sprintf("%#v", n))
	assert.Equal(t, "****", NewCardNumber("4242").String())
	assert.Equal(t, "", NewCardNumber("").String())

	assert.Equal(t, "***", NewSecurityCode(secretCode).String())
	assert.Equal(t, "***", fmt.Sprintf("%+v", NewSecurityCode(secretCode)))
	assert.Equal(t, "", NewSecurityCode("").String())

	// The containers print through their leaves' methods: fmt calls them
	// on exported fields.
	d := CardDetails{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode(secretCode), Holder: "JANE DOE"}
	assert.Equal(t, "{Number:************4242 Expiry:**/**** SecurityCode:*** Holder:JANE DOE}", fmt.Sprintf("%+v", d))
	assert.Equal(t, `&paygate.CardDetails{Number:paygate.CardNumber("************4242"), Expiry:paygate.Expiry("**/****"), SecurityCode:paygate.SecurityCode("***"), Holder:"JANE DOE"}`, fmt.Sprintf("%#v", &d))

	// A field that is not given shows as empty, so that it can be told
	// apart from a masked one.
	assert.Equal(t, "{Number:************4242 Expiry: SecurityCode:***}",
		fmt.Sprintf("%+v", TokenizeParams{Number: NewCardNumber(visaApproved), SecurityCode: NewSecurityCode(secretCode)}))
}

func TestCardInput_SlogHandlersRedact(t *testing.T) {
	t.Parallel()
	for _, handler := range []string{"json", "text"} {
		t.Run(handler, func(t *testing.T) {
			var buf bytes.Buffer
			var h slog.Handler = slog.NewJSONHandler(&buf, timeless)
			if handler == "text" {
				h = slog.NewTextHandler(&buf, timeless)
			}
			logger := slog.New(h)
			for name, v := range cardInputs() {
				logger.Info("charge", slog.Any(name, v))
			}
			logger.Info("attrs", "number", NewCardNumber(visaApproved), "code", NewSecurityCode(secretCode))
			out := buf.String()
			requireNoCardData(t, out, visaApproved, secretCode)
			assert.Contains(t, out, "************4242", "the masked number is still logged")
		})
	}
}

// TestCardInput_JSONSlogGroupsTheCardFieldsWithoutExpiry requires the
// card's fields in one group, the expiry masked: PCI DSS counts it as card
// data that stays out of logs.
func TestCardInput_JSONSlogGroupsTheCardFieldsWithoutExpiry(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("card", "card",
		CardDetails{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode(secretCode), Holder: "JANE DOE"})
	var rec struct {
		Card map[string]any `json:"card"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec))
	assert.Equal(t, map[string]any{
		"Number":       "************4242",
		"Expiry":       "**/****",
		"SecurityCode": "***",
		"Holder":       "JANE DOE",
	}, rec.Card)
}

func TestCardInput_JSONEncodingRedacts(t *testing.T) {
	t.Parallel()
	for name, v := range cardInputs() {
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(v)
			require.NoError(t, err)
			requireNoCardData(t, string(b), visaApproved, secretCode)
		})
	}
}

func TestCardInput_ValidationErrorsNeverQuoteCardData(t *testing.T) {
	t.Parallel()
	badNumber := "4242424242424241" // fails Luhn
	tests := []struct {
		name   string
		call   func(*Client) error
		number string
		code   string
	}{
		{"tokenize bad number", func(c *Client) error {
			_, err := c.Cards.Tokenize(context.Background(), &TokenizeParams{Number: NewCardNumber(badNumber), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode(secretCode)})
			return err
		}, badNumber, secretCode},
		{"tokenize bad code", func(c *Client) error {
			_, err := c.Cards.Tokenize(context.Background(), &TokenizeParams{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode("83170")})
			return err
		}, visaApproved, "83170"},
		{"charge bad number", func(c *Client) error {
			p := validCharge()
			p.CardToken = CardToken{}
			p.Card = &CardDetails{Number: NewCardNumber(badNumber), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode(secretCode)}
			_, err := c.Cards.Charge(context.Background(), p)
			return err
		}, badNumber, secretCode},
		{"charge bad code", func(c *Client) error {
			p := validCharge()
			p.CardToken = CardToken{}
			p.Card = &CardDetails{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode("83x7")}
			_, err := c.Cards.Charge(context.Background(), p)
			return err
		}, visaApproved, "83x7"},
		{"charge bad holder with card", func(c *Client) error {
			p := validCharge()
			p.CardToken = CardToken{}
			p.Card = &CardDetails{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode(secretCode), Holder: strings.Repeat("J", 22)}
			_, err := c.Cards.Charge(context.Background(), p)
			return err
		}, visaApproved, secretCode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mock := newSilentMock(t)
			err := tt.call(c)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			requireNoCardData(t, err.Error(), tt.number, tt.code)
			requireNoCardData(t, fmt.Sprintf("%+v", err), tt.number, tt.code)
			requireNoCardData(t, fmt.Sprintf("%#v", err), tt.number, tt.code)
			assert.Zero(t, mock.GetTotalCallCount())
		})
	}
}

func TestCardInput_GatewayErrorsNeverQuoteCardData(t *testing.T) {
	t.Parallel()
	c, _ := stubFixture(t, http.MethodGet, "card/getToken", 400, "error_card_number_invalid.json")

	_, err := c.Cards.Tokenize(context.Background(), &TokenizeParams{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode(secretCode)})
	require.ErrorIs(t, err, ErrCardNumberInvalid)
	requireNoCardData(t, err.Error(), visaApproved, secretCode)
	requireNoCardData(t, fmt.Sprintf("%+v", err), visaApproved, secretCode)
}

func TestCardInput_RedactionDoesNotChangeWhatIsSent(t *testing.T) {
	t.Parallel()
	r := requestSent(t, http.MethodGet, "card/getToken", "card_get_token.json",
		tokenizeWith(&TokenizeParams{Number: NewCardNumber(visaApproved), Expiry: NewExpiry(12, 2030), SecurityCode: NewSecurityCode(secretCode)}))
	assert.Contains(t, r.Raw, "number="+visaApproved)
	assert.Contains(t, r.Raw, "security_code="+secretCode)
}
