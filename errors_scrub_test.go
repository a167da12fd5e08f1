package paygate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/paygate/paygate-go/internal/ascii"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The card data of the echo tests: values that appear nowhere else in an
// error, so that finding one means the request leaked.
const (
	echoCardNumber   = "4000056655665556"
	echoCode         = "913"
	echoMonth        = 11
	echoYear         = 2031
	echoToken        = "tok_7Hq2mZ9xW4"
	echoAccount      = "79161234567" // a QIWI wallet: a phone number, too short to look like a card
	echoRemitterCard = "5555555555554444"
	echoIBAN         = "DE89370400440532013000"
	echoPaRes        = "eJzVWNmSo0iyfecr"
	echoMD           = "md-7f3a9c"
)

// echoRequest answers with the whole request (query and body, raw and
// decoded) in the body, as a proxy's or firewall's error page may.
func echoRequest(status int, jsonEnvelope bool) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		raw := req.URL.RawQuery
		if req.Body != nil {
			b, _ := io.ReadAll(req.Body)
			raw += "&" + string(b)
		}
		decoded, _ := url.QueryUnescape(raw)
		echo := "<html>request rejected: " + raw + " | " + decoded + "</html>"
		if jsonEnvelope {
			echo = fmt.Sprintf(`{"error":{"code":40004,"message":%q}}`, "bad request: "+decoded)
		}
		resp := httpmock.NewStringResponse(status, echo)
		if status/100 == 3 {
			resp.Header.Set("Location", "https://login.wall.example/next?"+raw)
		}
		return resp, nil
	}
}

func TestErrors_NeverCarryCardDataEchoedByAnAnswer(t *testing.T) {
	t.Parallel()
	calls := map[string]struct {
		method, path string
		call         func(*Client) error
		secrets      []string
	}{
		"Tokenize": {http.MethodGet, "card/getToken", func(c *Client) error {
			_, err := c.Cards.Tokenize(context.Background(), &TokenizeParams{
				Number: NewCardNumber(echoCardNumber), Expiry: NewExpiry(echoMonth, echoYear), SecurityCode: NewSecurityCode(echoCode)})
			return err
		}, []string{echoCardNumber, echoCode, "11", "2031"}},
		"Charge with a token": {http.MethodPost, "card/process", func(c *Client) error {
			_, err := c.Cards.Charge(context.Background(), &ChargeParams{User: "1", CardToken: NewCardToken(echoToken),
				Price: decimal.RequireFromString("9.99"), Currency: "EUR", Description: "Order 5", OrderID: "ord-5"})
			return err
		}, []string{echoToken}},
		"Charge with a card object": {http.MethodPost, "card/process", func(c *Client) error {
			_, err := c.Cards.Charge(context.Background(), &ChargeParams{User: "1",
				Card:  &CardDetails{Number: NewCardNumber(echoCardNumber), Expiry: NewExpiry(echoMonth, echoYear), SecurityCode: NewSecurityCode(echoCode), Holder: "JANE ROE"},
				Price: decimal.RequireFromString("9.99"), Currency: "EUR", Description: "Order 5", OrderID: "ord-5"})
			return err
		}, []string{echoCardNumber, echoCode, "11", "2031", "JANE ROE"}},
		"Payouts.Create with an account": {http.MethodPost, "payout", func(c *Client) error {
			_, err := c.Payouts.Create(context.Background(), &PayoutParams{Type: PayoutType{ID: 7, Key: "QIWI", Label: "QIWI Wallet"}, Account: NewAccountNumber(echoAccount),
				Amount: decimal.RequireFromString("10.00"), Currency: "EUR", OrderID: "payout-77"})
			return err
		}, []string{echoAccount}},
		"Payouts.Create to a card with the remitter's card": {http.MethodPost, "payout", func(c *Client) error {
			_, err := c.Payouts.Create(context.Background(), &PayoutParams{Type: PayoutType{ID: 1, Key: "CREDIT_CARD", Label: "Card"},
				Account: NewAccountNumber(echoCardNumber), CardExpirationDate: "11/31", Amount: decimal.RequireFromString("10.00"), Currency: "EUR", OrderID: "payout-78",
				RemitterCardNumber: NewAccountNumber(echoRemitterCard), RemitterCardExpirationMonth: "09", RemitterCardExpirationYear: "2032",
				BeneficiaryFirstName: "Zebulon", BeneficiaryDocumentNumber: "XK998877"})
			return err
		}, []string{echoCardNumber, "11/31", echoRemitterCard, "2032", "Zebulon", "XK998877"}},
		"Payouts.Parameters for an account": {http.MethodGet, "payout-parameters", func(c *Client) error {
			_, err := c.Payouts.Parameters(context.Background(), &PayoutParametersParams{Type: PayoutType{ID: 5, Key: "SEPA", Label: "SEPA"},
				Account: NewAccountNumber(echoIBAN), Currency: "EUR"})
			return err
		}, []string{echoIBAN}},
		"Authenticate": {http.MethodPost, "card/authenticate", func(c *Client) error {
			_, err := c.Cards.Authenticate(context.Background(), &AuthenticateParams{PaRes: NewACSData(echoPaRes), MD: NewACSData(echoMD)})
			return err
		}, []string{echoPaRes, echoMD}},
	}
	answers := []struct {
		name   string
		status int
		json   bool
	}{
		{"400 page", 400, false}, {"400 error object", 400, true}, {"403 page", 403, false},
		{"301 redirect", 301, false}, {"502 page", 502, false}, {"500 page", 500, false}, {"500 error object", 500, true},
	}
	for name, tc := range calls {
		for _, a := range answers {
			t.Run(name+"/"+a.name, func(t *testing.T) {
				c, mock := newMockClient(t)
				mock.RegisterResponder(tc.method, testBaseURL+"/v1/"+tc.path, echoRequest(a.status, a.json))
				err := tc.call(c)
				require.Error(t, err)
				require.Equal(t, 1, mock.GetTotalCallCount())
				var logged strings.Builder // a merchant logging the error
				slog.New(slog.NewJSONHandler(&logged, timeless)).Error("payment failed", "err", err)
				texts := []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), logged.String()}
				var apiErr *Error
				if errors.As(err, &apiErr) {
					// Its fields, as %#v of a wrapper would print them were
					// they not behind a pointer.
					texts = append(texts, fmt.Sprintf("%#v", *apiErr))
				}
				for _, text := range texts {
					for _, secret := range tc.secrets {
						if ascii.Digits(secret) {
							assert.NotRegexp(t, regexp.MustCompile(`(^|\D)0*`+secret+`(\D|$)`), text)
						} else {
							assert.NotContains(t, text, secret)
							assert.NotContains(t, text, url.QueryEscape(secret))
						}
					}
				}
				assert.Contains(t, err.Error(), fmt.Sprintf("HTTP %d", a.status))
			})
		}
	}
}

