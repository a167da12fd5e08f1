package paygatetest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

// receiver is a callback endpoint that fails the first failures requests
// with 500 and records the forms it accepted.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	failures int
	got      []url.Values
}

func newReceiver(t *testing.T, failures int) *receiver {
	r := &receiver{failures: failures}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		require.NoError(t, req.ParseForm())
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.failures > 0 {
			r.failures--
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		r.got = append(r.got, req.PostForm)
		w.Write([]byte("OK"))
	}))
	t.Cleanup(r.Close)
	return r
}

func waitFor(t *testing.T, s *sandbox, match func(paygatetest.Delivery) bool) paygatetest.Delivery {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d, err := s.srv.WaitForDelivery(ctx, match)
	require.NoError(t, err, "deliveries so far: %+v", s.srv.Deliveries())
	return d
}

func delivered(id, status string) func(paygatetest.Delivery) bool {
	return func(d paygatetest.Delivery) bool {
		return d.Delivered && d.Values.Get("id") == id && d.Values.Get("status") == status
	}
}

func keys(v url.Values) []string {
	out := make([]string, 0, len(v))
	for k := range v {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestCallbacks_CarryEveryEventFieldSigned(t *testing.T) {
	rcv := newReceiver(t, 0)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL))
	uid := s.user("u")
	pay := s.charge(uid, paygatetest.CardApproved, url.Values{"order_id": {"o-1"}, "attr_realm": {"eu"}})
	d := waitFor(t, s, delivered(idOf(pay), "completed"))

	assert.Equal(t, []string{"amount", "attr_realm", "currency", "deposit", "earned", "id", "order_id", "price", "project",
		"reason", "reference_id", "sandbox", "signature", "status", "type", "user", "vat_amount", "vat_rate"}, keys(d.Values))
	want := url.Values{"project": {"1"}, "user": {uid}, "id": {idOf(pay)}, "reference_id": {""},
		"order_id": {"o-1"}, "amount": {"10.00"}, "price": {"10.0000"}, "deposit": {"0.0000"}, "earned": {"9.7100"},
		"vat_rate": {"0.0000"}, "vat_amount": {"0.0000"}, "currency": {"EUR"}, "type": {"transaction"},
		"status": {"completed"}, "reason": {""}, "sandbox": {"1"}, "attr_realm": {"eu"}}
	for k, v := range want {
		assert.Equal(t, v, d.Values[k], k)
	}
	require.NoError(t, paygate.VerifySignature(d.Values, s.srv.PrivateKey))
	assert.Equal(t, 1, d.Attempts)
	assert.Equal(t, http.StatusOK, d.LastStatus)
	assert.True(t, d.Done)
	assert.Equal(t, rcv.URL, d.URL)

	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	require.Len(t, rcv.got, 1)
	assert.Equal(t, d.Values, rcv.got[0], "what was recorded is what was sent")
}

// attempted waits until the callback of transaction id has had n
// attempts.
func attempted(t *testing.T, s *sandbox, id string, n int) paygatetest.Delivery {
	t.Helper()
	return waitFor(t, s, func(d paygatetest.Delivery) bool { return d.Values.Get("id") == id && d.Attempts >= n })
}

// requireRetryAfter requires d's next attempt wait after at, plus its
// jitter: less than a tenth of wait more.
func requireRetryAfter(t *testing.T, d paygatetest.Delivery, at time.Time, wait time.Duration) {
	t.Helper()
	require.False(t, d.NextAttempt.Before(at.Add(wait)), "next attempt %v, not before %v", d.NextAttempt, at.Add(wait))
	require.True(t, d.NextAttempt.Before(at.Add(wait+wait/paygatetest.RetryJitterDivisor)),
		"next attempt %v, with at most a tenth more than %v", d.NextAttempt, wait)
}

// untilRetry moves the clock to d's next attempt, and returns that time.
func untilRetry(s *sandbox, d paygatetest.Delivery) time.Time {
	s.clock.Advance(max(d.NextAttempt.Sub(s.clock.Now()), 0)) // never back
	return d.NextAttempt
}

