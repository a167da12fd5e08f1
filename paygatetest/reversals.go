package paygatetest

import (
	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
)

// reverse serves transaction/reverse. Only a completed payment can be
// reversed, by any amount up to what is left of it; anything else, or an
// amount beyond what is left, is 40504. Each reversal is a refund
// transaction (referenceId the payment) and moves the balance; once nothing
// is left the payment reads refunded (basic form: reversed, with a
// "reversed" callback).
func (s *Server) reverse(c *call) (any, *apiError) {
	amount, ok := parseAmount(c.get("amount"))
	if !ok || !amount.IsPositive() {
		return nil, errMerchantData("amount")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, aerr := s.st.lookupTxn(c.project, c.get("id"), c.get("order_id"))
	if aerr != nil {
		return nil, aerr
	}
	left := t.price.Sub(t.reversed)
	if t.typ != paygate.TypePayment || t.status != paygate.StatusCompleted || amount.GreaterThan(left) {
		return nil, newError(paygate.CodeNotReversible, "")
	}
	now := s.clock.Now()
	r := s.st.newTxn(c.project, paygate.TypeRefund, now)
	r.method, r.user, r.card, r.orderID, r.referenceID = t.method, t.user, t.card, t.orderID, t.id
	r.price, r.currency, r.fee, r.reason = amount, t.currency, decimal.Zero, c.get("comment")
	t.reversed = t.reversed.Add(amount)
	s.st.credit(c.project, t.currency, amount.Neg())
	full := t.reversed.Equal(t.price)
	if full && c.basic() {
		t.reversedTo = paygate.StatusReversed
		r.status, r.updatedAt = paygate.StatusCompleted, now
		s.notify(t, paygate.CallbackReversed)
	} else {
		if full {
			t.reversedTo = paygate.StatusRefunded
		}
		s.transition(r, paygate.StatusCompleted)
	}
	if c.basic() {
		return map[string]any{"success": true}, nil
	}
	out := transactionFields(r, false)
	out["success"] = true
	out["card"] = cardJSON(r.card, true)
	return out, nil
}
