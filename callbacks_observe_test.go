package paygate

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/internal/callbackform"
)

// fakeCallbackObserver records the end of every delivery.
type fakeCallbackObserver struct {
	mu      sync.Mutex
	results []CallbackResult
}

func (o *fakeCallbackObserver) StartCallback(ctx context.Context, d CallbackDelivery) (context.Context, CallbackTrace) {
	return context.WithValue(ctx, traceKey{}, "callback "+d.Method), o
}

func (o *fakeCallbackObserver) End(r CallbackResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.results = append(o.results, r)
}

func (o *fakeCallbackObserver) last(t *testing.T) CallbackResult {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	require.NotEmpty(t, o.results)
	return o.results[len(o.results)-1]
}

func TestCallbackObserver_Verdicts(t *testing.T) {
	s := newTestCallbackSigner(testSecret, FormExtended)
	o := &fakeCallbackObserver{}
	var sawTrace any
	fail := false
	h := newTestCallbackHandler(t, func(ctx context.Context, _ *Callback) error {
		sawTrace = ctx.Value(traceKey{})
		if fail {
			return errors.New("database down")
		}
		return nil
	}, WithCallbackObserver(o))
	deliver := func(r *http.Request) CallbackResult {
		t.Helper()
		h.ServeHTTP(httptest.NewRecorder(), r)
		return o.last(t)
	}
	completed := callbackform.Encode(s.Values(CallbackCompleted, url.Values{"order_id": {"ord-1"}}))

	r := deliver(callbackRequest(completed))
	assert.Equal(t, VerdictProcessed, r.Verdict)
	assert.Equal(t, CallbackCompleted, r.Status)
	assert.Equal(t, http.StatusOK, r.HTTPStatus)
	assert.Equal(t, testCallbackID, r.TransactionID)
	assert.Equal(t, "ord-1", r.OrderID)
	assert.Empty(t, r.Refusal)
	assert.Equal(t, "callback POST", sawTrace, "the CallbackFunc runs with the context StartCallback returned")

	r = deliver(callbackRequest(completed))
	assert.Equal(t, VerdictDuplicate, r.Verdict)
	assert.Equal(t, http.StatusOK, r.HTTPStatus)

	r = deliver(callbackRequest(callbackform.Encode(s.Values(CallbackProcessing, nil))))
	assert.Equal(t, VerdictStale, r.Verdict, "processing after completed")

	forged := newTestCallbackSigner("sk_someone_else", FormExtended).Values(CallbackRefundCompleted, nil)
	r = deliver(callbackRequest(callbackform.Encode(forged)))
	assert.Equal(t, CallbackResult{Verdict: VerdictRefused, Refusal: RefusedSignatureInvalid, HTTPStatus: 403, Duration: r.Duration}, r,
		"nothing of a forged callback is given")

	r = deliver(httptest.NewRequest(http.MethodGet, "/cb", nil))
	assert.Equal(t, RefusedMethod, r.Refusal)
	r = deliver(callbackRequest(""))
	assert.Equal(t, RefusedSignatureMissing, r.Refusal)

	fail = true
	r = deliver(callbackRequest(callbackform.Encode(s.Values(CallbackFailed, url.Values{"id": {"77"}}))))
	assert.Equal(t, VerdictFailed, r.Verdict)
	assert.Equal(t, http.StatusInternalServerError, r.HTTPStatus)
}
