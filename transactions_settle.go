package paygate

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// OperationKind is the kind of request whose outcome [TransactionsService.Settle]
// settles. Each kind leaves a different trace at the gateway, so settling
// looks for a different transaction: the payment of a charge, the refund
// of a reversal, the payout of a payout.
type OperationKind string

// The kinds of request that can end with an unknown outcome and that Settle
// settles. An [*OutcomeUnknownError] carries its request's kind.
const (
	// KindCharge is a card charge (POST card/process): settled by the
	// order's latest payment.
	KindCharge OperationKind = "charge"
	// KindAuthenticate is a 3-D Secure authentication (POST
	// card/authenticate): settled by the state of the payment it continued,
	// found by its id (a bound Authenticate knows it) or its order.
	KindAuthenticate OperationKind = "authenticate"
	// KindRecurringCharge is a manual recurring charge (POST
	// card/processRecurring): settled by the order's latest payment.
	KindRecurringCharge OperationKind = "recurring_charge"
	// KindReversal is a reversal or refund (POST transaction/reverse):
	// settled by a refund transaction of the payment, or the payment
	// reading refunded.
	KindReversal OperationKind = "reversal"
	// KindWalletPayment is a payment by an alternative method (POST
	// transaction/create; extended form only): settled by the order's
	// latest payment.
	KindWalletPayment OperationKind = "wallet_payment"
	// KindPayout is a payout (POST payout; extended form only): settled by
	// the order's latest payout transaction.
	KindPayout OperationKind = "payout"
)

// Known reports whether Settle settles requests of kind k.
func (k OperationKind) Known() bool {
	switch k {
	case KindCharge, KindAuthenticate, KindRecurringCharge, KindReversal, KindWalletPayment, KindPayout:
		return true
	}
	return false
}

// paysIn reports whether k's trace is a payment from a user.
func (k OperationKind) paysIn() bool {
	return k == KindCharge || k == KindAuthenticate || k == KindRecurringCharge || k == KindWalletPayment
}

// Outcome is what settling found about a request, in the terms of its
// kind (see [Reconciliation]).
type Outcome string

// The outcomes of [TransactionsService.Settle].
const (
	// OutcomeNotFound: the gateway has recorded nothing for the request so
	// far. It is not proof that the request never arrived (one still in
	// flight may be recorded a moment later): keep the order pending, look
	// again after a while or wait for the callback, and only then send the
	// request again.
	OutcomeNotFound Outcome = "not_found"
	// OutcomeSucceeded: the request took effect. A payment completed (or
	// completed and has since been refunded or charged back); a refund
	// completed; a payout completed.
	OutcomeSucceeded Outcome = "succeeded"
	// OutcomePending: the request was recorded and has not ended yet: a
	// payment opened (a wallet payment waiting for its payer), processing,
	// waiting for approval or authorized; a refund or a payout processing.
	// Wait for the callback or settle again later.
	OutcomePending Outcome = "pending"
	// OutcomeNeedsAuthentication: the payment waits for 3-D Secure. After
	// a charge, send the payer to the access control server; after an
	// authentication, the gateway has not (yet) recorded it.
	OutcomeNeedsAuthentication Outcome = "needs_authentication"
	// OutcomeFailed: the request was recorded and ended without effect
	// (failed, cancelled or abandoned).
	OutcomeFailed Outcome = "failed"
	// OutcomeUndetermined: the look-up the form offers cannot tell. The
	// basic form's status look-up shows a payment partly reversed exactly
	// as one not reversed at all; wait for the refund callback.
	OutcomeUndetermined Outcome = "undetermined"
)

// SettleParams name the request whose outcome to settle. Build them from
// the error with [OutcomeUnknownError.SettleParams], or by hand from what
// was sent.
type SettleParams struct {
	// Kind is the kind of request; required.
	Kind OperationKind
	// OrderID is the order id the request carried. Required, except for
	// KindAuthenticate and KindReversal given TransactionID.
	OrderID string
	// TransactionID is the payment the request named: the payment a
	// reversal by id reversed, or the payment an authentication continued.
	// Only KindAuthenticate and KindReversal use it.
	TransactionID ID
	// Seen are the ids of the order's transactions known before the
	// request was sent (an earlier declined charge of the order, an earlier
	// partial refund): they are not taken for the request's trace.
	Seen []ID
}

func (p *SettleParams) validate(form Form) error {
	byID := (p.Kind == KindAuthenticate || p.Kind == KindReversal) && p.TransactionID != 0
	switch {
	case p.Kind == "":
		return &ValidationError{Field: "kind", Reason: "is required"}
	case !p.Kind.Known():
		return &ValidationError{Field: "kind", Reason: "is not a kind of request Settle settles"}
	case form == FormBasic && (p.Kind == KindWalletPayment || p.Kind == KindPayout):
		return fmt.Errorf("%w: settling a %s", ErrBasicForm, p.Kind)
	case !byID:
		if err := checkRequired("order_id", p.OrderID); err != nil {
			return err
		}
	}
	return checkMaxLen("order_id", p.OrderID, MaxOrderIDLength)
}

