package paygate

import (
	"errors"

	"github.com/paygate/paygate-go/callback"
	"github.com/shopspring/decimal"
)

// OrderStatus is where a merchant's order stands with its payment, as
// [OrderState] keeps it. The order of the constants is the order in which
// an order moves; see OrderState for the rule.
type OrderStatus string

// Order statuses.
const (
	// OrderPending: no payment was started yet, or a new attempt may start.
	OrderPending OrderStatus = "pending"
	// OrderAuthenticating: the payer is sent to 3-D Secure.
	OrderAuthenticating OrderStatus = "authenticating"
	// OrderProcessing: a payment is under way, or its outcome is unknown
	// (ErrOutcomeUnknown): the money may have been taken; wait for the
	// callback or reconcile, never charge again blindly.
	OrderProcessing OrderStatus = "processing"
	// OrderFailed: the payment failed or was refused; nothing was taken.
	OrderFailed OrderStatus = "failed"
	// OrderPaid: the payment completed; fulfil the order.
	OrderPaid OrderStatus = "paid"
	// OrderPartiallyRefunded: part of the payment went back to the payer.
	OrderPartiallyRefunded OrderStatus = "partially_refunded"
	// OrderRefunded: the whole payment went back to the payer.
	OrderRefunded OrderStatus = "refunded"
	// OrderChargedBack: the payer's bank took the money back in a dispute.
	OrderChargedBack OrderStatus = "charged_back"
	// OrderRetrieved: the merchant won the dispute and has the money again.
	OrderRetrieved OrderStatus = "retrieved"
)

// orderStatuses are the statuses in the order an order moves through
// them: the rank of a status is its index. This is the rule's one home.
var orderStatuses = []OrderStatus{
	OrderPending, OrderAuthenticating, OrderProcessing, OrderFailed, OrderPaid,
	OrderPartiallyRefunded, OrderRefunded, OrderChargedBack, OrderRetrieved,
}

// orPending is s, or OrderPending for the empty status.
func (s OrderStatus) orPending() OrderStatus {
	if s == "" {
		return OrderPending
	}
	return s
}

// rank is the position of s in orderStatuses; an empty status is pending,
// an unknown one is -1, which every known status moves past.
func (s OrderStatus) rank() int {
	for i, o := range orderStatuses {
		if o == s.orPending() {
			return i
		}
	}
	return -1
}

// OrderState is an order's status and the money refunded so far, kept by a
// rule under which an order never moves backwards, whatever order the
// news arrives in: a charge's answer, a late ErrOutcomeUnknown, callbacks
// delivered out of order or again, a settlement (Transactions.Settle). Apply an observation
// and store the result:
//
//	next := state.Apply(paygate.ObserveCallback(cb))
//
// Apply is pure (no I/O, no clock), so it belongs inside the merchant's
// database transaction: read the stored state, apply, and write the result
// with a compare-and-set on what was read (or under a row lock). A lost
// race re-reads and applies again.
//
// The rule, where rows are the order's status, columns what was observed,
// and "-" leaves the status as it is:
//
//	now \ seen  3ds   proc  unkn  paid  fail  part  rest  chbk  retr  retry
//	pend        auth  proc  proc  paid  fail  part  refd  chbk  retr  -
//	auth        -     proc  proc  paid  fail  part  refd  chbk  retr  -
//	proc        -     -     -     paid  fail  part  refd  chbk  retr  -
//	fail        -     -     -     paid  -     part  refd  chbk  retr  pend
//	paid        -     -     -     -     -     part  refd  chbk  retr  -
//	part        -     -     -     -     -     part  refd  chbk  retr  -
//	refd        -     -     -     -     -     -     -     chbk  retr  -
//	chbk        -     -     -     -     -     -     -     -     retr  -
//	retr        -     -     -     -     -     -     -     -     -     -
//
// Statuses: pend OrderPending, auth OrderAuthenticating, proc
// OrderProcessing, fail OrderFailed, paid OrderPaid, part
// OrderPartiallyRefunded, refd OrderRefunded, chbk OrderChargedBack, retr
// OrderRetrieved. Observations (see the Observe functions): 3ds a charge
// waiting for 3-D Secure; proc a payment processing or waiting for
// approval; unkn a charge or authentication that ended in
// ErrOutcomeUnknown; paid a completed payment; fail a failed, cancelled or
// abandoned payment, or a charge the gateway refused; part a refund of
// less than what remains of Amount; rest a refund of what remains (or a
// reversal, which returns it all); chbk a chargeback; retr a retrieval (a
// won dispute); retry a new payment attempt.
//
// Why each cell is what it is:
//
//   - An order moves only forward, in the order of the rows. A status
//     reported late (a processing callback after the completed one, a
//     completed one redelivered after the refund, a chargeback delivered
//     after its retrieval) is old news and changes nothing.
//   - ErrOutcomeUnknown says nothing new about a payment whose outcome is
//     known: a completed callback that overtook the charge's answer leaves
//     the order paid when the answer turns out unknown. Before any outcome
//     it makes the order processing: the money may have been taken.
//   - A failure never undoes a payment: a late failed for a paid order is
//     ignored. The other way round, a completed payment pays a failed
//     order: money taken is never shown as not taken (the payer may have
//     paid on a second attempt whose news came first).
//   - A refund, chargeback or retrieval seen first implies the payment
//     before it, and moves a pending or processing order on directly.
//   - A stale completed never reopens a refunded order; a chargeback after
//     a refund is not stale, it is the payer's bank taking money back
//     again, and a retrieval returns the disputed money to the merchant
//     (retrieved: fulfil as paid). A second chargeback after a retrieval
//     is not modelled: the gateway's record tells.
//   - Only a failed order starts a new attempt (retry): a pending one has
//     nothing to retry, and any other may still take or has taken money.
//
// Refunds add up in Refunded whatever the status (a refund reported after
// the chargeback still happened), so apply each refund once: the
// callback.Handler's de-duplication passes each callback once, and a
// refund's transaction id (its callback's ID) is the key to record it
// under. With a zero Amount a refund cannot be told partial and reads as
// whole.
//
// The rule keeps the order's status only: match a callback to the order
// and its current payment attempt (its order id and transaction ids), and
// confirm it with [Client.ConfirmCallback], before applying it.
type OrderState struct {
	// Status is where the order stands; empty reads as OrderPending.
	Status OrderStatus
	// Amount is what the order charges, to tell a partial refund from a
	// whole one.
	Amount decimal.Decimal
	// Refunded is the total of the refunds observed.
	Refunded decimal.Decimal
}

