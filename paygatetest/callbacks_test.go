package paygatetest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
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

func TestCallbacks_AreRetriedUntil2xx(t *testing.T) {
	rcv := newReceiver(t, 2)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL), paygatetest.WithCallbackRetry(5, time.Millisecond))
	pay := s.charge(s.user("u"), paygatetest.CardApproved, nil)
	d := waitFor(t, s, delivered(idOf(pay), "completed"))
	assert.Equal(t, 3, d.Attempts)
	assert.Equal(t, http.StatusOK, d.LastStatus)
}

func TestCallbacks_RetriesAreBounded(t *testing.T) {
	rcv := newReceiver(t, 1000)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL), paygatetest.WithCallbackRetry(3, time.Millisecond))
	pay := s.charge(s.user("u"), paygatetest.CardApproved, nil)
	d := waitFor(t, s, func(d paygatetest.Delivery) bool { return d.Done && d.Values.Get("id") == idOf(pay) })
	assert.False(t, d.Delivered)
	assert.Equal(t, 3, d.Attempts)
	assert.Equal(t, http.StatusInternalServerError, d.LastStatus)
}

func TestCallbacks_UnreachableReceiverIsRecordedWithTheError(t *testing.T) {
	rcv := newReceiver(t, 0)
	rcv.Close()
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL), paygatetest.WithCallbackRetry(2, time.Millisecond))
	s.charge(s.user("u"), paygatetest.CardApproved, nil)
	d := waitFor(t, s, func(d paygatetest.Delivery) bool { return d.Done })
	assert.Equal(t, 2, d.Attempts)
	assert.Zero(t, d.LastStatus)
	assert.NotEmpty(t, d.LastError)
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

	payout := idOf(s.ok("payout", url.Values{"type": {"3"}, "account": {"w"}, "amount": {"1"}, "currency": {"EUR"}, "phone": {"4915112345678"}}))
	s.srv.SettlePending()
	assert.Equal(t, []string{"processing", "payout_completed"}, statuses(s, payout))

	failedPayout := idOf(s.ok("payout", url.Values{"type": {"1"}, "account": {paygatetest.CardDeclined}, "amount": {"1"}, "currency": {"EUR"}, "cardHolder": {"X"}}))
	s.srv.SettlePending()
	assert.Equal(t, []string{"processing", "payout_failed"}, statuses(s, failedPayout))

	for _, action := range []string{"approve", "decline"} {
		alt := idOf(s.ok("transaction/create", altPayment()))
		resp, err := s.hc.PostForm(s.srv.URL+"/confirm/"+alt+"/", url.Values{"action": {action}})
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
