package paygate

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/internal/testkit/cmdtest"
)

// TestLogging_EveryEndpointLogsAttemptsButNoSecrets runs every endpoint,
// answered well and under faults (so that retries and transport errors are
// logged too), with a JSON logger at debug level, and requires one record
// per attempt with method, path, status, duration and attempt, and none of
// the card numbers, security codes, token values or the private key.
func TestLogging_EveryEndpointLogsAttemptsButNoSecrets(t *testing.T) {
	// Token values the gateway's answers carry (fixtures).
	answeredTokens := []string{"5f0c2e9a7d1b4c3e8a6f2b9d0e1c7a45", "8d3b6f1e0a2c4e7b9f5d1a3c6e8b0d2f"}

	fs := newFaultServer(t, nil)
	var logs cmdtest.Buffer // the logger writes from every call's goroutine
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := NewClient(testProject, testSecret, WithBaseURL(fs.URL), WithLogger(logger), WithTimeout(300*time.Millisecond),
		WithRetryPolicy(RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}))
	require.NoError(t, err)

	calls := append(everyEndpointCall(), everySecretCall()...)
	faults := []fault{faultNone, faultBadGatewayHTML, faultResetAfterRead, faultTruncatedJSON}
	for _, ec := range calls {
		for _, f := range faults {
			fs.set(f)
			_ = ec.call(context.Background(), c, "ord-log") // outcomes are checked elsewhere
		}
	}
	fs.set(faultNone)

	out := logs.String()
	for _, secret := range append([]string{loggedTokenizedNumber, loggedChargedNumber, loggedPayoutNumber, loggedRemitterNumber,
		loggedPermanentToken, testSecret}, answeredTokens...) {
		require.False(t, strings.Contains(out, secret), "the log holds %s", secret)
	}
	// Security codes (and the BIN) are short: look for them as whole
	// numbers, not inside ports, timestamps and durations.
	for _, code := range []string{loggedTokenizedCode, loggedChargedCode, "737", loggedPayoutNumber[:6]} {
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