func historyStatuses(d paygatetest.Delivery) []int {
	var out []int
	for _, a := range d.History {
		out = append(out, a.Status)
	}
	return out
}

func TestCallbacks_AreRetriedOnTheSandboxClockUntil2xx(t *testing.T) {
	rcv := newReceiver(t, 2)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL))
	pay := idOf(s.charge(s.user("u"), paygatetest.CardApproved, nil))
	d := attempted(t, s, pay, 1)
	requireRetryAfter(t, d, testStart, time.Minute) // the first retry comes a minute later
	assert.False(t, d.Done)

	s.clock.Advance(d.NextAttempt.Sub(s.clock.Now()) - time.Nanosecond)
	assert.Equal(t, 1, s.srv.Deliveries()[0].Attempts, "not before its time")
	second := untilRetry(s, d)
	d = attempted(t, s, pay, 2)
	requireRetryAfter(t, d, second, 5*time.Minute)
	third := untilRetry(s, d)
	d = waitFor(t, s, delivered(pay, "completed"))

	assert.Equal(t, 3, d.Attempts)
	assert.Equal(t, http.StatusOK, d.LastStatus)
	assert.True(t, d.Done)
	assert.True(t, d.NextAttempt.IsZero())
	assert.Equal(t, []int{500, 500, 200}, historyStatuses(d))
	assert.Equal(t, []time.Time{testStart, second, third},
		[]time.Time{d.History[0].At, d.History[1].At, d.History[2].At})
}

func TestCallbacks_GiveUpAfterTheScheduleOfSimulatedHours(t *testing.T) {
	rcv := newReceiver(t, 1000)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL))
	pay := idOf(s.charge(s.user("u"), paygatetest.CardApproved, nil))
	waits := []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour}
	at := testStart
	for n, wait := range waits {
		d := attempted(t, s, pay, n+1)
		requireRetryAfter(t, d, at, wait)
		at = untilRetry(s, d)
	}
	d := waitFor(t, s, func(d paygatetest.Delivery) bool { return d.Done })
	assert.False(t, d.Delivered)
	assert.Equal(t, paygatetest.DefaultCallbackAttempts, d.Attempts)
	assert.Len(t, d.History, paygatetest.DefaultCallbackAttempts)
	assert.Equal(t, at, d.History[len(d.History)-1].At, "the last attempt about 45 simulated hours later")
	s.clock.Advance(30 * 24 * time.Hour)
	assert.Equal(t, paygatetest.DefaultCallbackAttempts, s.srv.Deliveries()[0].Attempts, "no attempt after the schedule")
	assert.Equal(t, http.StatusInternalServerError, d.LastStatus)
}

func TestCallbacks_WithCallbackRetrySetsTheScheduleOnTheClock(t *testing.T) {
	rcv := newReceiver(t, 1000)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL), paygatetest.WithCallbackRetry(3, time.Second))
	pay := idOf(s.charge(s.user("u"), paygatetest.CardApproved, nil))
	d := attempted(t, s, pay, 1)
	requireRetryAfter(t, d, testStart, time.Second)
	second := untilRetry(s, d)
	d = attempted(t, s, pay, 2)
	requireRetryAfter(t, d, second, 2*time.Second)
	untilRetry(s, d)
	d = waitFor(t, s, func(d paygatetest.Delivery) bool { return d.Done && d.Values.Get("id") == pay })
	assert.False(t, d.Delivered)
	assert.Equal(t, 3, d.Attempts)
	assert.Equal(t, http.StatusInternalServerError, d.LastStatus)
}