// Reconciliation is what the gateway recorded for a request, as
// [TransactionsService.Settle] (or Reconcile) found it. Outcome says what
// happened in the terms of Kind; the accessors answer the question each
// kind asks (Completed, NeedsAuthentication, Refunded, PayoutCompleted).
type Reconciliation struct {
	// OrderID is the order that was looked up (for a request settled by
	// its payment's id, the payment's order).
	OrderID string
	// Kind is the kind of request settled.
	Kind OperationKind
	// Outcome is what happened to the request.
	Outcome Outcome
	// Found reports whether the gateway has recorded anything for the
	// order (or the payment) so far, whether or not it is the request's
	// trace.
	Found bool
	// Transaction is the transaction that decided Outcome (extended form):
	// the payment, the refund or the payout; nil when none did.
	Transaction *Transaction
	// Payment is, for a reversal in the extended form, the payment
	// reversed, when found.
	Payment *Transaction
	// Transactions are the order's transactions (extended form), in the
	// gateway's order.
	Transactions []Transaction
	// Status is what the status look-up answered (basic form, which has no
	// listing): the payment, or whatever the gateway's latest transaction
	// of the order is.
	Status *TransactionStatus
}

// Completed reports whether the payment that a charge, recurring charge,
// wallet payment or authentication made or continued completed: the
// merchant may provide the service. It is false for the other kinds.
func (r *Reconciliation) Completed() bool {
	return r.Kind.paysIn() && r.Outcome == OutcomeSucceeded
}

// NeedsAuthentication reports whether the payment waits for 3-D Secure.
func (r *Reconciliation) NeedsAuthentication() bool {
	return r.Outcome == OutcomeNeedsAuthentication
}

// Refunded reports whether a reversal went through: a refund transaction
// of the payment completed, or the payment reads refunded or reversed.
// [Reconciliation.Refund] is the refund; [Reconciliation.FullyRefunded]
// tells a full reversal from a partial one.
func (r *Reconciliation) Refunded() bool {
	return r.Kind == KindReversal && r.Outcome == OutcomeSucceeded
}

// Refund returns the refund transaction a reversal made (extended form),
// whatever its status, or nil.
func (r *Reconciliation) Refund() *Transaction {
	if r.Kind != KindReversal || r.Transaction == nil || r.Transaction.Type != TypeRefund {
		return nil
	}
	return r.Transaction
}

// FullyRefunded reports whether nothing is left of the reversed payment:
// it reads refunded or reversed.
func (r *Reconciliation) FullyRefunded() bool {
	switch {
	case r.Kind != KindReversal:
		return false
	case r.Payment != nil:
		return reversedStatus(r.Payment.Status)
	case r.Status != nil:
		return reversedStatus(r.Status.Status)
	}
	return false
}

// PayoutCompleted reports whether a payout completed.
func (r *Reconciliation) PayoutCompleted() bool {
	return r.Kind == KindPayout && r.Outcome == OutcomeSucceeded
}

