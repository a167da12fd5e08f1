package paygatetest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// rangeBase is a state file the sandbox takes, with one of each record:
// the cases of TestStateFile_RefusesNumbersOutOfRange change one number.
const rangeBase = `{"version":1,"saved_at":"2026-03-01T12:00:00Z","clock":{"now":"2026-03-01T12:00:00Z","offset":0},
"next_transaction":1000000000000000002,"next_user":2,"next_token":2,"last_delivery":1,
"users":[{"id":"1","project":"sandbox-project","identifier":"a"}],
"tokens":[{"id":"perm_0000000000000001","project":"sandbox-project","card":{"number":"4242424242424242","month":12,"year":2030},
 "expires_at":"2026-03-01T12:10:00Z","permanent":true}],
"transactions":[{"id":1000000000000000001,"project":"sandbox-project","price":"10.00","currency":"EUR","type":"payment",
 "method":"card","status":"completed","created_at":"2026-03-01T12:00:00Z","updated_at":"2026-03-01T12:00:00Z","user":"1",
 "card":{"number":"4242424242424242","month":12,"year":2030},
 "extra":{"reversed":"0","recurring":true,"subscribed":true,"recur_interval":30,"recur_trial":0,"chargeback_id":0,
  "earlier":[{"Status":"opened","At":"2026-03-01T12:00:00Z","By":0}]}}],
"subscriptions":[{"user":"1","card":{"number":"4242424242424242"},"reference_id":1000000000000000001,"interval":30,
 "price":"10.00","currency":"EUR","last_manual":"2026-03-01T12:00:00Z","next_auto":"2026-03-31T12:00:00Z",
 "ends_at":"2027-03-01T12:00:00Z"}],
"balances":{"sandbox-project":{"EUR":"10.00"}},
"deliveries":[{"seq":1,"transaction":1000000000000000001,"url":"http://127.0.0.1:9/callbacks","status":"completed",
 "history":[{"At":"2026-03-01T12:00:01Z","Status":200,"Error":"","Manual":false}],"attempts":1,"automatic":1,
 "next_at":"0001-01-01T00:00:00Z","delivered":true,"done":true}]}`

// setAt sets the value at path (keys and indices joined by dots) in the
// decoded JSON v.
func setAt(t *testing.T, v any, path string, value any) {
	t.Helper()
	keys := strings.Split(path, ".")
	for i, k := range keys {
		last := i == len(keys)-1
		switch node := v.(type) {
		case map[string]any:
			if last {
				node[k] = value
				return
			}
			v = node[k]
		case []any:
			n, err := strconv.Atoi(k)
			require.NoError(t, err, path)
			if last {
				node[n] = value
				return
			}
			v = node[n]
		default:
			t.Fatalf("no %s in the base file", path)
		}
	}
}

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

	num := func(s string) json.Number { return json.Number(s) }
	for _, tc := range []struct {
		path  string
		value any
		field string
	}{
		{"next_transaction", num("9223372036854775807"), "next_transaction"},
		{"next_transaction", num("5"), "next_transaction"},
		{"next_user", num("-1"), "next_user"},
		{"next_user", num("9223372036854775807"), "next_user"},
		{"next_token", num("10000000000000000"), "next_token"},
		{"next_token", num("0"), "next_token"},
		{"last_delivery", num("-1"), "last_delivery"},
		{"last_delivery", num("9223372036854775807"), "last_delivery"},
		{"clock.now", "9999-12-31T00:00:00Z", "now"},
		{"tokens.0.expires_at", "9999-12-31T00:00:00Z", "expires_at"},
		{"tokens.0.card.month", num("13"), "month"},
		{"tokens.0.card.year", num("-2030"), "year"},
		{"transactions.0.id", num("7"), "id"},
		{"transactions.0.reference_id", num("-1"), "reference_id"},
		{"transactions.0.reference_id", num("1000000000000000002"), "reference_id"},
		{"transactions.0.price", "1e40", "price"},
		{"transactions.0.price", "0.0000000000001", "price"},
		{"transactions.0.created_at", "9999-12-31T00:00:00Z", "created_at"},
		{"transactions.0.updated_at", "9999-12-31T00:00:00Z", "updated_at"},
		{"transactions.0.card.month", num("-1"), "month"},
		{"transactions.0.extra.reversed", "-1e99", "reversed"},
		{"transactions.0.extra.recur_interval", num("-1"), "recur_interval"},
		{"transactions.0.extra.recur_trial", num("-30"), "recur_trial"},
		{"transactions.0.extra.chargeback_id", num("-1"), "chargeback_id"},
		{"transactions.0.extra.earlier.0.At", "9999-12-31T00:00:00Z", "earlier"},
		{"transactions.0.extra.earlier.0.By", num("-1"), "earlier"},
		{"subscriptions.0.reference_id", num("0"), "reference_id"},
		{"subscriptions.0.price", "1e99", "price"},
		{"subscriptions.0.last_manual", "9999-12-31T00:00:00Z", "last_manual"},
		{"balances.sandbox-project.EUR", "1e99", "balances"},
		{"deliveries.0.seq", num("0"), "seq"},
		{"deliveries.0.attempts", num("-1"), "attempts"},
		{"deliveries.0.attempts", num("2147483647"), "attempts"},
		{"deliveries.0.automatic", num("-1"), "automatic"},
		{"deliveries.0.automatic", num("2"), "automatic"},
		{"deliveries.0.history.0.Status", num("70000"), "history"},
		{"deliveries.0.history.0.At", "9999-12-31T00:00:00Z", "history"},
		{"deliveries.0.next_at", "9999-12-31T00:00:00Z", "next_at"},
	} {
		t.Run(tc.path+"="+fmtValue(tc.value), func(t *testing.T) {
			var doc any
			dec := json.NewDecoder(strings.NewReader(rangeBase))
			dec.UseNumber()
			require.NoError(t, dec.Decode(&doc))
			setAt(t, doc, tc.path, tc.value)
			content, err := json.Marshal(doc)
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), "state.json")
			require.NoError(t, os.WriteFile(path, content, 0o600))
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

func fmtValue(v any) string {
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return v.(string)
}
