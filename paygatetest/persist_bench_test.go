package paygatetest

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
)

// chargedPayments makes n completed card payments of one buyer in s, each
// with an order id and its callback.
func chargedPayments(s *Server, n int) {
	s.mu.Lock()
	p := s.st.projects[s.ProjectKey]
	u := s.st.resolveUser(p, userInput{identifier: "buyer", ip: "192.0.2.1"})
	card := s.st.sameCard(&cardData{number: CardApproved, month: 12, year: 2030})
	price := decimal.RequireFromString("10.00")
	for i := range n {
		t := s.st.newTxn(p, paygate.TypePayment, s.clock.Now())
		t.method, t.user, t.card, t.orderID = "card", u, card, "order-"+strconv.Itoa(i)
		t.price, t.currency = price, "EUR"
		s.transition(t, paygate.StatusCompleted)
	}
	s.mu.Unlock()
}

// deliveredAtFirstAttempt records one successful attempt of every callback
// in s's log, as a receiver that takes them all would have.
func deliveredAtFirstAttempt(s *Server) {
	now := s.clock.Now()
	l := s.deliveries.log
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.list {
		d := &l.list[i]
		d.url, d.attempts, d.automatic, d.delivered = "http://127.0.0.1:9/callbacks", 1, 1, true
		d.history = append(d.history, newAttempt(now, 200, nil, false))
	}
}

// BenchmarkStateFileWrite is one write of the state file (snapshot,
// encoding, temporary file, sync, rename) of a sandbox holding n completed
// card payments with their callbacks: what the writer spends per change
// at most five times a second.
func BenchmarkStateFileWrite(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			s := NewServer(WithProcessingDelay(0))
			defer s.Close()
			chargedPayments(s, n)
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