// Settle settles an unknown outcome: it looks up what the gateway recorded
// for the request p names and says in the terms of p.Kind what happened
// (see [Outcome] and [Reconciliation]'s accessors).
//
// In the extended form it reads the named payment (GET transactions/{id})
// when p.TransactionID is given, and lists the order's transactions (GET
// transactions, every page, bounded by [DefaultReconcileBound] or
// [WithListBound]). The request's trace is the order's latest payment for a
// charge, recurring charge or wallet payment (a completed one first); the payment itself for an
// authentication by id; the latest refund of the payment for a reversal;
// the latest payout for a payout; transactions in p.Seen are skipped. In
// the basic form, which has no listing and no wallet payments or payouts,
// it reads the status by id or order id (GET transaction/status).
//
// Nothing recorded (an empty listing, 40403) is not an error but
// [OutcomeNotFound]: "nothing recorded yet", not "never arrived". A
// request still being processed may appear later: keep the order pending,
// settle again after a pause (seconds, not milliseconds) or wait for the
// callback, and only then send the request again. Only requests that
// carried an order id (or named a payment) can be found: give every
// charge, reversal and payout one.
//
// For a charge, recurring charge or wallet payment, a completed payment of
// the order decides over a later one still open or failed: the order is
// paid, and charging again would charge it twice.
//
// A worked example, for every kind:
//
//	_, err := client.Cards.Charge(ctx, params) // or Authenticate, ChargeRecurring, Reverse, Create, Payouts.Create
//	var unknown *paygate.OutcomeUnknownError
//	if errors.As(err, &unknown) {
//		rec, serr := client.Transactions.Settle(ctx, unknown.SettleParams())
//		switch {
//		case serr != nil:
//			// The gateway is still unreachable: keep the order pending
//			// and settle later; do not send the request again.
//		case rec.Outcome == paygate.OutcomeNotFound:
//			// Nothing recorded yet: keep the order pending and settle
//			// again later (or wait for the callback) before resending.
//		case rec.Completed():
//			// A charge, recurring charge, wallet payment or
//			// authentication: the payment completed; fulfil the order.
//		case rec.NeedsAuthentication():
//			// The payment waits for 3-D Secure.
//		case rec.Refunded():
//			// The reversal went through: rec.Refund() is the refund,
//			// rec.FullyRefunded() whether anything is left.
//		case rec.PayoutCompleted():
//			// The payout was made.
//		case rec.Outcome == paygate.OutcomeFailed:
//			// Recorded and failed: the request may be made anew.
//		default:
//			// Pending (processing, a wallet payment waiting for its
//			// payer, a payout in progress) or undetermined: wait for the
//			// callback, or settle again later.
//		}
//	}
func (s *TransactionsService) Settle(ctx context.Context, p *SettleParams, opts ...CallOption) (*Reconciliation, error) {
	if p == nil {
		p = &SettleParams{}
	}
	if err := p.validate(s.client.form); err != nil {
		return nil, err
	}
	rec := &Reconciliation{OrderID: p.OrderID, Kind: p.Kind, Outcome: OutcomeNotFound}
	if s.client.form == FormBasic {
		return rec, s.settleByStatus(ctx, p, rec, opts)
	}
	return rec, s.settleByListing(ctx, p, rec, opts)
}

// Reconcile settles an unknown outcome of a charge for order orderID: it
// is Settle with Kind KindCharge. Found tells whether anything is recorded
// for the order, Completed whether the payment went through, Outcome the
// rest (see [TransactionsService.Settle], whose example covers every kind).
func (s *TransactionsService) Reconcile(ctx context.Context, orderID string, opts ...CallOption) (*Reconciliation, error) {
	return s.Settle(ctx, &SettleParams{Kind: KindCharge, OrderID: orderID}, opts...)
}

// settleByStatus settles p in the basic form, from the status look-up.
func (s *TransactionsService) settleByStatus(ctx context.Context, p *SettleParams, rec *Reconciliation, opts []CallOption) error {
	q := &StatusParams{OrderID: p.OrderID}
	if p.TransactionID != 0 && (p.Kind == KindAuthenticate || p.Kind == KindReversal) {
		q = &StatusParams{ID: p.TransactionID}
	}
	st, err := s.Status(ctx, q, opts...)
	switch {
	case errors.Is(err, ErrTransactionNotFound):
		return nil
	case err != nil:
		return err
	}
	rec.Found, rec.Status = true, st
	if rec.OrderID == "" {
		rec.OrderID = st.OrderID
	}
	v := trace{typ: st.Type, status: st.Status, own: st.OriginalStatus}
	switch {
	case p.Kind == KindReversal:
		rec.Outcome = reversalByStatus(v)
	case slices.Contains(p.Seen, st.ID) && q.ID == 0:
		// The order's latest payment is one known before: the request
		// left no payment (yet).
	default:
		rec.Outcome = paymentOutcome(v)
	}
	return nil
}

// settleByListing settles p in the extended form, from the named payment
// and the order's listing.
func (s *TransactionsService) settleByListing(ctx context.Context, p *SettleParams, rec *Reconciliation, opts []CallOption) error {
	var named *Transaction
	if p.TransactionID != 0 && (p.Kind == KindAuthenticate || p.Kind == KindReversal) {
		t, err := s.Get(ctx, p.TransactionID, opts...)
		switch {
		case errors.Is(err, ErrTransactionNotFound):
			return nil
		case err != nil:
			return err
		}
		named, rec.Found = t, true
		if rec.OrderID == "" {
			rec.OrderID = t.OrderID
		}
	}
	if rec.OrderID != "" && (named == nil || p.Kind == KindReversal) {
		for t, err := range s.walk(ctx, &ListParams{OrderID: rec.OrderID}, DefaultReconcileBound, opts) {
			switch {
			case errors.Is(err, ErrTransactionNotFound):
				// The gateway's way of saying the order has no transactions.
			case err != nil:
				return err
			default:
				rec.Transactions = append(rec.Transactions, t)
			}
		}
		rec.Found = rec.Found || len(rec.Transactions) > 0
	}
	decideFromListing(p, rec, named)
	return nil
}

