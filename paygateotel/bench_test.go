package paygateotel_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygateotel"
	"github.com/paygate/paygate-go/paygatetest"
)

// discardSpans is a span exporter that drops what it is given: the cost of
// exporting is the exporter's, not the observer's.
type discardSpans struct{}

func (discardSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardSpans) Shutdown(context.Context) error                             { return nil }

// chargeRig is a client without an observer and one with paygateotel on
// SDK providers (every span sampled and batched to a discarding exporter,
// metrics aggregated by a reader that is never collected), both talking to
// the same server through the same transport.
type chargeRig struct {
	plain, observed *paygate.Client
	// empty has an observer that does nothing: what the SDK's hooks cost.
	empty  *paygate.Client
	params *paygate.ChargeParams
}

// emptyObserver keeps nothing: StartCall returns a trace whose methods do
// nothing.
type emptyObserver struct{}

func (emptyObserver) StartCall(ctx context.Context, _ paygate.CallInfo) (context.Context, paygate.CallTrace) {
	return ctx, emptyObserver{}
}
func (emptyObserver) Attempt(paygate.AttemptInfo) {}
func (emptyObserver) End(paygate.CallResult)      {}

// newFixtureRig is a chargeRig on a loopback server answering the SDK's
// extended-form charge fixture, as the root package's
// BenchmarkChargeRoundTrip: the SDK's whole cost, and no gateway's.
func newFixtureRig(b *testing.B) *chargeRig {
	answer, err := os.ReadFile(filepath.Join("..", "testdata", "card_process_extended.json"))
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	b.Cleanup(srv.Close)
	rig := newChargeRig(b, func(opts ...paygate.Option) *paygate.Client {
		c, err := paygate.NewClient("pk_bench", "sk_bench",
			append([]paygate.Option{paygate.WithBaseURL(srv.URL), paygate.WithHTTPClient(srv.Client())}, opts...)...)
		if err != nil {
			b.Fatal(err)
		}
		return c
	})
	rig.params = &paygate.ChargeParams{
		User: "1000042", CardToken: paygate.NewCardToken("tok_9f8e7d6c5b4a"), Price: decimal.RequireFromString("149.90"),
		Currency: "USD", OrderID: "ORD-2026-11-0042", Description: "Annual subscription",
	}
	return rig
}

// newSandboxRig is a chargeRig on the sandbox, which really charges: a
// card and a payer in the request, a transaction and a callback record
// made for each.
func newSandboxRig(b *testing.B) *chargeRig {
	srv := newSandbox(b, nil)
	rig := newChargeRig(b, func(opts ...paygate.Option) *paygate.Client { return srv.Client(opts...) })
	rig.params = cardCharge(paygatetest.CardApproved, "ORD-2026-11-0042")
	return rig
}

func newChargeRig(b *testing.B, client func(...paygate.Option) *paygate.Client) *chargeRig {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardSpans{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	obs := paygateotel.New(paygateotel.WithTracerProvider(tp), paygateotel.WithMeterProvider(mp))
	return &chargeRig{plain: client(), observed: client(paygate.WithObserver(obs)), empty: client(paygate.WithObserver(emptyObserver{}))}
}

func (r *chargeRig) charge(b *testing.B, c *paygate.Client) {
	if _, err := c.Cards.Charge(context.Background(), r.params); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkChargeRoundTrip is a full Cards.Charge: "observer=none" is the
// baseline, "observer=empty" the same charge told to an observer that does
// nothing (the SDK's own hooks), "observer=otel" observed by paygateotel.
func BenchmarkChargeRoundTrip(b *testing.B) {
	rig := newFixtureRig(b)
	for _, sub := range []struct {
		name   string
		client *paygate.Client
	}{{"observer=none", rig.plain}, {"observer=empty", rig.empty}, {"observer=otel", rig.observed}} {
		b.Run(sub.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				rig.charge(b, sub.client)
			}
		})
	}
}

// BenchmarkChargeObserverRatio runs the charge without and with the
// observer in alternating blocks of chargeBlock, so that both see the same
// load on a shared machine, and reports the median of the blocks' time
// ratios (otel/none) as "ratio": on the fixture server of
// BenchmarkChargeRoundTrip, and on the sandbox.
func BenchmarkChargeObserverRatio(b *testing.B) {
	for _, server := range []struct {
		name string
		rig  func(*testing.B) *chargeRig
	}{{"server=fixture", newFixtureRig}, {"server=sandbox", newSandboxRig}} {
		b.Run(server.name, func(b *testing.B) {
			b.ReportMetric(alternatingRatio(b, server.rig(b)), "ratio")
		})
	}
}

// chargeBlock is how many charges alternatingRatio times at once.
const chargeBlock = 16