// NewOrderState returns a pending order that charges amount.
func NewOrderState(amount decimal.Decimal) OrderState {
	return OrderState{Status: OrderPending, Amount: amount}
}

// Apply returns the state after observation o, by the rule in OrderState's
// doc comment. It never moves the status backwards; it changes nothing for
// an observation the rule ignores.
func (s OrderState) Apply(o OrderObservation) OrderState {
	s.Status = s.Status.orPending()
	switch o.kind {
	case observedNothing:
		return s
	case observedRetry:
		if s.Status == OrderFailed {
			s.Status = OrderPending
		}
		return s
	case observedRefund:
		s.Refunded = s.Refunded.Add(o.amount)
	case observedRefundAll:
		s.Refunded = decimal.Max(s.Refunded, s.Amount)
	}
	if to := o.status(s); to.rank() > s.Status.rank() {
		s.Status = to
	}
	return s
}

// Equal reports whether s and t hold the same status and amounts, to tell
// whether an Apply changed anything (decimal values do not compare with
// ==).
func (s OrderState) Equal(t OrderState) bool {
	return s.Status.orPending() == t.Status.orPending() && s.Amount.Equal(t.Amount) && s.Refunded.Equal(t.Refunded)
}

// OrderObservation is one piece of news about an order's payment, built
// by ObserveCharge, ObserveCallback, ObserveStatus, ObserveSettlement or
// ObserveRetry and
// applied with [OrderState.Apply]. The zero value observes nothing.
type OrderObservation struct {
	kind   observed
	amount decimal.Decimal // of a refund
}

// observed is the kind of an observation: the columns of OrderState's
// table.
type observed int

const (
	observedNothing observed = iota
	observedAuthenticating
	observedProcessing
	observedPaid
	observedFailed
	observedRefund    // a refund of amount
	observedRefundAll // a reversal: whatever remains goes back
	observedChargeback
	observedRetrieval
	observedRetry
)

// observedStatus is the status each kind moves an order to; refunds
// depend on the amounts and are decided in status.
var observedStatus = map[observed]OrderStatus{
	observedAuthenticating: OrderAuthenticating,
	observedProcessing:     OrderProcessing,
	observedPaid:           OrderPaid,
	observedFailed:         OrderFailed,
	observedChargeback:     OrderChargedBack,
	observedRetrieval:      OrderRetrieved,
}

// status is where o moves an order whose refunds s already counts.
func (o OrderObservation) status(s OrderState) OrderStatus {
	if o.kind != observedRefund && o.kind != observedRefundAll {
		return observedStatus[o.kind]
	}
	if s.Amount.IsZero() || s.Refunded.GreaterThanOrEqual(s.Amount) {
		return OrderRefunded
	}
	return OrderPartiallyRefunded
}

// ObserveCharge is the observation of the answer to a charge (Charge,
// ChargeRecurring) or to Authenticate: the payment's status, or what the
// error says about it.
//
// ErrOutcomeUnknown observes a payment under way (proc in the table: it
// never changes a known outcome). A refusal by the gateway (an *Error with
// a code, a *DeclinedError) observes a failure: nothing was taken. An
// error that says nothing about the payment observes nothing: a
// *ValidationError or a network error before anything was sent, an
// ErrACSReturnMismatch (the return belonged to another payment), and
// ErrTransactionCompleted (the payment was settled already: its callback
// or its status tells how).
func ObserveCharge(p *Payment, err error) OrderObservation {
	if err != nil {
		return observeChargeError(err)
	}
	switch {
	case p == nil:
		return OrderObservation{}
	case p.NeedsAuthentication():
		return OrderObservation{kind: observedAuthenticating}
	case p.Status == "" && p.Success:
		// The basic form answers without a status: the callback tells.
		return OrderObservation{kind: observedProcessing}
	case p.Status == "":
		return OrderObservation{kind: observedFailed}
	}
	return ObserveStatus(p.Status)
}