func TestCallbacks_UnreachableReceiverIsRecordedWithTheError(t *testing.T) {
	rcv := newReceiver(t, 0)
	rcv.Close()
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL), paygatetest.WithCallbackRetry(2, time.Millisecond))
	pay := idOf(s.charge(s.user("u"), paygatetest.CardApproved, nil))
	untilRetry(s, attempted(t, s, pay, 1))
	d := waitFor(t, s, func(d paygatetest.Delivery) bool { return d.Done })
	assert.Equal(t, 2, d.Attempts)
	assert.Zero(t, d.LastStatus)
	assert.NotEmpty(t, d.LastError)
	require.Len(t, d.History, 2)
	assert.NotEmpty(t, d.History[1].Error)
}

func TestCallbacks_AreNeverRedirected(t *testing.T) {
	var followed atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { followed.Add(1) }))
	t.Cleanup(elsewhere.Close)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirecting.Close)
	s := newSandbox(t, paygatetest.WithCallbackURL(redirecting.URL), paygatetest.WithCallbackRetry(1, 0))
	pay := idOf(s.charge(s.user("u"), paygatetest.CardApproved, nil))
	d := waitFor(t, s, func(d paygatetest.Delivery) bool { return d.Done && d.Values.Get("id") == pay })
	assert.Equal(t, http.StatusTemporaryRedirect, d.LastStatus, "the redirect is the receiver's answer")
	assert.False(t, d.Delivered)
	assert.Zero(t, followed.Load(), "the signed callback went nowhere else")
}

func TestRedeliver_SendsOnceMoreAndRecordsTheAttempt(t *testing.T) {
	rcv := newReceiver(t, 1)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL), paygatetest.WithCallbackRetry(1, 0))
	pay := idOf(s.charge(s.user("u"), paygatetest.CardApproved, nil))
	d := waitFor(t, s, func(d paygatetest.Delivery) bool { return d.Done })
	require.False(t, d.Delivered)

	s.clock.Advance(time.Hour)
	require.NoError(t, s.srv.Redeliver(d.Seq))
	d = waitFor(t, s, delivered(pay, "completed"))
	assert.Equal(t, 2, d.Attempts)
	assert.Equal(t, []int{500, 200}, historyStatuses(d))
	assert.False(t, d.History[0].Manual)
	assert.True(t, d.History[1].Manual)
	assert.Equal(t, testStart.Add(time.Hour), d.History[1].At)

	require.NoError(t, s.srv.Redeliver(d.Seq), "a delivered callback can be sent again")
	d = attempted(t, s, pay, 3)
	assert.Equal(t, []int{500, 200, 200}, historyStatuses(d))
	rcv.mu.Lock()
	assert.Len(t, rcv.got, 2)
	rcv.mu.Unlock()

	require.Error(t, s.srv.Redeliver(99), "unknown seq")
	require.Error(t, s.srv.Redeliver(0))
	quiet := newSandbox(t)
	quiet.charge(quiet.user("u"), paygatetest.CardApproved, nil)
	require.Error(t, quiet.srv.Redeliver(1), "a callback without URL cannot be sent")
}

// TestCallbacks_ABlockedReceiverGetsABoundedNumberOfConnections: callbacks
// to a receiver that does not answer wait in a queue; only a few
// connections are open to it at any time.
func TestCallbacks_ABlockedReceiverGetsABoundedNumberOfConnections(t *testing.T) {
	release := make(chan struct{})
	var open, most atomic.Int32
	blocked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := open.Add(1)
		defer open.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(blocked.Close)
	s := newSandbox(t, paygatetest.WithCallbackURL(blocked.URL))
	uid := s.user("u")
	const charges = 40
	for range charges {
		s.charge(uid, paygatetest.CardApproved, nil)
	}
	require.Eventually(t, func() bool { return open.Load() > 0 }, 5*time.Second, time.Millisecond)
	close(release)
	waitFor(t, s, func(paygatetest.Delivery) bool {
		for _, d := range s.srv.Deliveries() {
			if !d.Delivered {
				return false
			}
		}
		return true
	})
	assert.LessOrEqual(t, most.Load(), int32(4), "at most 4 connections to one receiver")
	assert.Len(t, s.srv.Deliveries(), charges)
}

