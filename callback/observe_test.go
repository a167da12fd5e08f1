package callback

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/internal/callbackform"
)

// traceKey marks the context a fakeObserver returns.
type traceKey struct{}

// fakeObserver records the end of every delivery.
type fakeObserver struct {
	mu      sync.Mutex
	results []Result
}

func (o *fakeObserver) StartCallback(ctx context.Context, d Delivery) (context.Context, Trace) {
	return context.WithValue(ctx, traceKey{}, "callback "+d.Method), o
}

func (o *fakeObserver) End(r Result) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.results = append(o.results, r)
}

func (o *fakeObserver) last(t *testing.T) Result {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	require.NotEmpty(t, o.results)
	return o.results[len(o.results)-1]
}

func TestObserver_Verdicts(t *testing.T) {
	s := newTestCallbackSigner(testSecret, FormExtended)
	o := &fakeObserver{}
	var sawTrace any
	fail := false
	h := newTestCallbackHandler(t, func(ctx context.Context, _ *Callback) error {
		sawTrace = ctx.Value(traceKey{})
		if fail {
			return errors.New("database down")
		}
		return nil
	}, WithObserver(o))
	deliver := func(r *http.Request) Result {
		t.Helper()
		h.ServeHTTP(httptest.NewRecorder(), r)
		return o.last(t)
	}
	completed := callbackform.Encode(s.Values(Completed, url.Values{"order_id": {"ord-1"}}))

	r := deliver(callbackRequest(completed))
	assert.Equal(t, VerdictProcessed, r.Verdict)
	assert.Equal(t, Completed, r.Status)
	assert.Equal(t, http.StatusOK, r.HTTPStatus)
	assert.Equal(t, testCallbackID, r.TransactionID)
	assert.Equal(t, "ord-1", r.OrderID)
	assert.Empty(t, r.Refusal)
	assert.Equal(t, "callback POST", sawTrace, "the CallbackFunc runs with the context StartCallback returned")

	r = deliver(callbackRequest(completed))
	assert.Equal(t, VerdictDuplicate, r.Verdict)
	assert.Equal(t, http.StatusOK, r.HTTPStatus)

	r = deliver(callbackRequest(callbackform.Encode(s.Values(Processing, nil))))
	assert.Equal(t, VerdictStale, r.Verdict, "processing after completed")

	forged := newTestCallbackSigner("sk_someone_else", FormExtended).Values(RefundCompleted, nil)
	r = deliver(callbackRequest(callbackform.Encode(forged)))
	assert.Equal(t, Result{Verdict: VerdictRefused, Refusal: RefusedSignatureInvalid, HTTPStatus: 403, Duration: r.Duration}, r,
		"nothing of a forged callback is given")

	r = deliver(httptest.NewRequest(http.MethodGet, "/cb", nil))
	assert.Equal(t, RefusedMethod, r.Refusal)
	r = deliver(callbackRequest(""))
	assert.Equal(t, RefusedSignatureMissing, r.Refusal)
	r = deliver(callbackRequest("id=%zz&signature=abc"))
	assert.Equal(t, RefusedMalformed, r.Refusal)
	r = deliver(callbackRequest(bodyOfSize(t, s, MaxBytes+1)))
	assert.Equal(t, RefusedTooLarge, r.Refusal)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.HTTPStatus)

	fail = true
	r = deliver(callbackRequest(callbackform.Encode(s.Values(Failed, url.Values{"id": {"77"}}))))
	assert.Equal(t, VerdictFailed, r.Verdict)
	assert.Equal(t, http.StatusInternalServerError, r.HTTPStatus)
}

// requestObserver asks for some headers and hears of each delivery once
// verified.
type requestObserver struct {
	headers []string

	mu         sync.Mutex
	deliveries []Delivery
	verified   []VerifiedDelivery
	ended      int
}

