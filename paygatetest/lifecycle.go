package paygatetest

import (
	"strconv"
	"time"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
)

// transition applies status to t with its effects: the balance moves, a
// remembered card or a recurring subscription comes into being, a
// processing transaction is scheduled to settle, and a callback is sent.
// The caller holds s.mu.
func (s *Server) transition(t *txn, status paygate.Status) {
	if t.typ == paygate.TypeVerification && status == paygate.StatusCompleted {
		status = paygate.StatusVerified
	}
	t.keepLastChange()
	t.status, t.updatedAt, t.lastKept = status, s.clock.Now(), false
	switch {
	case status == paygate.StatusCompleted && (t.typ == paygate.TypePayment):
		s.st.credit(t.project, t.currency, t.price.Sub(t.fee()))
	case payoutReturns(status) && t.typ == paygate.TypePayout:
		s.st.credit(t.project, t.currency, t.price) // the reserved amount returns
	}
	switch status {
	case paygate.StatusCompleted, paygate.StatusVerified, paygate.StatusProcessing:
		s.applyCardEffects(t)
	case paygate.StatusFailed, paygate.StatusCancelled, paygate.StatusAbandoned:
		s.dropSubscription(t)
		s.dropPendingToken(t)
	}
	if status == paygate.StatusProcessing {
		s.schedule(t)
	}
	if cb := callbackStatus(t); cb != "" {
		s.notify(t, cb)
	}
}

// applyCardEffects issues the permanent token and the recurring
// subscription a successful (or processing) charge asked for, once. The
// token of a processing charge is answered at once, as the gateway does,
// but charges nothing until the charge completes (see dropPendingToken).
func (s *Server) applyCardEffects(t *txn) {
	if t.card == nil || t.method != "card" {
		return
	}
	x := t.extra()
	if x.remember && x.permanentToken == "" {
		t.more().permanentToken = s.st.newToken(t.project, t.card, true).id
	}
	if tok := s.st.tokens[t.extra().permanentToken]; tok != nil {
		tok.pending = t.status == paygate.StatusProcessing
	}
	if x.recurring && !x.subscribed && t.user != nil {
		t.more().subscribed = true
		s.st.subscribe(t, s.clock.Now())
	}
}

// dropSubscription forgets the subscription that t started while it was
// processing: a charge that ends unpaid subscribes nobody, and no
// automatic payment may follow it.
func (s *Server) dropSubscription(t *txn) {
	if !t.extra().subscribed || t.user == nil {
		return
	}
	if sub := s.st.recurring[t.user.id]; sub != nil && sub.referenceID == t.id {
		delete(s.st.recurring, t.user.id)
	}
	t.more().subscribed = false
}

// dropPendingToken forgets the permanent token of a charge that ended
// unpaid while processing: a card is remembered only by a charge that went
// through, so the token is unknown from now on.
func (s *Server) dropPendingToken(t *txn) {
	if tok := s.st.tokens[t.extra().permanentToken]; tok != nil && tok.pending {
		delete(s.st.tokens, tok.id)
		t.more().permanentToken = ""
	}
}

// schedule settles t after the processing delay. The caller holds s.mu.
func (s *Server) schedule(t *txn) {
	if s.isClosed() || s.processingDelay <= 0 {
		return
	}
	id := t.id
	s.timer[id] = time.AfterFunc(s.processingDelay, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.isClosed() {
			return
		}
		if t := s.st.txns[id]; t != nil {
			s.settle(t)
		}
	})
}

// isClosed reports whether Close has begun: timers and clock moves that
// fire after it change nothing.
func (s *Server) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// clockAdvanced runs after the clock moved: processing transactions settle
// and due recurring payments are made.
func (s *Server) clockAdvanced() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosed() {
		return
	}
	s.settleLocked()
	s.chargeDueRecurring()
}

// settleAll settles every processing transaction now.
func (s *Server) settleAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleLocked()
}

func (s *Server) settleLocked() {
	for _, t := range s.st.order {
		if t != nil {
			s.settle(t)
		}
	}
}

// settle moves a processing transaction to its final status: a payout to
// the declined test card fails, everything else completes.
func (s *Server) settle(t *txn) {
	if t.status != paygate.StatusProcessing {
		return
	}
	s.stopTimer(t)
	if t.typ == paygate.TypePayout && t.card != nil && t.card.number == CardDeclined {
		t.more().reason = "payout declined by the card issuer"
		s.transition(t, paygate.StatusFailed)
		return
	}
	s.transition(t, paygate.StatusCompleted)
}

// callbackStatus is the callback status of t's current status, or "" when
// the status has none (opened, authenticating). notify leaves out the ones
// the basic form does not send.
func callbackStatus(t *txn) callback.Status {
	switch t.typ {
	case paygate.TypePayout:
		return payoutCallback[t.status]
	case paygate.TypeRefund, paygate.TypeChargeback, paygate.TypeRetrieval, paygate.TypePenalty:
		if t.status == paygate.StatusCompleted {
			return completedCallback[t.typ]
		}
		return ""
	}
	return paymentCallback[t.status]
}

// paymentCallback is the callback status of a payment's status.
var paymentCallback = map[paygate.Status]callback.Status{
	paygate.StatusWaitingApproval: callback.WaitingApproval,
	paygate.StatusCompleted:       callback.Completed,
	paygate.StatusFailed:          callback.Failed,
	paygate.StatusVerified:        callback.Verified,
	paygate.StatusProcessing:      callback.Processing,
}

// payoutCallback is the callback status of a payout's status.
var payoutCallback = map[paygate.Status]callback.Status{
	paygate.StatusProcessing:      callback.Processing,
	paygate.StatusCompleted:       callback.PayoutCompleted,
	paygate.StatusFailed:          callback.PayoutFailed,
	paygate.StatusCancelled:       callback.PayoutCancelled,
	paygate.StatusAbandoned:       callback.PayoutAbandoned,
	paygate.StatusWaitingApproval: callback.WaitingApproval,
}

// completedCallback is the callback status of a completed refund or
// dispute transaction.
var completedCallback = map[paygate.TransactionType]callback.Status{
	paygate.TypeRefund:     callback.RefundCompleted,
	paygate.TypeChargeback: callback.ChargebackCompleted,
	paygate.TypeRetrieval:  callback.RetrievalCompleted,
	paygate.TypePenalty:    callback.PenaltyCompleted,
}

// payoutReturns reports whether a payout taking status gives its amount
// back to the balance.
func payoutReturns(status paygate.Status) bool {
	switch status {
	case paygate.StatusFailed, paygate.StatusCancelled, paygate.StatusAbandoned:
		return true
	}
	return false
}

func checkOrderID(id string) *apiError {
	if len([]rune(id)) > paygate.MaxOrderIDLength {
		return errMerchantData("order_id longer than 64 characters")
	}
	return nil
}

// atoiParam parses a non-negative integer parameter.
func atoiParam(v string) (int, bool) {
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= 0
}
