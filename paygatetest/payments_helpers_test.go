package paygatetest

import (
	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
)

// tenEUR is the price of the payments the internal tests make.
var tenEUR = decimal.NewFromInt(10)

// cardPayment makes a 10 EUR card payment of project p with orderID and
// moves it to status, callbacks and all, as a charge would. The caller
// holds s.mu.
func cardPayment(s *Server, p *Project, orderID string, status paygate.Status) *txn {
	tx := s.st.newTxn(p, paygate.TypePayment, s.clock.Now())
	tx.price, tx.currency, tx.method, tx.orderID = tenEUR, "EUR", "card", orderID
	s.transition(tx, status)
	return tx
}

// payments makes n completed card payments of project p, the i-th with
// order id orderID(i), and returns them oldest first. The caller holds
// s.mu.
func payments(s *Server, p *Project, n int, orderID func(i int) string) []*txn {
	made := make([]*txn, n)
	for i := range made {
		made[i] = cardPayment(s, p, orderID(i), paygate.StatusCompleted)
	}
	return made
}

// sameOrder is payments with one order id.
func sameOrder(s *Server, p *Project, orderID string, n int) []*txn {
	return payments(s, p, n, func(int) string { return orderID })
}

// completePayments makes n completed payments of s's project without an
// order id, one callback each.
func completePayments(s *Server, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	payments(s, s.st.projects[s.ProjectKey], n, func(int) string { return "" })
}
