package paygatetest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// listIDs reads GET /sandbox/transactions with query q: the ids of the
// page, and the whole answer.
func (s *sandbox) listIDs(q url.Values) ([]string, map[string]any) {
	s.t.Helper()
	status, out := s.control(http.MethodGet, "/sandbox/transactions?"+q.Encode(), nil)
	require.Equal(s.t, http.StatusOK, status, "%v", out)
	var ids []string
	for _, t := range out["transactions"].([]any) {
		ids = append(ids, idOf(t.(map[string]any)))
	}
	return ids, out
}

func TestControlPlane_ListsTransactionsNewestFirstFilteredAndPaged(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	u := s.user("buyer")
	var ids []string
	for i := range 5 {
		card := paygatetest.CardApproved
		if i == 2 {
			card = paygatetest.CardDeclined
		}
		ids = append(ids, idOf(s.charge(u, card, url.Values{"order_id": {"ord-" + strconv.Itoa(i%2)}})))
		s.clock.Advance(time.Hour)
	}
	other := teamB
	s.srv.AddProject(other)

	got, out := s.listIDs(nil)
	assert.Equal(t, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}, got, "newest first")
	assert.Equal(t, jsonNumber(5), out["total"])
	assert.NotContains(t, out, "next_cursor", "everything on one page")

	got, _ = s.listIDs(url.Values{"status": {"failed"}})
	assert.Equal(t, []string{ids[2]}, got)
	got, _ = s.listIDs(url.Values{"order_id": {"ord-1"}})
	assert.Equal(t, []string{ids[3], ids[1]}, got)
	got, _ = s.listIDs(url.Values{"type": {"payment"}, "from": {testStart.Add(time.Hour).Format(time.RFC3339)},
		"to": {testStart.Add(3 * time.Hour).Format(time.RFC3339)}})
	assert.Equal(t, []string{ids[3], ids[2], ids[1]}, got, "from and to are inclusive")
	got, _ = s.listIDs(url.Values{"type": {"payout"}})
	assert.Empty(t, got)

	got, out = s.listIDs(url.Values{"per_page": {"2"}, "page": {"2"}})
	assert.Equal(t, []string{ids[2], ids[1]}, got)
	assert.Equal(t, jsonNumber(2), out["page"])
	cursor := ""
	var walked []string
	for range 5 {
		q := url.Values{"per_page": {"2"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		page, out := s.listIDs(q)
		walked = append(walked, page...)
		next, more := out["next_cursor"].(string)
		if !more {
			break
		}
		cursor = next
	}
	assert.Equal(t, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}, walked, "the cursor walks every page once")

	for _, q := range []url.Values{{"page": {"0"}}, {"per_page": {"x"}}, {"cursor": {"-3"}}, {"from": {"soon"}},
		{"page": {"2"}, "cursor": {ids[3]}}} {
		s.controlFails(http.MethodGet, "/sandbox/transactions?"+q.Encode(), nil, 40000)
	}
	status, raw := s.controlRaw(http.MethodGet, "/sandbox/transactions", "", "", other.Secret.Reveal())
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"transactions":[],"total":0,"page":1,"per_page":100}`, string(raw), "another project's key sees none")
}

func TestControlPlane_ReadsTheClock(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.clock.Advance(90 * time.Minute)
	other := teamB
	s.srv.AddProject(other)
	for _, key := range []string{s.srv.PrivateKey, other.Secret.Reveal()} {
		status, raw := s.controlRaw(http.MethodGet, "/sandbox/clock", "", "", key)
		require.Equal(t, http.StatusOK, status, string(raw))
		assert.JSONEq(t, `{"now":"2026-03-01T13:30:00Z"}`, string(raw), "any project reads the clock")
	}
	status, raw := s.controlRaw(http.MethodGet, "/sandbox/clock", "application/json", "", s.srv.PrivateKey)
	require.Equal(t, http.StatusOK, status, "a JSON content type with no body is no input: %s", raw)
}

func TestControlPlane_EventRefusalListsTheEventsThatApply(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	pay := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, nil))
	status, out := s.control(http.MethodPost, "/sandbox/transactions/"+pay+"/explode", nil)
	requireError(t, status, out, 40400)
	assert.Contains(t, out["error"].(map[string]any)["message"], "events that apply to this transaction now: chargeback")

	status, out = s.control(http.MethodPost, "/sandbox/transactions/"+pay+"/approve", nil)
	requireError(t, status, out, 40900)
	assert.Contains(t, out["error"].(map[string]any)["message"], "events that apply to this transaction now: chargeback")

	failed := idOf(s.charge(s.user("buyer"), paygatetest.CardDeclined, nil))
	status, out = s.control(http.MethodPost, "/sandbox/transactions/"+failed+"/chargeback", nil)
	requireError(t, status, out, 40900)
	assert.Contains(t, out["error"].(map[string]any)["message"], "no event applies to this transaction now")
}

func TestControlPlane_DeliveriesPagedWithTheirNextAttempt(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, 100)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL))
	u := s.user("buyer")
	for range 3 {
		s.charge(u, paygatetest.CardApproved, nil)
	}
	// Deliveries run concurrently: the third failing says nothing of the first.
	for seq := 1; seq <= 3; seq++ {
		waitFor(t, s, func(d paygatetest.Delivery) bool { return d.Seq == seq && len(d.History) == 1 })
	}

	page := func(q string) []map[string]any {
		status, raw := s.controlRaw(http.MethodGet, "/sandbox/deliveries?"+q, "", "", s.srv.PrivateKey)
		require.Equal(t, http.StatusOK, status, string(raw))
		var out []map[string]any
		require.NoError(t, json.Unmarshal(raw, &out))
		return out
	}
	ids := func(list []map[string]any) (out []any) {
		for _, d := range list {
			out = append(out, d["id"])
		}
		return out
	}
	assert.Equal(t, []any{"1", "2"}, ids(page("per_page=2")))
	assert.Equal(t, []any{"3"}, ids(page("per_page=2&page=2")))
	assert.Equal(t, []any{"3"}, ids(page("per_page=2&cursor=2")), "cursor: after that id")
	first := page("per_page=1")[0]
	d := s.srv.Deliveries()[0]
	requireRetryAfter(t, d, testStart, time.Minute) // the first retry, a minute after the failed attempt
	assert.Equal(t, d.NextAttempt.Format(time.RFC3339Nano), first["next_attempt"])
}

func TestControlPlane_RedeliverAnswersAfterTheAttempt(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, 1)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL), paygatetest.WithCallbackRetry(1, 0))
	s.charge(s.user("buyer"), paygatetest.CardApproved, nil)
	waitFor(t, s, func(d paygatetest.Delivery) bool { return d.Done })
	s.clock.Advance(time.Minute)

	status, out := s.control(http.MethodPost, "/sandbox/deliveries/1/redeliver", nil)
	require.Equal(t, http.StatusOK, status, "%v", out)
	assert.Equal(t, true, out["delivered"], "the answer shows the new attempt")
	attempts := out["attempts"].([]any)
	require.Len(t, attempts, 2)
	assert.Equal(t, map[string]any{"time": "2026-03-01T12:01:00Z", "status": jsonNumber(200), "manual": true}, attempts[1])
}