// decideFromListing sets rec's Outcome, Transaction and Payment from the
// named payment (if any) and the order's transactions.
func decideFromListing(p *SettleParams, rec *Reconciliation, named *Transaction) {
	fresh := func(t *Transaction) bool { return !slices.Contains(p.Seen, t.ID) }
	switch p.Kind {
	case KindReversal:
		payment := named
		if payment == nil {
			// The payment may be one the merchant knew of: Seen does not
			// hide it.
			payment = latest(rec.Transactions, func(t *Transaction) bool { return paymentType(t.Type) })
		}
		rec.Payment = payment
		ofPayment := func(t *Transaction) bool {
			return t.Type == TypeRefund && (payment == nil || t.ReferenceID == 0 || t.ReferenceID == payment.ID)
		}
		refund := latest(rec.Transactions, func(t *Transaction) bool { return ofPayment(t) && fresh(t) })
		switch {
		case refund != nil:
			rec.Transaction, rec.Outcome = refund, ownOutcome(refund.OriginalStatus, refund.Status)
		case payment != nil && reversedStatus(payment.Status) &&
			latest(rec.Transactions, ofPayment) == nil:
			// Reversed without a refund transaction of its own.
			rec.Transaction, rec.Outcome = payment, OutcomeSucceeded
		}
	case KindPayout:
		if t := latest(rec.Transactions, func(t *Transaction) bool { return t.Type == TypePayout && fresh(t) }); t != nil {
			rec.Transaction, rec.Outcome = t, ownOutcome(t.OriginalStatus, t.Status)
		}
	default:
		outcome := func(t *Transaction) Outcome {
			return paymentOutcome(trace{typ: t.Type, status: t.Status, own: t.OriginalStatus})
		}
		t := named
		if t == nil {
			// An order paid once is paid: a completed payment decides
			// over a later attempt still open, so that the order is never
			// charged twice.
			candidate := func(t *Transaction) bool { return paymentType(t.Type) && fresh(t) }
			t = latest(rec.Transactions, func(t *Transaction) bool { return candidate(t) && outcome(t) == OutcomeSucceeded })
			if t == nil {
				t = latest(rec.Transactions, candidate)
			}
		}
		if t != nil {
			rec.Transaction, rec.Outcome = t, outcome(t)
		}
	}
}

// latest returns the newest of ts that match keep (by creation time, then
// by id, as the gateway's order is not stated), or nil.
func latest(ts []Transaction, keep func(*Transaction) bool) *Transaction {
	var best *Transaction
	for i := range ts {
		t := &ts[i]
		if !keep(t) {
			continue
		}
		if best == nil || t.CreatedAt.After(best.CreatedAt.Time) ||
			(t.CreatedAt.Equal(best.CreatedAt.Time) && t.ID > best.ID) {
			best = t
		}
	}
	return best
}

// paymentType reports whether t is a payment from a user: payment, the
// basic form's deposit, a card verification, or untyped.
func paymentType(t TransactionType) bool {
	return t == TypePayment || t == TypeDeposit || t == TypeVerification || t == ""
}

// reversedStatus reports whether a payment reads reversed as a whole.
func reversedStatus(s Status) bool { return s == StatusRefunded || s == StatusReversed }

// trace is the part of a transaction that decides an outcome, whichever
// look-up it came from.
type trace struct {
	// typ, status (with the later effects of other transactions) and own
	// (the transaction's own last status, empty when not sent).
	typ         TransactionType
	status, own Status
}

// paymentOutcome is the outcome of a request whose trace is payment v.
// A payment completed and since refunded or charged back did go through.
func paymentOutcome(v trace) Outcome {
	switch v.status {
	case StatusRefunded, StatusReversed, StatusChargedBack, StatusRetrieved:
		return OutcomeSucceeded
	}
	own := v.own
	if own == "" {
		own = v.status
	}
	switch {
	case own == StatusCompleted || own == StatusVerified:
		return OutcomeSucceeded
	case own == StatusAuthenticating:
		return OutcomeNeedsAuthentication
	}
	return ownOutcome(own, own)
}

// ownOutcome is the outcome of a request whose trace is a refund or payout
// in its own status own (status when own was not sent).
func ownOutcome(own, status Status) Outcome {
	if own == "" {
		own = status
	}
	switch {
	case own == StatusCompleted:
		return OutcomeSucceeded
	case own.failed():
		return OutcomeFailed
	}
	return OutcomePending
}

// reversalByStatus is the outcome of a reversal whose order's or payment's
// status look-up answered v (basic form).
func reversalByStatus(v trace) Outcome {
	switch {
	case v.typ == TypeRefund:
		return ownOutcome(v.own, v.status)
	case reversedStatus(v.status):
		return OutcomeSucceeded
	case v.status == StatusCompleted:
		// A partial reversal leaves the payment completed.
		return OutcomeUndetermined
	}
	// Only a completed payment can be reversed.
	return OutcomeNotFound
}
