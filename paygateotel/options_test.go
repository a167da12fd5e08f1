package paygateotel_test

import (
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/propagation"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygateotel"
	"github.com/paygate/paygate-go/paygatetest"
)

// TestWithPropagators: the callback's sender's trace context is read
// with the propagators given, not the global ones; an empty composite
// makes every callback's trace its own.
func TestWithPropagators(t *testing.T) {
	withGlobalPropagator(t, propagation.NewCompositeTextMapPropagator())
	header := http.Header{"Traceparent": {traceparent}}

	rec := newRecorded(t, paygateotel.WithPropagators(propagation.TraceContext{}))
	var inFunc funcSpan
	require.Equal(t, http.StatusOK, deliver(t, routedHandler(t, rec.obs, &inFunc)+"/paygate/callback", callback.Completed, nil, header))
	span := rec.onlySpan(t, paygateotel.CallbackSpanName)
	assert.Equal(t, senderSpanID, span.Parent().SpanID().String(), "read with the propagator given")

	withGlobalPropagator(t, propagation.TraceContext{})
	rec = newRecorded(t, paygateotel.WithPropagators(propagation.NewCompositeTextMapPropagator()))
	require.Equal(t, http.StatusOK, deliver(t, routedHandler(t, rec.obs, &inFunc)+"/paygate/callback", callback.Completed, nil, header))
	span = rec.onlySpan(t, paygateotel.CallbackSpanName)
	assert.False(t, span.Parent().IsValid(), "no propagator, no parent: the global one is not used")
	assert.NotEqual(t, senderTraceID, span.SpanContext().TraceID().String())
}

// TestWithSpanFilter: a filter leaves out the spans of balance look-ups
// and of "processing" callbacks, and only them; the metrics still count
// every call and delivery, and the Func of a callback left out runs in
// the context it came with.
func TestWithSpanFilter(t *testing.T) {
	var mu sync.Mutex // the filter runs on the handler's goroutines too
	var seen []paygateotel.SpanInfo
	rec := newRecorded(t, paygateotel.WithSpanFilter(func(s paygateotel.SpanInfo) bool {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, s)
		return s.Operation != "balance" && s.CallbackStatus != callback.Processing
	}))
	srv := newSandbox(t, nil)
	client := srv.Client(paygate.WithObserver(rec.obs))
	_, err := client.Balance.Get(testCtx(t), nil)
	require.NoError(t, err)
	_, err = client.Cards.Charge(testCtx(t), cardCharge(paygatetest.CardApproved, "ord-f1"))
	require.NoError(t, err)

	var inFunc funcSpan
	base := routedHandler(t, rec.obs, &inFunc) + "/paygate/callback"
	require.Equal(t, http.StatusOK, deliver(t, base, callback.Processing, url.Values{"id": {"501"}}, nil))
	assert.False(t, inFunc.get().IsValid(), "a callback left out has no span for the Func to run in")
	require.Equal(t, http.StatusOK, deliver(t, base, callback.Completed, url.Values{"id": {"502"}}, nil))
	forged := paygatetest.NewCallbackSigner("sk_forger", paygate.FormExtended).Request(base, callback.Processing, nil)
	resp, err := http.DefaultClient.Do(forged)
	require.NoError(t, err)
	resp.Body.Close()

	assert.Empty(t, rec.ended("balance"))
	rec.onlySpan(t, "card/process")
	callbacks := rec.ended(paygateotel.CallbackSpanName)
	require.Len(t, callbacks, 2, "the completed callback and the refused one")
	assert.Equal(t, "completed", attrs(callbacks[0])[paygateotel.CallbackStatusKey].AsString())
	assert.Equal(t, "signature_invalid", attrs(callbacks[1])[paygateotel.RefusalKey].AsString())
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []paygateotel.SpanInfo{
		{Operation: "balance"}, {Operation: "card/process"},
		{Callback: true, CallbackStatus: callback.Processing}, {Callback: true, CallbackStatus: callback.Completed},
		{Callback: true, Refusal: callback.RefusedSignatureInvalid},
	}, seen)

	assert.Equal(t, int64(1), rec.sum(t, "paygate.client.calls", paygateotel.OperationKey.String("balance"), outcome(paygate.CallSucceeded)),
		"a call left out of the spans is counted")
	assert.Equal(t, int64(1), rec.sum(t, "paygate.callbacks", paygateotel.CallbackStatusKey.String("processing"),
		paygateotel.VerdictKey.String("processed")), "a callback left out of the spans is counted")
}

// TestWithoutIDs: no order or transaction id on the spans of calls and
// callbacks; everything else stays.
func TestWithoutIDs(t *testing.T) {
	rec := newRecorded(t, paygateotel.WithoutIDs())
	srv := newSandbox(t, nil)
	client := srv.Client(paygate.WithObserver(rec.obs))
	pay, err := client.Cards.Charge(testCtx(t), cardCharge(paygatetest.CardApproved, "ord-pii"))
	require.NoError(t, err)
	_, err = client.Transactions.Status(testCtx(t), &paygate.TransactionStatusParams{ID: pay.ID})
	require.NoError(t, err)
	var inFunc funcSpan
	require.Equal(t, http.StatusOK, deliver(t, routedHandler(t, rec.obs, &inFunc)+"/paygate/callback", callback.Completed,
		url.Values{"order_id": {"ord-pii"}}, nil))

	spans := append(rec.ended("card/process"), rec.ended("transaction/status")...)
	spans = append(spans, rec.ended(paygateotel.CallbackSpanName)...)
	require.Len(t, spans, 3)
	for _, s := range spans {
		a := attrs(s)
		assert.NotContains(t, a, paygateotel.OrderIDKey, s.Name())
		assert.NotContains(t, a, paygateotel.TransactionIDKey, s.Name())
	}
	assert.Equal(t, "succeeded", attrs(spans[0])[paygateotel.OutcomeKey].AsString())
	assert.Equal(t, "completed", attrs(spans[2])[paygateotel.CallbackStatusKey].AsString())
	for _, s := range rec.exported(t) {
		assert.NotContains(t, s, "ord-pii")
		assert.NotEqual(t, pay.ID.String(), s)
	}
}