func TestCallbacks_WithoutCallbackURLAreRecordedOnly(t *testing.T) {
	s := newSandbox(t, paygatetest.WithSandboxFlag(false))
	pay := s.charge(s.user("u"), paygatetest.CardApproved, nil)
	ds := s.srv.Deliveries()
	require.Len(t, ds, 1)
	assert.Equal(t, 1, ds[0].Seq)
	assert.Equal(t, idOf(pay), ds[0].Values.Get("id"))
	assert.Equal(t, "0", ds[0].Values.Get("sandbox"))
	assert.True(t, ds[0].Done)
	assert.False(t, ds[0].Delivered)
	assert.Zero(t, ds[0].Attempts)
	require.NoError(t, paygate.VerifySignature(ds[0].Values, s.srv.PrivateKey))
}

// statuses returns the callback statuses recorded for transaction id, in
// order.
func statuses(s *sandbox, id string) []string {
	var out []string
	for _, d := range s.srv.Deliveries() {
		if d.Values.Get("id") == id {
			out = append(out, d.Values.Get("status"))
		}
	}
	return out
}

func TestCallbacks_FireOnEveryStatusChange(t *testing.T) {
	s := newSandbox(t, paygatetest.WithProcessingDelay(time.Hour))
	uid := s.user("u")

	processing := idOf(s.charge(uid, paygatetest.CardProcessing, nil))
	s.srv.SettlePending()
	assert.Equal(t, []string{"processing", "completed"}, statuses(s, processing))

	threeDS := s.charge(uid, paygatetest.Card3DSecure, nil)
	assert.Empty(t, statuses(s, idOf(threeDS)), "authenticating has no callback status")
	md := threeDS["acs"].(map[string]any)["parameters"].(map[string]any)["MD"].(string)
	s.ok("card/authenticate", url.Values{"PaRes": {s.srv.PaRes(md, paygatetest.ACSPassword)}, "MD": {md}})
	assert.Equal(t, []string{"completed"}, statuses(s, idOf(threeDS)))

	declined := idOf(s.charge(uid, paygatetest.CardDeclined, nil))
	assert.Equal(t, []string{"failed"}, statuses(s, declined))

	verified := idOf(s.charge(uid, paygatetest.CardApproved, url.Values{"verify_card": {"1"}}))
	assert.Equal(t, []string{"verified"}, statuses(s, verified))

	refund := s.ok("transaction/reverse", url.Values{"id": {processing}, "amount": {"2"}})
	assert.Equal(t, []string{"refund_completed"}, statuses(s, idOf(refund)))
	for _, d := range s.srv.Deliveries() {
		if d.Values.Get("id") == idOf(refund) {
			assert.Equal(t, processing, d.Values.Get("reference_id"))
			assert.Equal(t, "-2.0000", d.Values.Get("earned"))
		}
	}

	payout := idOf(s.ok("payout", url.Values{"type": {walletPayout}, "account": {"w"}, "amount": {"1"}, "currency": {"EUR"}, "phone": {"4915112345678"}}))
	s.srv.SettlePending()
	assert.Equal(t, []string{"processing", "payout_completed"}, statuses(s, payout))

	failedPayout := idOf(s.ok("payout", url.Values{"type": {cardPayout}, "account": {paygatetest.CardDeclined}, "amount": {"1"}, "currency": {"EUR"}, "cardHolder": {"X"}}))
	s.srv.SettlePending()
	assert.Equal(t, []string{"processing", "payout_failed"}, statuses(s, failedPayout))

	for _, action := range []string{"approve", "decline"} {
		alt := idOf(s.ok("transaction/create", altPayment()))
		resp, err := s.hc.PostForm(s.srv.URL+"/confirm/"+alt+"/", url.Values{"action": {action}, "token": {s.confirmToken(alt)}})
		require.NoError(t, err)
		resp.Body.Close()
		want := map[string]string{"approve": "completed", "decline": "failed"}[action]
		assert.Equal(t, []string{want}, statuses(s, alt))
	}

	for i, d := range s.srv.Deliveries() {
		assert.Equal(t, i+1, d.Seq)
		require.NoError(t, paygate.VerifySignature(d.Values, s.srv.PrivateKey))
	}
}

