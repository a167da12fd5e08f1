package paygatetest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// keptCount is how many transactions the sandbox keeps for its project.
func keptCount(t *testing.T, s *sandbox) int {
	t.Helper()
	status, out := s.control(http.MethodGet, "/sandbox/transactions", url.Values{"per_page": {"1"}})
	require.Equal(t, http.StatusOK, status, "answer: %v", out)
	n, err := strconv.Atoi(string(out["total"].(json.Number)))
	require.NoError(t, err)
	return n
}

// chargeConcurrently makes n approved charges for uid from callers
// goroutines at once.
func chargeConcurrently(t *testing.T, s *sandbox, uid string, callers, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; i < n; i += callers {
				_, err := s.send(context.Background(), http.DefaultClient, "card/process", s.signed(url.Values{
					"user": {uid}, "card[number]": {paygatetest.CardApproved}, "card[expiration_month]": {"12"},
					"card[expiration_year]": {"2030"}, "card[security_code]": {"123"}, "price": {"10.00"}, "currency": {"EUR"},
					"description": {"d"}, "order_id": {"o-" + strconv.Itoa(i)},
				}))
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// A receiver slower than the charges: every callback finds room in the
// end, none is recorded as a failed attempt for want of it.
func TestCallbacks_AFullQueueIsNoFailedAttemptAndEveryCallbackIsSent(t *testing.T) {
	target, release, _ := blockingReceiver(t)
	s := newSandbox(t, paygatetest.WithCallbackURL(target))
	uid := s.user("u")
	const n = 1100 // more than the 1,000 a destination's queue once held
	chargeConcurrently(t, s, uid, 8, n)
	for _, d := range s.srv.Deliveries() {
		require.False(t, d.Done, "callback %d waits for room", d.Seq)
		// Only the callbacks being sent have an attempt: on a loaded
		// machine, one the receiver held past the attempt timeout.
		for _, a := range d.History {
			require.Contains(t, a.Error, "Client.Timeout", "callback %d", d.Seq)
		}
	}
	release()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var all []paygatetest.Delivery
	for delivered := 0; delivered < n; {
		require.NoError(t, ctx.Err(), "%d of %d delivered", delivered, n)
		time.Sleep(20 * time.Millisecond)
		all, delivered = s.srv.Deliveries(), 0
		for _, d := range all {
			delivered += btoi(d.Delivered)
			if !d.NextAttempt.IsZero() && !d.Delivered {
				untilRetry(s, d) // of an attempt that timed out
			}
		}
	}
	require.Len(t, all, n)
	for _, d := range all {
		assert.Equal(t, 1, d.Attempts-len(timedOut(d)), "callback %d: %+v", d.Seq, d.History)
	}
}

// timedOut are the attempts of d the receiver held past the timeout.
func timedOut(d paygatetest.Delivery) (out []paygatetest.DeliveryAttempt) {
	for _, a := range d.History {
		if strings.Contains(a.Error, "Client.Timeout") {
			out = append(out, a)
		}
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Two callbacks failing at the same instant are not retried at the same
// instant: their retries are spread over a part of the wait.
func TestCallbacks_RetriesCarryJitter(t *testing.T) {
	rcv := newReceiver(t, 1000)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL))
	uid := s.user("u")
	first := idOf(s.charge(uid, paygatetest.CardApproved, nil))
	second := idOf(s.charge(uid, paygatetest.CardApproved, nil))
	a, b := attempted(t, s, first, 1), attempted(t, s, second, 1)
	require.Equal(t, a.History[0].At, b.History[0].At, "the clock stands still: both failed at the same instant")
	assert.NotEqual(t, a.NextAttempt, b.NextAttempt)
	for _, d := range []paygatetest.Delivery{a, b} {
		wait := d.NextAttempt.Sub(d.History[0].At)
		assert.GreaterOrEqual(t, wait, time.Minute)
		assert.Less(t, wait, time.Minute+time.Minute/paygatetest.RetryJitterDivisor)
	}
}

// recurringFixture is a fixture of n users, each subscribed to a payment
// every day.
func recurringFixture(n int) string {
	var users, payments []string
	for i := range n {
		users = append(users, fmt.Sprintf(`{"name": "u%d"}`, i))
		payments = append(payments, fmt.Sprintf(`{"user": "u%d", "price": "1.00", "order_id": "plan-%d", "recurring": {"interval": 1}}`, i, i))
	}
	return `{"users": [` + strings.Join(users, ",") + `], "payments": [` + strings.Join(payments, ",") + `]}`
}

// A clock move of a year over many daily subscriptions, its callbacks
// sent to a receiver slower than the charges: the retention holds,
// within the documented allowance for what is in flight, and no callback
// is given up; once the receiver takes them, later moves make the
// payments still due.
func TestRetention_HoldsWhateverAClockMoveCharges(t *testing.T) {
	const retention = 1000
	bound := retention + paygatetest.InFlightAllowance(retention)
	gate, got, tick := make(chan struct{}), new(atomic.Int64), make(chan struct{}, 1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		got.Add(1)
		select {
		case tick <- struct{}{}: // else one waits already, and reads got after this
		default:
		}
	}))
	t.Cleanup(hs.Close)
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release) // before hs.Close, which waits for the handlers
	s := newSandbox(t, paygatetest.WithRetention(retention), paygatetest.WithCallbackURL(hs.URL))
	_, err := s.srv.LoadFixtures(strings.NewReader(recurringFixture(50)))
	require.NoError(t, err)
	s.clock.Advance(365 * day)
	assert.LessOrEqual(t, keptCount(t, s), bound, "after a year's move")
	for range 20 {
		s.clock.Advance(0)
		require.LessOrEqual(t, keptCount(t, s), bound)
	}
	assert.Zero(t, s.srv.CallbacksGivenUp(), "a move makes only what its callbacks have room for")

	release()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	last := func() int { all := s.srv.Deliveries(); return all[len(all)-1].Seq }
	for made := last(); made < 2*retention; made = last() {
		for int(got.Load()) < made {
			select {
			case <-tick:
			case <-ctx.Done():
				require.FailNow(t, "not every callback made so far was received", "%d of %d", got.Load(), made)
			}
		}
		s.clock.Advance(0) // the next of the payments due
		require.Greater(t, last(), made, "the move makes more payments")
		require.LessOrEqual(t, keptCount(t, s), bound)
	}
	assert.Zero(t, s.srv.CallbacksGivenUp())
}

