package paygatetest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// rangeBase is a state file the sandbox takes, with one of each record:
// the cases of TestStateFile_RefusesNumbersOutOfRange change one number.
// Each number a case changes appears once.
const rangeBase = `{"version":1,"saved_at":"2026-03-01T12:00:00Z","clock":{"now":"2026-03-01T12:00:00Z","offset":0},
"next_transaction":1000000000000000002,"next_user":2,"next_token":2,"last_delivery":1,
"users":[{"id":"1","project":"sandbox-project","identifier":"a"}],
"tokens":[{"id":"perm_0000000000000001","project":"sandbox-project","card":{"number":"4242424242424242","month":11,"year":2031},
 "expires_at":"2026-03-01T12:10:00Z","permanent":true}],
"transactions":[{"id":1000000000000000001,"reference_id":0,"project":"sandbox-project","price":"10.00","currency":"EUR",
 "type":"payment","method":"card","status":"completed","created_at":"2026-03-01T12:00:00Z","updated_at":"2026-03-01T12:00:02Z",
 "user":"1","card":{"number":"4242424242424242","month":12,"year":2030},
 "extra":{"reversed":"0","recurring":true,"subscribed":true,"recur_interval":30,"recur_trial":0,"chargeback_id":0,
  "earlier":[{"Status":"opened","At":"2026-03-01T12:00:03Z","By":0}]}}],
"subscriptions":[{"user":"1","card":{"number":"4242424242424242"},"reference_id":1000000000000000001,"interval":30,
 "price":"9.00","currency":"EUR","last_manual":"2026-03-01T12:00:04Z","next_auto":"2026-03-31T12:00:00Z",
 "ends_at":"2027-03-01T12:00:00Z"}],
"balances":{"sandbox-project":{"EUR":"19.00"}},
"deliveries":[{"seq":1,"transaction":1000000000000000001,"url":"http://127.0.0.1:9/callbacks","status":"completed",
 "history":[{"At":"2026-03-01T12:00:01Z","Status":200,"Error":"","Manual":false}],"attempts":1,"automatic":1,
 "next_at":"0001-01-01T00:00:00Z","delivered":true,"done":true}]}`

// Every number of a state file is checked when it is read: one the
// sandbox would trip over later (an index, a counter that would overflow,
// a time it cannot write back, an amount it cannot print) stops the start
// with an error naming the field, never a panic or a file it refuses
// later.
func TestStateFile_RefusesNumbersOutOfRange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "base.json")
	require.NoError(t, os.WriteFile(path, []byte(rangeBase), 0o600))
	srv, err := paygatetest.Listen("127.0.0.1:0", paygatetest.WithStateFile(path))
	require.NoError(t, err, "the base file is taken")
	srv.Close()

	const never = `"9999-12-31T00:00:00Z"`
	for _, tc := range []struct{ old, new, field string }{
		{`"next_transaction":1000000000000000002`, `9223372036854775807`, "next_transaction"},
		{`"next_transaction":1000000000000000002`, `5`, "next_transaction"},
		{`"next_user":2`, `-1`, "next_user"},
		{`"next_user":2`, `9223372036854775807`, "next_user"},
		{`"next_token":2`, `10000000000000000`, "next_token"},
		{`"next_token":2`, `0`, "next_token"},
		{`"last_delivery":1`, `-1`, "last_delivery"},
		{`"last_delivery":1`, `9223372036854775807`, "last_delivery"},
		{`"now":"2026-03-01T12:00:00Z"`, never, "now"},
		{`"expires_at":"2026-03-01T12:10:00Z"`, never, "expires_at"},
		{`"month":11`, `13`, "month"},
		{`"year":2031`, `-2031`, "year"},
		{`"id":1000000000000000001`, `7`, "id"},
		{`"reference_id":0`, `-1`, "reference_id"},
		{`"reference_id":0`, `1000000000000000002`, "reference_id"},
		{`"price":"10.00"`, `"1e40"`, "price"},
		{`"price":"10.00"`, `"0.0000000000001"`, "price"},
		{`"created_at":"2026-03-01T12:00:00Z"`, never, "created_at"},
		{`"updated_at":"2026-03-01T12:00:02Z"`, never, "updated_at"},
		{`"month":12`, `-1`, "month"},
		{`"reversed":"0"`, `"-1e99"`, "reversed"},
		{`"recur_interval":30`, `-1`, "recur_interval"},
		{`"recur_trial":0`, `-30`, "recur_trial"},
		{`"chargeback_id":0`, `-1`, "chargeback_id"},
		{`"At":"2026-03-01T12:00:03Z"`, never, "earlier"},
		{`"By":0`, `-1`, "earlier"},
		{`"reference_id":1000000000000000001`, `0`, "reference_id"},
		{`"price":"9.00"`, `"1e99"`, "price"},
		{`"last_manual":"2026-03-01T12:00:04Z"`, never, "last_manual"},
		{`"EUR":"19.00"`, `"1e99"`, "balances"},
		{`"seq":1`, `0`, "seq"},
		{`"attempts":1`, `-1`, "attempts"},
		{`"attempts":1`, `2147483647`, "attempts"},
		{`"automatic":1`, `-1`, "automatic"},
		{`"automatic":1`, `2`, "automatic"},
		{`"Status":200`, `70000`, "history"},
		{`"At":"2026-03-01T12:00:01Z"`, never, "history"},
		{`"next_at":"0001-01-01T00:00:00Z"`, never, "next_at"},
	} {
		name, _, _ := strings.Cut(tc.old, ":")
		t.Run(strings.Trim(name, `"`)+"="+tc.new, func(t *testing.T) {
			require.Equal(t, 1, strings.Count(rangeBase, tc.old), "the number to change appears once")
			content := strings.Replace(rangeBase, tc.old, name+":"+tc.new, 1)
			path := filepath.Join(t.TempDir(), "state.json")
			require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
			srv, err := paygatetest.Listen("127.0.0.1:0", paygatetest.WithStateFile(path))
			if err == nil {
				srv.Close()
			}
			require.ErrorIs(t, err, paygatetest.ErrStateFile)
			assert.Contains(t, err.Error(), path, "the error names the file")
			assert.Contains(t, err.Error(), `"`+tc.field+`"`, "the error names the field")
		})
	}
}
