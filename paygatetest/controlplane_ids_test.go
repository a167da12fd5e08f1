package paygatetest_test

import (
	"bytes"
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// idKey matches the members that hold an id: id, a camel-case ...Id or
// ...ID, a snake-case ..._id, and the cursors.
var idKey = regexp.MustCompile(`^(id|.*[a-z]Id|.*ID|.*_id|cursor|next_cursor)$`)

// maxExactJSONNumber is 2^53: a JavaScript number holds every integer up
// to it, and no larger one exactly.
var maxExactJSONNumber = big.NewInt(1 << 53)

// numericIDs walks a JSON answer and names each id-like member that is a
// JSON number, and each number a JavaScript client could not hold
// exactly, whatever its name.
func numericIDs(t *testing.T, body []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v), "%s", body)
	var found []string
	var walk func(path, key string, v any)
	walk = func(path, key string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(path+"."+k, k, x)
			}
		case []any:
			for i, x := range v {
				walk(path+"["+strconv.Itoa(i)+"]", key, x)
			}
		case json.Number:
			n, ok := new(big.Int).SetString(v.String(), 10)
			if idKey.MatchString(key) || (ok && n.CmpAbs(maxExactJSONNumber) > 0) {
				found = append(found, path+" = "+v.String())
			}
		}
	}
	walk("", "", v)
	return found
}

// TestControlPlane_EveryIDIsAString calls every operation of the control
// plane and requires each id in each answer to be a JSON string: a client
// in JavaScript reads a 19-digit JSON number as the nearest float64, and
// then names a transaction that does not exist. The /v1 answers keep the
// gateway's numbers.
func TestControlPlane_EveryIDIsAString(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, 0)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL))
	seen := map[string]bool{}
	// call sends one request of operation op, checks its answer and
	// decodes it into out (when not nil).
	call := func(method, op, path, ct, body string, out any) {
		t.Helper()
		seen[method+" "+op] = true
		status, raw := s.controlRaw(method, "/sandbox/"+path, ct, body, s.srv.PrivateKey)
		require.Equal(t, http.StatusOK, status, "%s /sandbox/%s: %s", method, path, raw)
		assert.Empty(t, numericIDs(t, raw), "%s /sandbox/%s answers ids as JSON numbers: %s", method, path, raw)
		if out != nil {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			require.NoError(t, dec.Decode(out))
		}
	}
	form := "application/x-www-form-urlencoded"

	fixtures, err := os.ReadFile("testdata/fixtures/example.json")
	require.NoError(t, err)
	var ids paygatetest.FixtureIDs
	call(http.MethodPost, "fixtures", "fixtures", "application/json", string(fixtures), &ids)
	paid := ids.Transactions["paid"]

	call(http.MethodGet, "clock", "clock", "", "", nil)
	call(http.MethodPost, "clock", "clock", form, "advance=1m", nil)
	var page map[string]any
	call(http.MethodGet, "transactions", "transactions?per_page=2", "", "", &page)
	require.Contains(t, page, "next_cursor")
	call(http.MethodGet, "transactions", "transactions?per_page=2&cursor="+url.QueryEscape(stringOf(page["next_cursor"])), "", "", nil)
	call(http.MethodGet, "transactions", "transactions?order_id=order-4", "", "", nil) // a payment and its chargeback

	var chargeback map[string]any
	call(http.MethodPost, "transactions/{id}/{event}", "transactions/"+paid+"/chargeback", form, "", &chargeback)
	assert.Equal(t, paid, chargeback["referenceId"], "the chargeback's parent, as a string")
	byID := s.ok("transactions/"+stringOf(chargeback["id"]), nil)
	_, isNumber := byID["id"].(json.Number)
	assert.True(t, isNumber, "GET /v1 transactions/{id} keeps the gateway's number: %v", byID["id"])

	call(http.MethodPost, "faults", "faults", form, "method=card/process&fault=status-500&count=1", nil)
	waitFor(t, s, delivered(stringOf(chargeback["id"]), "chargeback_completed"))
	var deliveries []map[string]any
	call(http.MethodGet, "deliveries", "deliveries?per_page=1", "", "", &deliveries)
	require.Len(t, deliveries, 1)
	call(http.MethodGet, "deliveries", "deliveries?per_page=1&cursor="+url.QueryEscape(stringOf(deliveries[0]["id"])), "", "", nil)
	call(http.MethodPost, "deliveries/{id}/redeliver", "deliveries/"+stringOf(deliveries[0]["id"])+"/redeliver", form, "", nil)
	call(http.MethodPost, "login-url", "login-url", form, "", nil)
	call(http.MethodGet, "callback-url", "callback-url", "", "", nil)
	call(http.MethodPost, "callback-url", "callback-url", form, "url="+url.QueryEscape(rcv.URL), nil)
	call(http.MethodPost, "reset", "reset", form, "", nil)

	for _, op := range paygatetest.ControlOperations() {
		assert.True(t, seen[op], "the test does not call %s: add it", op)
	}
}

// stringOf is a JSON id as text, whether it came as a string or a number.
func stringOf(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// TestControlPlane_NumericIDsFindsNumbers shows that the walk of
// TestControlPlane_EveryIDIsAString finds what it looks for.
func TestControlPlane_NumericIDsFindsNumbers(t *testing.T) {
	t.Parallel()
	found := numericIDs(t, []byte(`{"id":"1","transactions":[{"id":1000000000000000001,"referenceId":7,`+
		`"user":{"id":3}}],"next_cursor":5,"total":9,"price":"1.00","amount":9007199254740993,"order_id":2}`))
	slices.Sort(found)
	assert.Equal(t, []string{
		".amount = 9007199254740993", ".next_cursor = 5", ".order_id = 2",
		".transactions[0].id = 1000000000000000001", ".transactions[0].referenceId = 7",
		".transactions[0].user.id = 3",
	}, found)
	assert.Empty(t, numericIDs(t, []byte(`{"total":9,"per_page":100,"page":1,"expires_in":300,"count":2}`)))
}