// Past the bound of callbacks waiting, the oldest are given up, counted,
// and their transactions may be dropped; the rest are sent.
func TestCallbacks_PastTheBoundTheOldestWaitingAreGivenUp(t *testing.T) {
	const retention = 1000
	allowance := paygatetest.InFlightAllowance(retention)
	target, release, got := blockingReceiver(t)
	s := newSandbox(t, paygatetest.WithRetention(retention), paygatetest.WithCallbackURL(target))
	uid := s.user("u")
	n := 3 * allowance
	chargeConcurrently(t, s, uid, 4, n)
	waiting, givenUp, unsent := 0, 0, 0
	for _, d := range s.srv.Deliveries() {
		switch {
		case d.GivenUp:
			givenUp++
			if d.Attempts == 0 {
				unsent = d.Seq
			}
			assert.True(t, d.Done)
			assert.False(t, d.Delivered)
			assert.True(t, d.NextAttempt.IsZero())
		case !d.Done:
			waiting++
		}
	}
	assert.LessOrEqual(t, waiting, allowance)
	assert.GreaterOrEqual(t, givenUp, n-allowance)
	assert.Equal(t, givenUp, s.srv.CallbacksGivenUp())
	status, out := s.controlRaw(http.MethodGet, "/sandbox/deliveries?per_page=1", "", "", s.srv.PrivateKey)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, string(out), `"given_up":true`, "the oldest, given up, as the control plane shows it")
	release()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := s.srv.WaitForDelivery(ctx, func(d paygatetest.Delivery) bool { return d.Seq == n && d.Delivered })
	require.NoError(t, err, "the newest callback is sent")
	assert.Less(t, int(got.Load()), n, "the given up ones are not")

	require.NotZero(t, unsent)
	require.NoError(t, s.srv.Redeliver(unsent), "one given up is still sent on demand")
	d := waitFor(t, s, func(d paygatetest.Delivery) bool { return d.Seq == unsent && d.Delivered })
	assert.False(t, d.GivenUp, "taken back by the redelivery")
	assert.Equal(t, 1, d.Attempts)
}

// A clock move that makes many automatic payments lets other clients in
// between them: a charge made while it runs comes before its last payment.
func TestRecurring_AClockMoveLetsOtherClientsInBetweenItsPayments(t *testing.T) {
	s := newSandbox(t)
	_, err := s.srv.LoadFixtures(strings.NewReader(recurringFixture(40)))
	require.NoError(t, err)
	before := len(s.srv.Deliveries())
	uid := s.user("other")
	moved := make(chan struct{})
	go func() {
		defer close(moved)
		s.clock.Advance(365 * day)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = s.srv.WaitForDelivery(ctx, func(d paygatetest.Delivery) bool { return d.Seq > before })
	require.NoError(t, err, "the move makes its first payment")
	probe := s.ok("card/process", url.Values{"user": {uid}, "card[number]": {paygatetest.CardApproved},
		"card[expiration_month]": {"12"}, "card[expiration_year]": {"2030"}, "card[security_code]": {"123"},
		"price": {"1.00"}, "currency": {"EUR"}, "description": {"d"}})
	<-moved
	after := s.charge(uid, paygatetest.CardApproved, nil)
	probeID, afterID := mustID(t, idOf(probe)), mustID(t, idOf(after))
	assert.Less(t, probeID, afterID-1, "automatic payments were made after the other client's charge")
}

// A fixture file's clock moves make a bounded number of automatic
// payments, however many advance steps it has: the step past the bound is
// refused, naming it.
func TestFixtures_TheirClockMovesMakeABoundedNumberOfPayments(t *testing.T) {
	const retention = 1000
	allowance := paygatetest.InFlightAllowance(retention)
	s := newSandbox(t, paygatetest.WithRetention(retention))
	fixture := strings.TrimSuffix(recurringFixture(10), "}") +
		`, "steps": [{"advance": "720h"}, {"advance": "720h"}, {"advance": "720h"}, {"advance": "720h"}]}`
	_, err := s.srv.LoadFixtures(strings.NewReader(fixture))
	require.ErrorIs(t, err, paygatetest.ErrFixtures)
	assert.ErrorContains(t, err, "steps[1]")
	assert.ErrorContains(t, err, "automatic payments")
	automatic := len(s.srv.Deliveries()) - 10
	assert.Positive(t, automatic)
	assert.LessOrEqual(t, automatic, allowance, "one move made them all")
}
