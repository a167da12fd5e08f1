package paygatetest

import (
	"strconv"
	"testing"

	"github.com/paygate/paygate-go"
)

// BenchmarkChargePastRetention is one completed payment made in a sandbox
// already holding its retention (10,000) of them, so that each one made
// drops the oldest: with an order id of its own ("order=unique") and with
// the order id every earlier one used ("order=same"). The two cost the
// same when dropping a transaction does not walk the others of its order.
func BenchmarkChargePastRetention(b *testing.B) {
	const retention = 10000
	for _, sub := range []struct {
		name    string
		orderID func(i int) string
	}{
		{"order=unique", func(i int) string { return "order-" + strconv.Itoa(i) }},
		{"order=same", func(int) string { return "same" }},
	} {
		b.Run(sub.name, func(b *testing.B) {
			s := NewServer(WithRetention(retention))
			defer s.Close()
			s.mu.Lock()
			defer s.mu.Unlock()
			p := s.st.projects[s.ProjectKey]
			charge := func(i int) {
				t := s.st.newTxn(p, paygate.TypePayment, s.clock.Now())
				t.method, t.orderID, t.price, t.currency = "card", sub.orderID(i), tenEUR, "EUR"
				s.transition(t, paygate.StatusCompleted)
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