func TestCallbacks_BasicFormHasNoTypeAndReasonAndReportsReversed(t *testing.T) {
	s := newSandbox(t, paygatetest.WithForm(paygate.FormBasic), paygatetest.WithProcessingDelay(time.Hour))
	uid := s.user("u")
	pay := idOf(s.charge(uid, paygatetest.CardApproved, nil))
	proc := idOf(s.charge(uid, paygatetest.CardProcessing, nil))
	assert.Empty(t, statuses(s, proc), "processing is not a basic-form callback status")
	s.ok("transaction/reverse", url.Values{"id": {pay}, "amount": {"10"}})
	assert.Equal(t, []string{"completed", "reversed"}, statuses(s, pay))
	for _, d := range s.srv.Deliveries() {
		assert.NotContains(t, d.Values, "type")
		assert.NotContains(t, d.Values, "reason")
		require.NoError(t, paygate.VerifySignature(d.Values, s.srv.PrivateKey))
	}
}

func TestWaitForDelivery_ReturnsTheContextErrorWhenNothingMatches(t *testing.T) {
	s := newSandbox(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := s.srv.WaitForDelivery(ctx, func(paygatetest.Delivery) bool { return false })
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestDeliveries_TheLogDropsItsOldestTenthWhenFull(t *testing.T) {
	s := newSandbox(t, paygatetest.WithDeliveryLogLimit(10))
	uid := s.user("u")
	for range 10 {
		s.charge(uid, paygatetest.CardApproved, nil)
	}
	require.Len(t, s.srv.Deliveries(), 10)
	s.charge(uid, paygatetest.CardApproved, nil)
	ds := s.srv.Deliveries()
	require.Len(t, ds, 10, "11 is a tenth over the limit: the oldest is dropped")
	assert.Equal(t, 2, ds[0].Seq)
	assert.Equal(t, 11, ds[9].Seq)
	require.Error(t, s.srv.Redeliver(1), "dropped")
}

func TestCallbacks_OnARealClockRetriesComeByThemselves(t *testing.T) {
	rcv := newReceiver(t, 2)
	srv := paygatetest.NewServer(paygatetest.WithCallbackURL(rcv.URL), paygatetest.WithCallbackRetry(3, 10*time.Millisecond))
	t.Cleanup(srv.Close)
	s := &sandbox{t: t, srv: srv, clock: srv.Clock(), hc: http.DefaultClient}
	pay := idOf(s.charge(s.user("u"), paygatetest.CardApproved, nil))
	d := waitFor(t, s, delivered(pay, "completed"))
	assert.Equal(t, []int{500, 500, 200}, historyStatuses(d))
	assert.GreaterOrEqual(t, d.History[2].At.Sub(d.History[0].At), 30*time.Millisecond, "waits of 10ms and 20ms")
}

// blockingReceiver answers 200 once released, and counts the callbacks it
// got.
func blockingReceiver(t *testing.T) (url string, release func(), got *atomic.Int32) {
	gate := make(chan struct{})
	got = new(atomic.Int32)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-gate:
			got.Add(1)
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hs.Close)
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	return hs.URL, release, got
}

func TestCallbackSigner_Forms(t *testing.T) {
	const key = "sk_test_5b1e07d6"
	ext := paygatetest.NewCallbackSigner(key, paygate.FormExtended).Values(callback.PayoutCompleted, nil)
	basic := paygatetest.NewCallbackSigner(key, paygate.FormBasic).Values(callback.Completed, nil)
	for _, k := range []string{"project", "user", "id", "reference_id", "order_id", "amount", "price", "deposit",
		"earned", "vat_rate", "vat_amount", "currency", "type", "status", "reason", "sandbox", "signature"} {
		assert.Contains(t, ext, k, "extended form carries every Events field")
	}
	assert.NotContains(t, basic, "type")
	assert.NotContains(t, basic, "reason")
	for _, v := range []url.Values{ext, basic} {
		assert.NoError(t, paygate.VerifySignature(v, key))
	}
	refund := paygatetest.NewCallbackSigner(key, paygate.FormExtended).Values(callback.RefundCompleted, nil)
	assert.Equal(t, (paygatetest.CallbackID + 1).String(), refund.Get("id"))
	assert.Equal(t, paygatetest.CallbackID.String(), refund.Get("reference_id"))
}

func TestCallbackSigner_MoneyIsTypedByForm(t *testing.T) {
	ext := paygatetest.NewCallbackSigner("k", paygate.FormExtended).Values(callback.Completed, nil)
	basic := paygatetest.NewCallbackSigner("k", paygate.FormBasic).Values(callback.Completed, nil)
	for k, want := range map[string][2]string{
		"amount": {"10.00", "10"}, "price": {"10.0000", "10"}, "deposit": {"0.0000", "0"},
		"earned": {"9.7100", "9.71"}, "vat_rate": {"0.0000", "0"}, "vat_amount": {"0.0000", "0"},
	} {
		assert.Equal(t, want[0], ext.Get(k), "extended %s: decimal as string", k)
		assert.Equal(t, want[1], basic.Get(k), "basic %s: numeric", k)
	}
}

func TestCallbackSigner_NeverPrintsItsKey(t *testing.T) {
	const key = "sk_test_5b1e07d6"
	s := paygatetest.NewCallbackSigner(key, paygate.FormBasic)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(verb, s)
		assert.NotContains(t, out, key, verb)
		assert.Contains(t, out, "CallbackSigner", verb)
	}
}

