package paygatetest

import (
	"strconv"
	"testing"
	"time"

	"github.com/paygate/paygate-go"
)

// BenchmarkChargePastRetention is one completed payment made in a sandbox
// already holding its retention (10,000) of them, so that each one made
// drops the oldest: with an order id of its own ("order=unique"), with
// the order id every earlier one used ("order=same"), and with the oldest
// half of those held still processing ("inflight=half", as callbacks
// waiting for a dead endpoint's retries hold them). The three cost the
// same when dropping a transaction walks neither the others of its order
// nor those in flight.
func BenchmarkChargePastRetention(b *testing.B) {
	const retention = 10000
	for _, sub := range []struct {
		name     string
		orderID  func(i int) string
		inFlight int
	}{
		{"order=unique", func(i int) string { return "order-" + strconv.Itoa(i) }, 0},
		{"order=same", func(int) string { return "same" }, 0},
		{"inflight=half", func(i int) string { return "order-" + strconv.Itoa(i) }, retention / 2},
	} {
		b.Run(sub.name, func(b *testing.B) {
			s := NewServer(WithRetention(retention), WithProcessingDelay(0))
			defer s.Close()
			s.mu.Lock()
			defer s.mu.Unlock()
			p := s.st.projects[s.ProjectKey]
			charge := func(i int) {
				status := paygate.StatusCompleted
				if i < sub.inFlight {
					status = paygate.StatusProcessing
				}
				cardPayment(s, p, sub.orderID(i), status)
				s.st.indexOrders() // as a look-up by order id would
			}
			for i := range retention {
				charge(i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				charge(retention + i)
			}
		})
	}
}

// BenchmarkClockMove is one move of the clock (what POST /sandbox/clock
// and a fixture's settle step do) in a sandbox keeping n completed
// payments, none processing: its cost should not depend on n.
func BenchmarkClockMove(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run("kept="+strconv.Itoa(n), func(b *testing.B) {
			s := NewServer(WithClock(NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))))
			defer s.Close()
			completePayments(s, n)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				s.clock.Advance(time.Second)
			}
		})
	}
}