func alternatingRatio(b *testing.B, rig *chargeRig) float64 {
	block := func(c *paygate.Client) time.Duration {
		start := time.Now()
		for range chargeBlock {
			rig.charge(b, c)
		}
		return time.Since(start)
	}
	ratios := make([]float64, 0, b.N)
	for i := range b.N {
		var plain, observed time.Duration
		if i%2 == 0 { // either order, so that neither always runs second
			plain, observed = block(rig.plain), block(rig.observed)
		} else {
			observed, plain = block(rig.observed), block(rig.plain)
		}
		ratios = append(ratios, float64(observed)/float64(plain))
	}
	slices.Sort(ratios)
	return ratios[len(ratios)/2]
}

// BenchmarkObserverCall is what paygateotel adds to one call that is
// answered at its first attempt (StartCall, Attempt, End on the providers
// of BenchmarkChargeRoundTrip), beside its floors: "sdk-floor", the same
// span, attributes and metric points made directly on the SDK with
// everything cached, and "span-only", a bare client span.
func BenchmarkObserverCall(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardSpans{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	ctx := context.Background()
	b.Run("observer=otel", func(b *testing.B) {
		obs := paygateotel.New(paygateotel.WithTracerProvider(tp), paygateotel.WithMeterProvider(mp))
		info := paygate.CallInfo{Operation: "card/process", Method: http.MethodPost, ServerAddress: "127.0.0.1", ServerPort: 8443}
		b.ReportAllocs()
		for range b.N {
			_, call := obs.StartCall(ctx, info)
			call.Attempt(paygate.AttemptInfo{Attempt: 1, HTTPStatus: 200, Duration: time.Millisecond})
			call.End(paygate.CallResult{Outcome: paygate.CallSucceeded, HTTPStatus: 200, Attempts: 1,
				Duration: time.Millisecond, OrderID: "ORD-2026-11-0042"})
		}
	})
	b.Run("sdk-floor", func(b *testing.B) {
		// What the SDK alone costs for the same telemetry: the same span
		// and attributes, the same metric points on cached sets.
		tracer := tp.Tracer(paygateotel.ScopeName)
		meter := mp.Meter(paygateotel.ScopeName)
		duration, _ := meter.Float64Histogram("floor.duration")
		calls, _ := meter.Int64Counter("floor.calls")
		op := paygateotel.OperationKey.String("card/process")
		set := attribute.NewSet(op, paygateotel.OutcomeKey.String("succeeded"))
		record := []metric.RecordOption{metric.WithAttributeSet(set)}
		add := []metric.AddOption{metric.WithAttributeSet(set)}
		start := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(op,
			semconv.HTTPRequestMethodKey.String(http.MethodPost), semconv.ServerAddress("127.0.0.1"),
			semconv.ServerPort(8443), semconv.URLTemplate("/v1/card/process"))}
		end := []attribute.KeyValue{paygateotel.OutcomeKey.String("succeeded"),
			semconv.HTTPResponseStatusCode(200), paygateotel.OrderIDKey.String("ORD-2026-11-0042")}
		b.ReportAllocs()
		for range b.N {
			_, span := tracer.Start(ctx, "card/process", start...)
			duration.Record(ctx, 0.001, record...)
			calls.Add(ctx, 1, add...)
			span.SetAttributes(end...)
			span.End()
		}
	})
	b.Run("span-only", func(b *testing.B) {
		tracer := tp.Tracer(paygateotel.ScopeName)
		b.ReportAllocs()
		for range b.N {
			_, span := tracer.Start(ctx, "card/process", trace.WithSpanKind(trace.SpanKindClient))
			span.End()
		}
	})
}

// BenchmarkCallbackDelivery is one signed callback served by a
// callback.Handler (no de-duplication, a Func that does nothing) on a
// ServeMux, with a traceparent header and TraceContext as the global
// propagator: "observer=none" is the baseline, "observer=otel" the same
// delivery observed by paygateotel on the providers of
// BenchmarkChargeRoundTrip.
func BenchmarkCallbackDelivery(b *testing.B) {
	otel.SetTextMapPropagator(propagation.TraceContext{})
	b.Cleanup(func() { otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator()) })
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardSpans{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	body := paygatetest.NewCallbackSigner(paygatetest.DefaultPrivateKey, paygate.FormExtended).
		Body(callback.Completed, nil)
	for _, sub := range []struct {
		name string
		opts []callback.Option
	}{
		{"observer=none", nil},
		{"observer=otel", []callback.Option{callback.WithObserver(
			paygateotel.New(paygateotel.WithTracerProvider(tp), paygateotel.WithMeterProvider(mp)))}},
	} {
		b.Run(sub.name, func(b *testing.B) {
			h, err := callback.NewHandler([]string{paygatetest.DefaultPrivateKey},
				func(context.Context, *callback.Callback) error { return nil },
				append([]callback.Option{callback.WithoutDedup()}, sub.opts...)...)
			if err != nil {
				b.Fatal(err)
			}
			mux := http.NewServeMux()
			mux.Handle("POST /paygate/callback", h)
			b.ReportAllocs()
			for range b.N {
				r := httptest.NewRequest(http.MethodPost, "http://shop.example/paygate/callback", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				r.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
				w := httptest.NewRecorder()
				mux.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatal(w.Code)
				}
			}
		})
	}
}
