package paygateotel_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygateotel"
	"github.com/paygate/paygate-go/paygatetest"
)

// recorded is an observer on SDK providers whose spans and metrics the
// test reads back from memory.
type recorded struct {
	obs    *paygateotel.Observer
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
}

// newRecorded is an observer on fresh SDK providers, made with opts after
// them, shut down when the test ends.
func newRecorded(t testing.TB, opts ...paygateotel.Option) *recorded {
	t.Helper()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	opts = append([]paygateotel.Option{paygateotel.WithTracerProvider(tp), paygateotel.WithMeterProvider(mp)}, opts...)
	return &recorded{obs: paygateotel.New(opts...), spans: spans, reader: reader}
}

// ended returns the ended spans named name.
func (r *recorded) ended(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range r.spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// onlySpan returns the one ended span named name.
func (r *recorded) onlySpan(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	spans := r.ended(name)
	require.Len(t, spans, 1, "spans named %s", name)
	return spans[0]
}

// metrics collects every metric recorded so far, by name.
func (r *recorded) metrics(t testing.TB) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(context.Background(), &rm))
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		require.Equal(t, paygateotel.ScopeName, sm.Scope.Name)
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}

// sum returns the counter name's value at exactly the attributes kvs.
func (r *recorded) sum(t testing.TB, name string, kvs ...attribute.KeyValue) int64 {
	t.Helper()
	data, ok := r.metrics(t)[name].(metricdata.Sum[int64])
	if !ok {
		return 0
	}
	p, _ := pointAt(data.DataPoints, func(p metricdata.DataPoint[int64]) attribute.Set { return p.Attributes }, kvs)
	return p.Value
}

// histogramCount returns how many values the histogram name holds at
// exactly the attributes kvs.
func (r *recorded) histogramCount(t testing.TB, name string, kvs ...attribute.KeyValue) uint64 {
	t.Helper()
	data, ok := r.metrics(t)[name].(metricdata.Histogram[float64])
	if !ok {
		return 0
	}
	p, _ := pointAt(data.DataPoints, func(p metricdata.HistogramDataPoint[float64]) attribute.Set { return p.Attributes }, kvs)
	return p.Count
}

// pointAt returns the point whose attributes are exactly kvs.
func pointAt[P any](points []P, attrsOf func(P) attribute.Set, kvs []attribute.KeyValue) (P, bool) {
	want := attribute.NewSet(kvs...)
	for _, p := range points {
		if got := attrsOf(p); got.Equals(&want) {
			return p, true
		}
	}
	var zero P
	return zero, false
}

// attrs returns a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		out[kv.Key] = kv.Value
	}
	return out
}

// cardCharge is a charge of price EUR with the card itself and a payer
// described in place, so that one call is one span.
func cardCharge(number, orderID string) *paygate.ChargeParams {
	return &paygate.ChargeParams{
		UserDetails: &paygate.UserDetails{Identifier: "cust-" + orderID, Email: "jane@example.com", IP: "203.0.113.7"},
		Card: &paygate.CardDetails{
			Number: paygate.NewCardNumber(number), Expiry: paygate.NewExpiry(12, 2030),
			SecurityCode: paygate.NewSecurityCode("737"), Holder: "JANE DOE",
		},
		Price:        decimal.RequireFromString("24.90"),
		Currency:     "EUR",
		Description:  "Order " + orderID,
		OrderID:      orderID,
		ACSReturnURL: "https://shop.example/orders/" + orderID + "/3ds",
	}
}

// newSandbox starts a sandbox whose callbacks go to handler, when not nil.
func newSandbox(t testing.TB, handler *callback.Handler, opts ...paygatetest.Option) *paygatetest.Server {
	t.Helper()
	if handler != nil {
		hs := httptest.NewServer(handler)
		t.Cleanup(hs.Close)
		opts = append(opts, paygatetest.WithCallbackURL(hs.URL))
	}
	srv := paygatetest.NewServer(opts...)
	t.Cleanup(srv.Close)
	return srv
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
