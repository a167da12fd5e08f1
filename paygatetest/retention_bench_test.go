package paygatetest

import (
	"strconv"
	"testing"

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
				t := s.st.newTxn(p, paygate.TypePayment, s.clock.Now())
				t.method, t.orderID, t.price, t.currency = "card", sub.orderID(i), tenEUR, "EUR"
				status := paygate.StatusCompleted
				if i < sub.inFlight {
					status = paygate.StatusProcessing
				}
				s.transition(t, status)
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