// TestCallbacks_SandboxAndSignerBuildTheSameCallback pins the one builder
// of callbacks: a 10 EUR payment's callback from the sandbox carries the
// same money, typed the same way, in the same field order, as the one
// CallbackSigner builds, in both forms.
func TestCallbacks_SandboxAndSignerBuildTheSameCallback(t *testing.T) {
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			bodies := make(chan string, 1)
			rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, err := io.ReadAll(r.Body)
				assert.NoError(t, err)
				select {
				case bodies <- string(b):
				default:
				}
				io.WriteString(w, "OK")
			}))
			t.Cleanup(rcv.Close)
			s := newSandbox(t, paygatetest.WithForm(form), paygatetest.WithCallbackURL(rcv.URL))
			pay := idOf(s.charge(s.user("u"), paygatetest.CardApproved, url.Values{"attr_realm": {"eu"}}))
			waitFor(t, s, delivered(pay, "completed"))
			sent := <-bodies

			built := paygatetest.NewCallbackSigner(s.srv.PrivateKey, form).Body(callback.Completed, url.Values{"attr_realm": {"eu"}})
			assert.Equal(t, fieldNames(t, built), fieldNames(t, sent), "field order")
			got, err := url.ParseQuery(sent)
			require.NoError(t, err)
			want, err := url.ParseQuery(built)
			require.NoError(t, err)
			for _, k := range []string{"amount", "price", "deposit", "earned", "vat_rate", "vat_amount", "currency", "status", "type", "reason", "sandbox", "attr_realm"} {
				assert.Equal(t, want[k], got[k], k)
			}
			require.NoError(t, paygate.VerifySignature(got, s.srv.PrivateKey))
		})
	}
}

// fieldNames returns the names of a form-encoded body's fields, in order.
func fieldNames(t *testing.T, body string) []string {
	t.Helper()
	var names []string
	for _, pair := range strings.Split(body, "&") {
		name, _, _ := strings.Cut(pair, "=")
		names = append(names, name)
	}
	return names
}
