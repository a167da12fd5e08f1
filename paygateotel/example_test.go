package paygateotel_test

import (
	"context"
	"log"
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygateotel"
)

// Print every call's span to the console, and observe the callback
// handler with the same observer.
func Example() {
	exporter, err := stdouttrace.New(stdouttrace.WithPrettyPrint())
	if err != nil {
		log.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter))
	defer tp.Shutdown(context.Background())
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(sdkmetric.NewMeterProvider()) // add a reader that exports

	obs := paygateotel.New() // the global providers set above
	client, err := paygate.NewClient("pk_live_...", "sk_live_...",
		paygate.WithBaseURL("https://gateway.example.com"), paygate.WithObserver(obs))
	if err != nil {
		log.Fatal(err)
	}
	_ = client // every call it makes is now a span and a point on the metrics
	handler, err := callback.NewHandler([]string{"sk_live_..."},
		func(ctx context.Context, cb *callback.Callback) error { return nil },
		callback.WithObserver(obs))
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("/paygate/callback", handler)
}

// Leave out the spans of the balance look-ups a dashboard polls and of the
// "processing" callbacks, and keep order ids (personal data in some shops)
// off every span. The metrics still count every call and callback.
func ExampleWithSpanFilter() {
	obs := paygateotel.New(
		paygateotel.WithSpanFilter(func(s paygateotel.SpanInfo) bool {
			return s.Operation != "balance" && s.CallbackStatus != callback.Processing
		}),
		paygateotel.WithoutIDs(),
	)
	_ = obs // give it to paygate.WithObserver and callback.WithObserver
}

// A callback's span continues the trace of a proxy in front of the handler
// that sends W3C trace context, whatever the global propagator is. On an
// endpoint where no proxy of yours sends any, an empty composite
// (propagation.NewCompositeTextMapPropagator()) keeps whoever POSTs to it
// from choosing the trace its spans join.
func ExampleWithPropagators() {
	obs := paygateotel.New(paygateotel.WithPropagators(
		propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})))
	handler, err := callback.NewHandler([]string{"sk_live_..."},
		func(ctx context.Context, cb *callback.Callback) error { return nil },
		callback.WithObserver(obs))
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("POST /paygate/callback", handler) // the span's http.route
}
