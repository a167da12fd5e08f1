package paygatetest_test

import (
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// retained reports which of ids answer transaction/status; the others
// must answer 40403, as an id never made does.
func retained(s *sandbox, ids ...string) []string {
	s.t.Helper()
	var kept []string
	for _, id := range ids {
		status, out := s.call("transaction/status", url.Values{"id": {id}})
		if status == 200 {
			kept = append(kept, id)
			continue
		}
		requireError(s.t, status, out, paygate.CodeTransactionNotFound)
	}
	return kept
}

// callbackIDs are the transaction ids of the callbacks the log keeps.
func callbackIDs(s *sandbox) []string {
	var ids []string
	for _, d := range s.srv.Deliveries() {
		if id := d.Values.Get("id"); !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

func TestRetention_KeepsTheNewestNAndEveryTransactionInFlight(t *testing.T) {
	const n = 5
	s := newSandbox(t, paygatetest.WithRetention(n), paygatetest.WithProcessingDelay(0))
	uid := s.user("u")
	processing := idOf(s.charge(uid, paygatetest.CardProcessing, url.Values{"order_id": {"o-processing"}}))
	authenticating := idOf(s.charge(uid, paygatetest.Card3DSecure, nil))
	var approved []string
	for i := range 2 * n {
		approved = append(approved, idOf(s.charge(uid, paygatetest.CardApproved, url.Values{"order_id": {"o-" + strconv.Itoa(i)}})))
	}

	// The two in flight count towards n: the newest n-2 final ones remain.
	assert.Equal(t, []string{processing, authenticating}, retained(s, processing, authenticating))
	assert.Equal(t, approved[2*n-(n-2):], retained(s, approved...))
	s.fails("transaction/status", url.Values{"order_id": {"o-0"}}, paygate.CodeTransactionNotFound)
	assert.Equal(t, jsonNumber(0), s.ok("transactions", url.Values{"orderId": {"o-0"}})["totalCount"], "the order id index forgets it")
	assert.Equal(t, append([]string{processing}, approved[2*n-(n-2):]...), callbackIDs(s), "the callbacks go with their transactions")
	require.Error(t, s.srv.Redeliver(1), "the callback of a dropped transaction cannot be sent again")
	_, err := s.srv.Trigger(paygate.ID(mustID(t, approved[0])), paygatetest.EventChargeback)
	require.ErrorIs(t, err, paygatetest.ErrTransactionNotFound)

	// Once settled, the processing payment is the oldest final one: the
	// next transaction drops it.
	s.srv.SettlePending()
	next := idOf(s.charge(uid, paygatetest.CardApproved, nil))
	assert.Empty(t, retained(s, processing))
	assert.Equal(t, []string{authenticating, next}, retained(s, authenticating, next))
	assert.Equal(t, "completed", s.ok("transaction/status", url.Values{"order_id": {"o-" + strconv.Itoa(2*n-1)}})["status"])
}

func TestRetention_KeepsATransactionWhoseCallbackIsStillRetried(t *testing.T) {
	rcv := newReceiver(t, 1000)
	s := newSandbox(t, paygatetest.WithRetention(2), paygatetest.WithCallbackURL(rcv.URL),
		paygatetest.WithCallbackRetry(2, time.Minute))
	uid := s.user("u")
	first := idOf(s.charge(uid, paygatetest.CardApproved, nil))
	retry := attempted(t, s, first, 1)
	rcv.mu.Lock()
	rcv.failures = 0 // the others are taken at once
	rcv.mu.Unlock()
	var later []string
	for range 3 {
		id := idOf(s.charge(uid, paygatetest.CardApproved, nil))
		waitFor(t, s, delivered(id, "completed"))
		later = append(later, id)
	}
	assert.Equal(t, []string{first, later[2]}, retained(s, append([]string{first}, later...)...),
		"its callback waits for a retry: the payment stays")

	untilRetry(s, retry)
	waitFor(t, s, delivered(first, "completed"))
	s.charge(uid, paygatetest.CardApproved, nil)
	assert.Empty(t, retained(s, first), "delivered at last, it is dropped like any other")
}

func TestRetention_ARefundOrDisputeNeverDropsTheTransactionItFollows(t *testing.T) {
	s := newSandbox(t, paygatetest.WithRetention(1), paygatetest.WithForm(paygate.FormBasic))
	uid := s.user("u")
	pay := idOf(s.charge(uid, paygatetest.CardApproved, nil))
	s.ok("transaction/reverse", url.Values{"id": {pay}, "amount": {"10"}})
	assert.Equal(t, "reversed", s.ok("transaction/status", url.Values{"id": {pay}})["status"],
		"the refund made no room by dropping its payment")
	assert.Equal(t, []string{"completed", "reversed"}, statuses(s, pay), "the payment's callbacks are kept with it")

	other := idOf(s.charge(uid, paygatetest.CardApproved, nil))
	chargeback, err := s.srv.Chargeback(paygate.ID(mustID(t, other)))
	require.NoError(t, err)
	assert.Equal(t, []string{other}, retained(s, pay, other), "the chargeback kept its payment")
	assert.Equal(t, "charged_back", s.ok("transaction/status", url.Values{"id": {other}})["status"])
	assert.NotZero(t, chargeback)
}

func TestRetention_DefaultsAndBelowOne(t *testing.T) {
	s := newSandbox(t, paygatetest.WithRetention(0))
	uid := s.user("u")
	ids := []string{idOf(s.charge(uid, paygatetest.CardApproved, nil)), idOf(s.charge(uid, paygatetest.CardApproved, nil))}
	assert.Equal(t, ids, retained(s, ids...), "0 leaves the default of 100,000")
	assert.Equal(t, 100000, paygatetest.DefaultRetention)
}

func mustID(t *testing.T, id string) int64 {
	n, err := strconv.ParseInt(id, 10, 64)
	require.NoError(t, err)
	return n
}
