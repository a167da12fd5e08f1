package paygatetest_test

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

var errNotCompleted = errors.New("the sandbox did not complete the charge")

// BenchmarkSandboxThroughput measures charges per second through the SDK
// against the sandbox over loopback, with one caller and with 32 concurrent
// callers: every charge is a full card/process with card and user details,
// approved by the sandbox and recorded in its state.
func BenchmarkSandboxThroughput(b *testing.B) {
	for _, callers := range []int{1, 32} {
		b.Run("callers="+strconv.Itoa(callers), func(b *testing.B) {
			srv := paygatetest.NewServer()
			defer srv.Close()
			client := srv.Client()
			ctx := context.Background()
			var order atomic.Int64
			charge := func() error {
				p, err := client.Cards.Charge(ctx, &paygate.ChargeParams{
					UserDetails: &paygate.UserDetails{Identifier: "bench-customer", IP: "192.0.2.1"},
					Card:        &paygate.CardDetails{Number: paygate.NewCardNumber(paygatetest.CardApproved), Expiry: paygate.NewExpiry(12, 2099), SecurityCode: paygate.NewSecurityCode("123")},
					Price:       decimal.RequireFromString("10.00"),
					Currency:    "EUR",
					Description: "Benchmark order",
					OrderID:     "bench-" + strconv.FormatInt(order.Add(1), 10),
				})
				if err == nil && !p.Completed() {
					err = errNotCompleted
				}
				return err
			}
			if err := charge(); err != nil { // the user exists from here on
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			if callers == 1 {
				for range b.N {
					if err := charge(); err != nil {
						b.Fatal(err)
					}
				}
			} else {
				// RunParallel starts parallelism x GOMAXPROCS goroutines.
				procs := runtime.GOMAXPROCS(0)
				b.SetParallelism((callers + procs - 1) / procs)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := charge(); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "charges/s")
		})
	}
}

// BenchmarkNewServerClose measures what a merchant's Go test pays to start
// a sandbox and close it, as httptest.NewServer and Close: everything
// NewServer builds, used or not, is in it.
func BenchmarkNewServerClose(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		paygatetest.NewServer().Close()
	}
}