func (o *requestObserver) StartCallback(ctx context.Context, d Delivery) (context.Context, Trace) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.deliveries = append(o.deliveries, d)
	return ctx, requestTrace{o}
}

func (o *requestObserver) DeliveryHeaders() []string { return o.headers }

type requestTrace struct{ o *requestObserver }

func (t requestTrace) Verified(ctx context.Context, v VerifiedDelivery) context.Context {
	t.o.mu.Lock()
	defer t.o.mu.Unlock()
	t.o.verified = append(t.o.verified, v)
	return context.WithValue(ctx, traceKey{}, "verified "+string(v.Status))
}

func (t requestTrace) End(Result) {
	t.o.mu.Lock()
	defer t.o.mu.Unlock()
	t.o.ended++
}

// TestObserver_DeliveryDescribesTheRequest: an observer learns the
// request's path (never its query), the ServeMux route, the host and the
// headers it names (never a credential), and, with a VerifiedTrace, the
// verified callback before the store and the Func, which run in the
// context it returns.
func TestObserver_DeliveryDescribesTheRequest(t *testing.T) {
	s := newTestCallbackSigner(testSecret, FormExtended)
	o := &requestObserver{headers: []string{"traceparent", "Tracestate", "authorization", "Proxy-Authorization", "cookie"}}
	var sawTrace any
	h := newTestCallbackHandler(t, func(ctx context.Context, _ *Callback) error {
		sawTrace = ctx.Value(traceKey{})
		return nil
	}, WithObserver(o))
	mux := http.NewServeMux()
	mux.Handle("POST shop.example/paygate/callback", h)
	deliver := func(body string) {
		t.Helper()
		r := httptest.NewRequest(http.MethodPost, "http://shop.example:8443/paygate/callback?token=abc", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		r.Header.Set("Authorization", "Basic c2hvcDpzZWNyZXQ=")
		r.Header.Set("Proxy-Authorization", "Basic c2hvcDpzZWNyZXQ=")
		r.Header.Set("Cookie", "session=1")
		r.Header.Set("X-Forwarded-For", "203.0.113.7")
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
	}

	deliver(callbackform.Encode(s.Values(Completed, url.Values{"order_id": {"ord-1"}})))
	require.Len(t, o.deliveries, 1)
	assert.Equal(t, Delivery{
		Method: http.MethodPost, Path: "/paygate/callback", Route: "/paygate/callback", Host: "shop.example:8443",
		Header: http.Header{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}},
	}, o.deliveries[0], "the headers named, less the credentials; no query")
	assert.Equal(t, []VerifiedDelivery{{Status: Completed, TransactionID: testCallbackID, OrderID: "ord-1"}}, o.verified)
	assert.Equal(t, "verified completed", sawTrace, "the Func runs with the context Verified returned")

	forged := newTestCallbackSigner("sk_someone_else", FormExtended).Values(Completed, nil)
	deliver(callbackform.Encode(forged))
	assert.Len(t, o.verified, 1, "a forged callback is never Verified")
	assert.Equal(t, 2, o.ended)

	plain := &fakeObserver{}
	r := httptest.NewRequest(http.MethodPost, "https://shop.example/cb", strings.NewReader(""))
	r.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	rec := &deliveryRecorder{Observer: plain}
	newTestCallbackHandler(t, func(context.Context, *Callback) error { return nil }, WithObserver(rec)).ServeHTTP(httptest.NewRecorder(), r)
	assert.Equal(t, Delivery{Method: http.MethodPost, Path: "/cb", Host: "shop.example", TLS: true}, rec.last,
		"no header for an observer that names none; TLS as received")
}

// deliveryRecorder keeps the last Delivery its Observer was given.
type deliveryRecorder struct {
	Observer
	last Delivery
}

func (d *deliveryRecorder) StartCallback(ctx context.Context, delivery Delivery) (context.Context, Trace) {
	d.last = delivery
	return d.Observer.StartCallback(ctx, delivery)
}