func TestErrors_GatewayMessageKeptWhenItQuotesNoRequestData(t *testing.T) {
	t.Parallel()
	c, _ := stubEndpoint(t, http.MethodGet, "card/getToken", httpmock.NewStringResponder(400, `{"error":{"code":40004,"message":"Card number invalid"}}`))
	_, err := c.Cards.Tokenize(context.Background(), &TokenizeParams{
		Number: NewCardNumber(echoCardNumber), Expiry: NewExpiry(echoMonth, echoYear), SecurityCode: NewSecurityCode(echoCode)})
	require.ErrorIs(t, err, ErrCardNumberInvalid)
	assert.Equal(t, "paygate: Card number invalid (40004, HTTP 400)", err.Error())
}

func TestErrors_BodyExcerptKeptForRequestsWithoutCardData(t *testing.T) {
	t.Parallel()
	c, _ := stubEndpoint(t, http.MethodGet, "balance", httpmock.NewStringResponder(502, "<html>502 Bad Gateway</html>"))
	_, err := c.Balance.Get(context.Background(), nil)
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "<html>502 Bad Gateway</html>", apiErr.Body)
}

func TestErrors_TransportErrorQuotingTheAnswerIsMasked(t *testing.T) {
	t.Parallel()
	var logged strings.Builder
	c, mock := newMockClient(t, WithLogger(slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	mock.RegisterResponder(http.MethodPost, testBaseURL+"/v1/card/process", func(req *http.Request) (*http.Response, error) {
		b, _ := io.ReadAll(req.Body)
		// What net/http reports for a peer that answers with anything but HTTP.
		return nil, fmt.Errorf("malformed HTTP response %q", b)
	})
	_, err := c.Cards.Charge(context.Background(), &ChargeParams{User: "1",
		Card:  &CardDetails{Number: NewCardNumber(echoCardNumber), Expiry: NewExpiry(echoMonth, echoYear), SecurityCode: NewSecurityCode(echoCode)},
		Price: decimal.RequireFromString("9.99"), Currency: "EUR", Description: "Order 5", OrderID: "ord-5"})
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	require.Contains(t, logged.String(), "malformed HTTP response", "the attempt is logged")
	for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), logged.String()} {
		assert.NotContains(t, text, echoCardNumber)
		assert.NotContains(t, text, "security_code%5D="+echoCode)
		assert.Contains(t, text, "ord-5", "the order id to look the outcome up by stays")
	}
}

