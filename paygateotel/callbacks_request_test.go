package paygateotel_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygateotel"
	"github.com/paygate/paygate-go/paygatetest"
)

// senderTrace is the trace a gateway or a proxy in front of the handler
// started, as its traceparent header tells it.
const (
	senderTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	senderSpanID  = "00f067aa0ba902b7"
	traceparent   = "00-" + senderTraceID + "-" + senderSpanID + "-01"
)

// funcSpan holds the span context the callback.Func last ran in; the
// handler's goroutine writes it, the test's reads it.
type funcSpan struct {
	mu  sync.Mutex
	ctx trace.SpanContext
}

func (f *funcSpan) set(sc trace.SpanContext) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ctx = sc
}

func (f *funcSpan) get() trace.SpanContext {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ctx
}

// routedHandler serves an observed handler on "POST /paygate/callback" of
// a ServeMux, as the callback package's doc mounts it, and returns the
// server's URL; the span context the Func last ran in goes to inFunc.
func routedHandler(t *testing.T, obs *paygateotel.Observer, inFunc *funcSpan) string {
	t.Helper()
	h, err := callback.NewHandler([]string{paygatetest.DefaultPrivateKey}, func(ctx context.Context, _ *callback.Callback) error {
		inFunc.set(trace.SpanContextFromContext(ctx))
		return nil
	}, callback.WithObserver(obs))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("POST /paygate/callback", h)
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs.URL
}

// deliver POSTs a callback of status, signed with the sandbox's default
// key, to target with the headers given, and returns the status answered.
func deliver(t *testing.T, target string, status callback.Status, fields url.Values, header http.Header) int {
	t.Helper()
	req := paygatetest.NewCallbackSigner(paygatetest.DefaultPrivateKey, paygate.FormExtended).Request(target, status, fields)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// withGlobalPropagator sets otel's global propagator for the test.
func withGlobalPropagator(t *testing.T, p propagation.TextMapPropagator) {
	otel.SetTextMapPropagator(p)
	t.Cleanup(func() { otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator()) })
}

// TestCallbackSpanContinuesTheSendersTrace: a gateway or a proxy that
// sends traceparent makes the callback's span its child, as otelhttp's
// server spans are, with the global propagator by default; and the span
// has the request's attributes otelhttp's have, the path without its
// query.
func TestCallbackSpanContinuesTheSendersTrace(t *testing.T) {
	withGlobalPropagator(t, propagation.TraceContext{})
	rec := newRecorded(t)
	var inFunc funcSpan
	base := routedHandler(t, rec.obs, &inFunc)
	status := deliver(t, base+"/paygate/callback?source=gw", callback.Completed, url.Values{"order_id": {"ord-tp"}},
		http.Header{"Traceparent": {traceparent}})
	require.Equal(t, http.StatusOK, status)

	span := rec.onlySpan(t, paygateotel.CallbackSpanName)
	assert.Equal(t, senderTraceID, span.SpanContext().TraceID().String(), "the sender's trace goes on")
	assert.Equal(t, senderSpanID, span.Parent().SpanID().String(), "the sender's span is the parent")
	assert.True(t, span.Parent().IsRemote())
	assert.Equal(t, span.SpanContext().SpanID(), inFunc.get().SpanID(), "the Func runs in the callback's span")

	u, err := url.Parse(base)
	require.NoError(t, err)
	host, port, err := net.SplitHostPort(u.Host)
	require.NoError(t, err)
	wantPort, err := strconv.Atoi(port)
	require.NoError(t, err)
	a := attrs(span)
	assert.Equal(t, "POST", a["http.request.method"].AsString())
	assert.Equal(t, int64(200), a["http.response.status_code"].AsInt64())
	assert.Equal(t, "/paygate/callback", a["url.path"].AsString(), "the path, never its query")
	assert.Equal(t, "/paygate/callback", a["http.route"].AsString(), "the ServeMux pattern's path")
	assert.Equal(t, "http", a["url.scheme"].AsString())
	assert.Equal(t, host, a["server.address"].AsString())
	assert.Equal(t, int64(wantPort), a["server.port"].AsInt64())
	for _, s := range rec.exported(t) {
		assert.NotContains(t, s, "source=gw", "no query string is recorded")
	}
}

// TestCallbackSpanWithoutARouteOrATraceparent: a handler served without a
// ServeMux has no route to tell, and a delivery without traceparent starts
// a trace of its own.
func TestCallbackSpanWithoutARouteOrATraceparent(t *testing.T) {
	withGlobalPropagator(t, propagation.TraceContext{})
	rig := newCallbackRig(t)
	require.Equal(t, http.StatusOK, deliver(t, rig.target+"/hook", callback.Completed, nil, nil))

	span := rig.rec.onlySpan(t, paygateotel.CallbackSpanName)
	assert.False(t, span.Parent().IsValid(), "a root span")
	a := attrs(span)
	assert.Equal(t, "/hook", a["url.path"].AsString())
	_, hasRoute := a["http.route"]
	assert.False(t, hasRoute, "no pattern routed the request")
}

// TestCallbackSpanOfAnUnknownMethod: the callback URL is public, and a
// method the HTTP specifications do not define is recorded as the
// semantic conventions (and otelhttp) do: "_OTHER", the method as sent in
// http.request.method_original.
func TestCallbackSpanOfAnUnknownMethod(t *testing.T) {
	rig := newCallbackRig(t)
	req, err := http.NewRequest("PROPFIND", rig.target+"/hook", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	a := attrs(rig.rec.onlySpan(t, paygateotel.CallbackSpanName))
	assert.Equal(t, "_OTHER", a["http.request.method"].AsString())
	assert.Equal(t, "PROPFIND", a["http.request.method_original"].AsString())
	assert.Equal(t, "method", a[paygateotel.RefusalKey].AsString())
}
