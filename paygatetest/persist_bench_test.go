package paygatetest

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
)

// BenchmarkStateFileWrite is one write of the state file (snapshot,
// encoding, temporary file, sync, rename) of a sandbox holding n completed
// card payments with their callbacks: what the writer spends per change
// at most five times a second.
func BenchmarkStateFileWrite(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			s := NewServer(WithProcessingDelay(0))
			defer s.Close()
			s.mu.Lock()
			p := s.st.projects[s.ProjectKey]
			u := s.st.resolveUser(p, userInput{identifier: "buyer", ip: "192.0.2.1"})
			card := s.st.sameCard(&cardData{number: CardApproved, month: 12, year: 2030})
			for i := range n {
				t := s.st.newTxn(p, paygate.TypePayment, s.clock.Now())
				t.method, t.user, t.card, t.orderID = "card", u, card, "order-"+strconv.Itoa(i)
				t.price, t.currency = decimal.RequireFromString("10.00"), "EUR"
				s.transition(t, paygate.StatusCompleted)
			}
			s.mu.Unlock()
			w := &persister{path: filepath.Join(b.TempDir(), "state.json")}
			b.ResetTimer()
			for range b.N {
				if err := w.write(s.snapshot()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
