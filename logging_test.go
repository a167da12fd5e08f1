package paygate

import (
	"bufio"

	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/internal/cmdtest"
)

// TestLogging_EveryEndpointLogsAttemptsButNoSecrets runs every endpoint,
// answered well and under faults (so that retries and transport errors are
// logged too), with a JSON logger at debug level, and requires one record
// per attempt with method, path, status, duration and attempt, and none of
// the card numbers, security codes, token values or the private key.
func TestLogging_EveryEndpointLogsAttemptsButNoSecrets(t *testing.T) {
	const (
		tokenizedNumber = "4111111111111111"
		tokenizedCode   = "8402"
		chargedNumber   = "4000000000003220"
		chargedCode     = "9173"
		payoutNumber    = "5555555555554444"
		remitterNumber  = "4000056655665556"
		permanentToken  = "c41e8a2f6b0d4f9a8e3c5b7d1f2a6e90" // sent as card_token
	)
	// Token values the gateway's answers carry (fixtures).
	answeredTokens := []string{"5f0c2e9a7d1b4c3e8a6f2b9d0e1c7a45", "8d3b6f1e0a2c4e7b9f5d1a3c6e8b0d2f"}

	fs := newFaultServer(t, nil)
	var logs cmdtest.Buffer // the logger writes from every call's goroutine
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := NewClient(testProject, testSecret, WithBaseURL(fs.URL), WithLogger(logger), WithTimeout(300*time.Millisecond),
		WithRetryPolicy(RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}))
	require.NoError(t, err)

	price := decimal.RequireFromString("24.90")
	card := PayoutType{ID: 1, Key: PayoutTypeCreditCard}
	calls := append(everyEndpointCall(),
		endpointCall{"Cards.Tokenize with card data", http.MethodGet, "card/getToken", func(ctx context.Context, c *Client, _ string) error {
			_, err := c.Cards.Tokenize(ctx, &TokenizeParams{Number: tokenizedNumber, ExpirationMonth: 12, ExpirationYear: 2030, SecurityCode: tokenizedCode})
			return err
		}, false},
		endpointCall{"Cards.Charge with a card", http.MethodPost, "card/process", func(ctx context.Context, c *Client, order string) error {
			_, err := c.Cards.Charge(ctx, &ChargeParams{UserDetails: &UserDetails{Identifier: "cust-1"},
				Card:  &CardDetails{Number: chargedNumber, ExpirationMonth: 9, ExpirationYear: 2029, SecurityCode: chargedCode, Holder: "JANE DOE"},
				Price: price, Currency: "EUR", Description: "Order", OrderID: order})
			return err
		}, true},
		endpointCall{"Cards.Charge with a permanent token", http.MethodPost, "card/process", func(ctx context.Context, c *Client, order string) error {
			_, err := c.Cards.Charge(ctx, &ChargeParams{User: "100452", CardToken: permanentToken, Price: price, Currency: "EUR", Description: "Order", OrderID: order})
			return err
		}, true},
		endpointCall{"Payouts.Parameters for a card", http.MethodGet, "payout-parameters", func(ctx context.Context, c *Client, _ string) error {
			_, err := c.Payouts.Parameters(ctx, &PayoutParametersParams{Type: card, Account: payoutNumber, Currency: "EUR"})
			return err
		}, false},
		endpointCall{"Payouts.Create to a card", http.MethodPost, "payout", func(ctx context.Context, c *Client, order string) error {
			_, err := c.Payouts.Create(ctx, &PayoutParams{Type: card, Account: payoutNumber, Amount: price, Currency: "EUR", OrderID: order,
				RemitterCardNumber: remitterNumber})
			return err
		}, true},
	)
	faults := []fault{faultNone, faultBadGatewayHTML, faultResetAfterRead, faultTruncatedJSON}
	for _, ec := range calls {
		for _, f := range faults {
			fs.set(f)
			_ = ec.call(context.Background(), c, "ord-log") // outcomes are checked elsewhere
		}
	}
	fs.set(faultNone)

	out := logs.String()
	for _, secret := range append([]string{tokenizedNumber, chargedNumber, payoutNumber, remitterNumber, permanentToken,
		testSecret}, answeredTokens...) {
		require.False(t, strings.Contains(out, secret), "the log holds %s", secret)
	}
	// Security codes (and the BIN) are short: look for them as whole
	// numbers, not inside ports, timestamps and durations.
	for _, code := range []string{tokenizedCode, chargedCode, "737", payoutNumber[:6]} {
		require.False(t, regexp.MustCompile(`\b`+code+`\b`).MatchString(out), "the log holds %s", code)
	}

	paths := map[string]bool{}
	retries := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var rec map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		for _, key := range []string{"method", "path", "status", "attempt"} {
			require.Contains(t, rec, key)
		}
		if rec["msg"] == "paygate retry" {
			retries++
			continue
		}
		require.Contains(t, rec, "duration")
		paths[rec["method"].(string)+" "+rec["path"].(string)] = true
	}
	for _, ec := range calls {
		require.True(t, paths[ec.method+" "+ec.path], "no record of %s %s", ec.method, ec.path)
	}
	require.Positive(t, retries, "retries are logged")
}
