package paygateotel_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygateotel"
)

// discardSpans is a span exporter that drops what it is given: the cost of
// exporting is the exporter's, not the observer's.
type discardSpans struct{}

func (discardSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardSpans) Shutdown(context.Context) error                             { return nil }

// BenchmarkChargeRoundTrip is a full Cards.Charge against a loopback
// server answering the SDK's extended-form charge fixture, as the root
// package's BenchmarkChargeRoundTrip: "observer=none" without an observer
// (the baseline), "observer=otel" with paygateotel on SDK providers (every
// span sampled and batched to a discarding exporter, metrics aggregated by
// a reader that is never collected). Both run in the same process and the
// same run, against the same server and transport.
func BenchmarkChargeRoundTrip(b *testing.B) {
	answer, err := os.ReadFile(filepath.Join("..", "testdata", "card_process_extended.json"))
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	defer srv.Close()

	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardSpans{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer tp.Shutdown(context.Background())
	defer mp.Shutdown(context.Background())
	observers := []struct {
		name string
		opts []paygate.Option
	}{
		{"observer=none", nil},
		{"observer=otel", []paygate.Option{paygate.WithObserver(paygateotel.New(paygateotel.WithTracerProvider(tp), paygateotel.WithMeterProvider(mp)))}},
	}
	for _, o := range observers {
		b.Run(o.name, func(b *testing.B) {
			c, err := paygate.NewClient("pk_bench", "sk_bench",
				append([]paygate.Option{paygate.WithBaseURL(srv.URL), paygate.WithHTTPClient(srv.Client())}, o.opts...)...)
			if err != nil {
				b.Fatal(err)
			}
			params := &paygate.ChargeParams{
				User: "1000042", CardToken: "tok_9f8e7d6c5b4a", Price: decimal.RequireFromString("149.90"),
				Currency: "USD", OrderID: "ORD-2026-11-0042", Description: "Annual subscription",
			}
			ctx := context.Background()
			b.ReportAllocs()
			for range b.N {
				if _, err := c.Cards.Charge(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
