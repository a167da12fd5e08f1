package paygatetest

import (
	"errors"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
)

// Event is something the world outside the merchant's code does to a
// transaction: a cardholder disputes a payment, a wallet's payer approves
// it, a bank completes a payout. Server.Trigger and the control plane's
// POST /sandbox/transactions/{id}/{event} apply one.
type Event string

// The events, in the order the dashboard offers them.
const (
	// EventChargeback disputes a completed payment: a chargeback
	// transaction (referenceId the payment) takes what is left of its price
	// from the balance, the payment reads charged_back, and a
	// chargeback_completed callback is sent.
	EventChargeback Event = "chargeback"
	// EventRetrieval wins a chargeback's dispute: a retrieval transaction
	// (referenceId the chargeback) gives the amount back, the payment reads
	// retrieved, and a retrieval_completed callback is sent.
	EventRetrieval Event = "retrieval"
	// EventPenalty fines a chargeback or a refund once: a penalty
	// transaction (referenceId the chargeback or refund) of PenaltyAmount in
	// its currency leaves the balance, and a penalty_completed callback is
	// sent.
	EventPenalty Event = "penalty"
	// EventApprove is the payer approving an opened wallet payment, or the
	// gateway approving a payment waiting for approval: completed.
	EventApprove Event = "approve"
	// EventDecline is the payer or the gateway declining it: failed.
	EventDecline Event = "decline"
	// EventAbandon is the payer walking away from an opened wallet
	// payment, or a processing or waiting payment or payout being given up:
	// abandoned (payout_abandoned, the amount returns). Extended form only.
	EventAbandon Event = "abandon"
	// EventComplete completes a processing or waiting payment or payout.
	EventComplete Event = "complete"
	// EventFail fails it (payout_failed: the amount returns).
	EventFail Event = "fail"
	// EventCancel cancels it (payout_cancelled: the amount returns).
	// Extended form only.
	EventCancel Event = "cancel"
	// EventWaitingApproval holds a processing payment or payout, or an
	// opened wallet payment, for approval: waiting_approval. Extended form
	// only.
	EventWaitingApproval Event = "waiting_approval"
)

// Events lists every event.
var Events = []Event{
	EventChargeback, EventRetrieval, EventPenalty, EventApprove, EventDecline, EventAbandon,
	EventComplete, EventFail, EventCancel, EventWaitingApproval,
}

// PenaltyAmount is what EventPenalty takes, in the currency of the
// transaction it fines.
const PenaltyAmount = "15.00"

// Errors of Server.Trigger, to test with errors.Is.
var (
	// ErrTransactionNotFound: no transaction has the id.
	ErrTransactionNotFound = errors.New("paygatetest: transaction not found")
	// ErrUnknownEvent: the event is none of Events.
	ErrUnknownEvent = errors.New("paygatetest: unknown event")
	// ErrEventNotApplicable: the event does not apply to the transaction
	// in its state (a chargeback of a failed payment, a second chargeback,
	// a status the project's form lacks). Nothing changed.
	ErrEventNotApplicable = errors.New("paygatetest: event does not apply to the transaction")
)

// Trigger applies event e to transaction id and returns the id of the
// transaction the event made (the chargeback, retrieval or penalty), or id
// itself when it made none. Balance moves, statuses and signed callbacks
// follow, as the gateway makes them; see each Event. An error matches
// ErrTransactionNotFound, ErrUnknownEvent or ErrEventNotApplicable, and
// then nothing changed.
func (s *Server) Trigger(id paygate.ID, e Event) (paygate.ID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.triggerLocked(int64(id), e)
	if err != nil {
		return 0, err
	}
	return paygate.ID(t.id), nil
}

// Chargeback applies EventChargeback to payment id and returns the
// chargeback's id.
func (s *Server) Chargeback(id paygate.ID) (paygate.ID, error) { return s.Trigger(id, EventChargeback) }

// Retrieve applies EventRetrieval to chargeback id and returns the
// retrieval's id.
func (s *Server) Retrieve(id paygate.ID) (paygate.ID, error) { return s.Trigger(id, EventRetrieval) }

// Penalty applies EventPenalty to chargeback or refund id and returns the
// penalty's id.
func (s *Server) Penalty(id paygate.ID) (paygate.ID, error) { return s.Trigger(id, EventPenalty) }

// triggerLocked is Trigger with s.mu held; it returns the transaction to
// answer with.
func (s *Server) triggerLocked(id int64, e Event) (*txn, error) {
	t := s.st.txns[id]
	if t == nil {
		return nil, fmt.Errorf("%w: %d", ErrTransactionNotFound, id)
	}
	rule, ok := eventRules[e]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownEvent, e)
	}
	if !rule.appliesTo(t) {
		return nil, fmt.Errorf("%w: %s of a %s %s in the %s form", ErrEventNotApplicable, e, t.typ, t.effectiveStatus(), t.project.Form)
	}
	s.stopTimer(t)
	return rule.apply(s, t), nil
}

// applicableEvents lists the events that apply to t now, in Events order.
// The caller holds s.mu.
func (s *Server) applicableEvents(t *txn) []Event {
	var out []Event
	for _, e := range Events {
		if eventRules[e].appliesTo(t) {
			out = append(out, e)
		}
	}
	return out
}

// eventRule says when an event applies and what it does; the caller of
// both holds s.mu.
type eventRule struct {
	applies      func(*txn) bool
	apply        func(*Server, *txn) *txn
	extendedOnly bool // the status it leads to is not in the basic form
}

// appliesTo reports whether the event applies to t in its state and its
// project's form.
func (r eventRule) appliesTo(t *txn) bool {
	return r.applies(t) && !(r.extendedOnly && t.project.Form == paygate.FormBasic)
}