// observeChargeError is ObserveCharge for a failed call.
func observeChargeError(err error) OrderObservation {
	var gerr *Error
	var declined *DeclinedError
	switch {
	case errors.Is(err, ErrOutcomeUnknown):
		return OrderObservation{kind: observedProcessing}
	case errors.Is(err, ErrACSReturnMismatch), errors.Is(err, ErrTransactionCompleted):
		return OrderObservation{}
	case errors.As(err, &declined), errors.As(err, &gerr) && gerr.Code != 0:
		return OrderObservation{kind: observedFailed}
	}
	return OrderObservation{}
}

// ObserveStatus is the observation of a payment's status as the gateway
// reports it with the effects of later transactions (Transactions.Status,
// Transactions.Get, a Reconciliation's payment): refunded observes a whole
// refund, charged_back a chargeback, retrieved a retrieval. verified (a
// card check that took nothing), returned and unknown statuses observe
// nothing.
func ObserveStatus(s Status) OrderObservation { return OrderObservation{kind: statusObserved[s]} }

// statusObserved is what each transaction status observes; a status not
// listed observes nothing.
var statusObserved = map[Status]observed{
	StatusAuthenticating:  observedAuthenticating,
	StatusOpened:          observedProcessing,
	StatusProcessing:      observedProcessing,
	StatusWaitingApproval: observedProcessing,
	StatusAuthorized:      observedProcessing,
	StatusCompleted:       observedPaid,
	StatusFailed:          observedFailed,
	StatusCancelled:       observedFailed,
	StatusAbandoned:       observedFailed,
	StatusRefunded:        observedRefundAll,
	StatusReversed:        observedRefundAll,
	StatusChargedBack:     observedChargeback,
	StatusRetrieved:       observedRetrieval,
}

// ObserveCallback is the observation of a callback about the order's
// payment or about a transaction that follows it (a refund, chargeback or
// retrieval). Confirm the callback ([Client.ConfirmCallback]) first.
//
// refund_completed observes a refund of the callback's Price when it is
// about the refund transaction (it names the payment in ReferenceID), and a
// whole refund when it is about the payment itself (the basic form's other
// shape); reversed observes a whole refund. verified, penalty_completed (a
// fine on the merchant, which leaves the order as it is), payout_* and
// unknown statuses observe nothing.
func ObserveCallback(cb *callback.Callback) OrderObservation {
	switch {
	case cb == nil:
		return OrderObservation{}
	case cb.Status == callback.RefundCompleted && cb.ReferenceID != 0:
		return OrderObservation{kind: observedRefund, amount: cb.Price}
	}
	return OrderObservation{kind: callbackStatuses[cb.Status].observes}
}

// ObserveSettlement is the observation of what [TransactionsService.Settle]
// (or Reconcile) found after an unknown outcome.
//
// For a charge, recurring charge, wallet payment or authentication it is
// the payment's status with the effects of later transactions when the
// listing found it (extended form: a payment refunded since observes a
// whole refund), and otherwise the Outcome: succeeded observes a completed
// payment, pending a processing one, needs_authentication one waiting for
// 3-D Secure, failed a failure. For a reversal, a payment left with nothing
// observes a whole refund; a partial one observes nothing, because its
// refund_completed callback counts it, and counting it here as well would
// count it twice. Nothing found yet, an undetermined outcome and a payout
// observe nothing.
func ObserveSettlement(r *Reconciliation) OrderObservation {
	switch {
	case r == nil:
		return OrderObservation{}
	case r.Kind.paysIn() && r.Transaction != nil:
		return ObserveStatus(r.Transaction.Status)
	case r.Kind.paysIn():
		return OrderObservation{kind: outcomeObserved[r.Outcome]}
	case r.FullyRefunded():
		return OrderObservation{kind: observedRefundAll}
	}
	return OrderObservation{}
}

// outcomeObserved is what the outcome of a settled payment observes when
// the payment itself was not read; an outcome not listed observes nothing.
var outcomeObserved = map[Outcome]observed{
	OutcomeSucceeded:           observedPaid,
	OutcomePending:             observedProcessing,
	OutcomeNeedsAuthentication: observedAuthenticating,
	OutcomeFailed:              observedFailed,
}

// ObserveRetry is the observation of the payer starting a new payment
// attempt. Only a failed order takes it (back to pending); check that the
// result is OrderPending before charging again.
func ObserveRetry() OrderObservation { return OrderObservation{kind: observedRetry} }