func TestSentSecrets_MaskWholeRunsOnly(t *testing.T) {
	t.Parallel()
	s := sentSecrets{{"7", true}, {"913", true}, {"JANE ROE", true}, {"a@b.example", false}, {"1", false}, {"EUR", false}}
	got := s.mask("/v1/ month=07 code=913 code2=9130 HTTP 400 holder=JANE+ROE JANE ROE mail=a%40b.example 17 EUR")
	assert.Equal(t, "/v1/ month=*** code=*** code2=9130 HTTP 400 holder=*** *** mail=*** 17 EUR", got)
	assert.True(t, strings.HasPrefix(redirectRefused("https://u:p@evil.example:8443/x?card=1"), "redirect to host evil.example refused"))
	assert.Equal(t, "redirect to the same host refused: the SDK never follows a redirect", redirectRefused("/v1/other"))
	assert.Equal(t, "redirect to no location refused: the SDK never follows a redirect", redirectRefused(""))
}

// TestSentSecrets_MaskReformattedEchoes covers an answer that reformats what
// the request sent: the year by its last two digits, the month without
// (or with) its leading zero, the expiry as one number (MMYY, YYMM,
// MMYYYY, YYYYMM), the holder's name in another letter case, with other
// spacing, raw, URL-encoded, HTML-escaped or JSON-escaped, the card number
// in groups.
func TestSentSecrets_MaskReformattedEchoes(t *testing.T) {
	t.Parallel()
	s := secretsOf([]byte("card%5Bnumber%5D=4242424242424242&card%5Bexpiration_month%5D=7&card%5Bexpiration_year%5D=2047"+
		"&card%5Bsecurity_code%5D=913&card%5Bholder%5D=Jane+Roe&order_id=ord-1"), false)
	got := s.mask("card 07/47 expires 7/2047, holder JANE ROE (jane roe, JANE+ROE, Jane  Roe, JANE%20ROE, JANE&nbsp;ROE) order ord-1 code 913 HTTP 400 in 2047ms")
	assert.Equal(t, "card ***/*** expires ***/***, holder *** (***, ***, ***, ***, ***) order ord-1 code *** HTTP 400 in ***ms", got)

	payout := secretsOf([]byte("account=4242424242424242&remitterCardExpirationYear=2031&orderId=p-1"), false)
	assert.Equal(t, "exp 09/*** ***", payout.mask("exp 09/31 31"))

	card := secretsOf([]byte("card%5Bnumber%5D=4242424242424242&card%5Bexpiration_month%5D=12&card%5Bexpiration_year%5D=2030"+
		"&card%5Bholder%5D=O%27BRIEN&order_id=ord-2"), false)
	for echo, want := range map[string]string{
		"expiry 1230 refused":                "expiry *** refused",
		"expiry 3012 refused":                "expiry *** refused",
		"expiry 122030 or 203012":            "expiry *** or ***",
		"holder O&#39;BRIEN refused":         "holder *** refused",
		"holder O&#x27;Brien, O&apos;BRIEN":  "holder ***, ***",
		`holder "O\u0027BRIEN" (O%27BRIEN)`:  `holder "***" (***)`,
		"holder O&#039;BRIEN":                "holder ***",
		"card 4242 4242 4242 4242 refused":   "card *** refused",
		"card 4242-4242-4242-4242 refused":   "card *** refused",
		"card 4242  4242  4242  4242, ord-2": "card ***, ord-2",
		"4242 4242 4242 4242 12/30 HTTP 400": "*** ***/*** HTTP 400",
	} {
		assert.Equal(t, want, card.mask(echo), "echo %q", echo)
	}
}