var eventRules = map[Event]eventRule{
	EventChargeback: {
		applies: func(t *txn) bool {
			return t.typ == paygate.TypePayment && t.status == paygate.StatusCompleted && t.extra().chargebackID == 0 &&
				t.price.GreaterThan(t.extra().reversed)
		},
		apply: (*Server).chargeback,
	},
	EventRetrieval: {
		applies: func(t *txn) bool {
			return t.typ == paygate.TypeChargeback && t.status == paygate.StatusCompleted && t.extra().retrievalID == 0
		},
		apply: (*Server).retrieve,
	},
	EventPenalty: {
		applies: func(t *txn) bool {
			return (t.typ == paygate.TypeChargeback || t.typ == paygate.TypeRefund) &&
				t.status == paygate.StatusCompleted && t.extra().penaltyID == 0
		},
		apply: (*Server).penalize,
	},
	EventApprove:         {applies: awaitingPayer, apply: settleAs(paygate.StatusCompleted, "")},
	EventDecline:         {applies: awaitingPayer, apply: settleAs(paygate.StatusFailed, "declined by the payer")},
	EventAbandon:         {applies: abandonable, apply: settleAs(paygate.StatusAbandoned, "abandoned"), extendedOnly: true},
	EventComplete:        {applies: pending, apply: settleAs(paygate.StatusCompleted, "")},
	EventFail:            {applies: pending, apply: settleAs(paygate.StatusFailed, "failed by the processor")},
	EventCancel:          {applies: pending, apply: settleAs(paygate.StatusCancelled, "cancelled"), extendedOnly: true},
	EventWaitingApproval: {applies: holdable, apply: settleAs(paygate.StatusWaitingApproval, ""), extendedOnly: true},
}

// pending: a payment, verification or payout that is processing or
// waiting for approval.
func pending(t *txn) bool {
	return (t.typ == paygate.TypePayment || t.typ == paygate.TypeVerification || t.typ == paygate.TypePayout) &&
		(t.status == paygate.StatusProcessing || t.status == paygate.StatusWaitingApproval)
}

// openedWallet: an alternative-method payment whose payer has not decided.
func openedWallet(t *txn) bool {
	return t.typ == paygate.TypePayment && t.extra().successURL != "" && t.status == paygate.StatusOpened
}

// awaitingPayer: an opened wallet payment, or a payment waiting for
// approval.
func awaitingPayer(t *txn) bool {
	return openedWallet(t) || (t.typ == paygate.TypePayment && t.status == paygate.StatusWaitingApproval)
}

func abandonable(t *txn) bool { return openedWallet(t) || pending(t) }

func holdable(t *txn) bool {
	return openedWallet(t) || ((t.typ == paygate.TypePayment || t.typ == paygate.TypePayout) && t.status == paygate.StatusProcessing)
}

// settleAs returns an apply that moves the transaction to status (with a
// reason when not empty) through transition, which moves the balance and
// sends the callback.
func settleAs(status paygate.Status, reason string) func(*Server, *txn) *txn {
	return func(s *Server, t *txn) *txn {
		if reason != "" {
			t.more().reason = reason
		}
		s.transition(t, status)
		return t
	}
}

// dispute makes a completed transaction of type typ, referencing ref, for
// amount in ref's currency, with ref's order, user, card, method and
// attributes (which the callback carries), and moves the balance by delta.
func (s *Server) dispute(ref *txn, typ paygate.TransactionType, amount, delta decimal.Decimal, reason string) *txn {
	d := s.st.followTxn(ref, typ, s.clock.Now())
	d.method, d.user, d.card, d.orderID, d.referenceID = ref.method, ref.user, ref.card, ref.orderID, ref.id
	d.price, d.currency, d.attrs = amount, ref.currency, ref.attrs
	d.more().reason = reason
	s.st.credit(ref.project, ref.currency, delta)
	s.transition(d, paygate.StatusCompleted)
	return d
}

// chargeback takes what is left of payment p (its price less what was
// reversed); nothing is left to reverse afterwards.
func (s *Server) chargeback(p *txn) *txn {
	x := p.more()
	amount := p.price.Sub(x.reversed)
	c := s.dispute(p, paygate.TypeChargeback, amount, amount.Neg(), "dispute opened by the cardholder")
	x.chargebackID, x.reversed, x.reversedTo = c.id, p.price, paygate.StatusChargedBack
	p.noteEffect(paygate.StatusChargedBack, c)
	return c
}

// retrieve gives chargeback c's amount back; the payment reads retrieved.
func (s *Server) retrieve(c *txn) *txn {
	r := s.dispute(c, paygate.TypeRetrieval, c.price, c.price, "dispute won by the merchant")
	c.more().retrievalID = r.id
	if p := s.st.txns[c.referenceID]; p != nil {
		p.more().reversedTo = paygate.StatusRetrieved
		p.noteEffect(paygate.StatusRetrieved, r)
	}
	return r
}

// penalize fines chargeback or refund t PenaltyAmount.
func (s *Server) penalize(t *txn) *txn {
	amount := decimal.RequireFromString(PenaltyAmount)
	pen := s.dispute(t, paygate.TypePenalty, amount, amount.Neg(), "penalty for the "+string(t.typ))
	t.more().penaltyID = pen.id
	return pen
}

// stopTimer cancels t's scheduled settlement, if any: an event decides
// its outcome instead. The caller holds s.mu.
func (s *Server) stopTimer(t *txn) {
	if tm := s.timer[t.id]; tm != nil {
		tm.Stop()
		delete(s.timer, t.id)
	}
}
