package callback

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
