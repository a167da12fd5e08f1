package paygate

import (
	"context"
	"slices"

	"github.com/paygate/paygate-go/callback"
)

// CallbackConfirmation compares a callback with the gateway's own record of
// its transaction.
type CallbackConfirmation struct {
	// Transaction is the gateway's record: GET transactions/{id} in the
	// extended form; in the basic form, which lacks that endpoint, GET
	// transaction/status, which carries no reference id and no user.
	Transaction *Transaction
	// Mismatched lists the callback fields that disagree with the record,
	// by their callback names, in the order id, reference_id, type, status,
	// price, amount, currency, order_id, user; nil when all agree.
	Mismatched []string
	// Unconfirmed lists the fields the record could not confirm because it
	// does not carry them (basic form: reference_id and user).
	Unconfirmed []string

	superseded bool
}

// Superseded reports whether the callback was the truth once and its
// transaction has moved on since: status is the one field that disagrees,
// and the record reads a status of a later stage ([callback.Key.Stage])
// that a later callback of the same transaction reports (a completed
// payment refunded or charged back since, a processing one completed
// since). Acknowledge such a callback without acting on it: the later
// callback carries the truth. Values moved between fields never leave
// status alone in disagreement, so a forgery is not superseded.
func (c *CallbackConfirmation) Superseded() bool { return c.superseded }

// Confirmed reports whether every field the record carries agrees.
func (c *CallbackConfirmation) Confirmed() bool { return len(c.Mismatched) == 0 }

// Mismatches returns the callback fields that disagree with the record, or
// nil.
func (c *CallbackConfirmation) Mismatches() []string { return slices.Clone(c.Mismatched) }

// ConfirmCallback looks the callback's transaction (its id) up and
// compares every field the gateway's record can confirm:
//
//   - id: the record is the callback's transaction;
//   - type and status: the callback type is "transaction" (or absent,
//     basic form), and the record has one of the shapes the callback
//     status may be about (see [CallbackShapes]): a transaction of
//     one of the shape's types that reads one of its statuses now, with
//     the effects of later transactions. A completed callback of a payment
//     refunded since, or a processing one of a payment completed since,
//     does not confirm: it is no longer the truth;
//   - reference_id (extended form): the record's parent, whatever the
//     shape, since a callback's reference_id is always the parent of the
//     transaction its id names. A refund, chargeback, retrieval or penalty
//     ([CallbackShape.Child]) has one, so the callback must name it; a
//     chargeback_completed sent for the payment itself (reading
//     charged_back) carries the payment's own parent, empty unless the
//     payment follows another (a recurring charge names the charge that
//     started it). In the basic form the record has no reference id: only
//     a child's must be present;
//   - price, and amount when sent (even empty): equal to the record's
//     price as numbers (the callback sends four decimals, the record two;
//     the gateway fills amount with the price);
//   - currency, order_id;
//   - user: the record's user id (extended form).
//
// The gateway signs the values of a callback but not their field names, so
// a genuine callback whose values were moved between fields (id and
// reference_id of a refund, amount and user) still verifies; the record
// tells them apart. Confirm a callback before fulfilling an order, shipping
// goods or recording a refund.
//
// When a field disagrees the confirmation is returned together with a
// *CallbackMismatchError (errors.Is ErrCallbackNotConfirmed) listing the
// fields; when the look-up fails only its error is returned (the
// transaction may not exist: an id swapped in from elsewhere).
func (c *Client) ConfirmCallback(ctx context.Context, cb *callback.Callback, opts ...CallOption) (*CallbackConfirmation, error) {
	if cb == nil || cb.ID == 0 {
		return nil, &ValidationError{Field: "id", Reason: "the callback carries no transaction id"}
	}
	var conf *CallbackConfirmation
	if c.form == FormBasic {
		st, err := c.Transactions.Status(ctx, &TransactionStatusParams{ID: cb.ID}, opts...)
		if err != nil {
			return nil, err
		}
		conf = compareCallback(cb, &Transaction{
			ID: st.ID, OrderID: st.OrderID, Price: st.Price, Fee: st.Fee, Currency: st.Currency, Type: st.Type,
			Status: st.Status, OriginalStatus: st.OriginalStatus, CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt,
		}, FormBasic)
	} else {
		tx, err := c.Transactions.Get(ctx, cb.ID, opts...)
		if err != nil {
			return nil, err
		}
		conf = compareCallback(cb, tx, FormExtended)
	}
	if !conf.Confirmed() {
		return conf, &CallbackMismatchError{ID: cb.ID, Status: cb.Status, Fields: conf.Mismatches(), Superseded: conf.superseded}
	}
	return conf, nil
}

// CallbackShape is one kind of gateway record a callback status may be
// about: the transaction the callback's id names has one of Types and
// reads one of Statuses now.
type CallbackShape struct {
	// Types are the record's possible transaction types (the basic form
	// calls a payment a deposit).
	Types []TransactionType
	// Statuses are the record's current statuses, with the effects of
	// later transactions, that confirm the callback.
	Statuses []Status
	// Child is set when the record is the transaction the event made (a
	// refund, a chargeback, a retrieval, a penalty): the callback's
	// reference_id must name its parent, the transaction acted on.
	Child bool
	// BasicOnly is set for a shape only the basic form sends.
	BasicOnly bool
}

// CallbackShapes returns the records that confirm a callback with status s, in
// either form unless BasicOnly, or nil for a status the spec does not
// list, which never confirms:
//
//	completed            payment or deposit: completed
//	waiting_approval     payment or deposit: waiting_approval; payout: waiting_approval
//	processing           payment, deposit or verification: processing; payout: processing
//	failed               payment, deposit or verification: failed
//	verified             payment, deposit or verification: verified
//	reversed             payment or deposit: reversed or refunded
//	refund_completed     refund (child): completed; basic form: payment or deposit: refunded
//	chargeback_completed chargeback (child): completed; payment or deposit: charged_back
//	retrieval_completed  retrieval (child): completed; payment or deposit: retrieved
//	penalty_completed    penalty (child): completed
//	payout_completed     payout: completed
//	payout_failed        payout: failed
//	payout_cancelled     payout: cancelled
//	payout_abandoned     payout: abandoned
//
// For refund_completed, chargeback_completed and retrieval_completed the
// gateway (and the sandbox) sends the first shape, the child; the second
// reports the same change on the transaction acted on, and confirms too.
// A payout is processing first and may be held for approval, so those two
// statuses are about a payout as well as a payment.
func CallbackShapes(s callback.Status) []CallbackShape {
	out := slices.Clone(callbackStatuses[s].shapes)
	for i := range out {
		out[i].Types, out[i].Statuses = slices.Clone(out[i].Types), slices.Clone(out[i].Statuses)
	}
	return out
}

// sentIn reports whether the gateway sends the shape in form.
func (sh CallbackShape) sentIn(form Form) bool { return !sh.BasicOnly || form == FormBasic }

// shapeFor returns the shape of status s whose types include typ in form,
// and whether s has shapes in form at all.
func shapeFor(s callback.Status, typ TransactionType, form Form) (shape *CallbackShape, listed bool) {
	shapes := callbackStatuses[s].shapes
	for i, sh := range shapes {
		if !sh.sentIn(form) {
			continue
		}
		listed = true
		if slices.Contains(sh.Types, typ) {
			return &shapes[i], true
		}
	}
	return nil, listed
}

// compareCallback compares cb with the record tx, read in form: the
// extended form's record carries the reference id and the user.
func compareCallback(cb *callback.Callback, tx *Transaction, form Form) *CallbackConfirmation {
	conf := &CallbackConfirmation{Transaction: tx}
	check := func(field string, ok bool) {
		if !ok {
			conf.Mismatched = append(conf.Mismatched, field)
		}
	}
	full := form != FormBasic
	sameTx := tx.ID == cb.ID
	shape, listed := shapeFor(cb.Status, tx.Type, form)
	check("id", sameTx)
	child := shape != nil && shape.Child
	if full {
		check("reference_id", sameTx && tx.ReferenceID == cb.ReferenceID && (!child || cb.ReferenceID != 0))
	} else if child {
		check("reference_id", cb.ReferenceID != 0)
	}
	// Presence, not emptiness: a swap with an empty field (reason) leaves
	// type and amount present but empty, which the record cannot confirm.
	// A status no shape lists is reported on status alone.
	check("type", sameTx && (!cb.Has("type") || cb.Type == callback.TypeTransaction) && (shape != nil || !listed))
	check("status", sameTx && statusConfirms(cb.Status, shape, tx.Status, form))
	check("price", sameTx && tx.Price.Equal(cb.Price))
	if cb.Has("amount") {
		check("amount", sameTx && tx.Price.Equal(cb.Amount))
	}
	check("currency", sameTx && tx.Currency == cb.Currency)
	check("order_id", sameTx && tx.OrderID == cb.OrderID)
	if full {
		var user UserID
		if tx.User != nil {
			user = tx.User.ID
		}
		check("user", sameTx && user == cb.User)
	} else {
		conf.Unconfirmed = []string{"reference_id", "user"}
	}
	conf.superseded = slices.Equal(conf.Mismatched, []string{"status"}) && laterStatus(cb.Status, tx, form)
	return conf
}

// laterStatus reports whether the record tx has a shape of a callback
// status of a later stage than s: the transaction moved on since a
// callback of status s was sent.
func laterStatus(s callback.Status, tx *Transaction, form Form) bool {
	stage := callback.Key{Status: s}.Stage()
	for _, later := range callback.Statuses() {
		if (callback.Key{Status: later}).Stage() <= stage {
			continue
		}
		if shape, _ := shapeFor(later, tx.Type, form); shape != nil && slices.Contains(shape.Statuses, tx.Status) {
			return true
		}
	}
	return false
}

// statusConfirms reports whether the record's status is one shape lists
// or, when the record's type fits no shape (reported on type), one any
// shape of s in form lists.
func statusConfirms(s callback.Status, shape *CallbackShape, status Status, form Form) bool {
	if shape != nil {
		return slices.Contains(shape.Statuses, status)
	}
	for _, sh := range callbackStatuses[s].shapes {
		if sh.sentIn(form) && slices.Contains(sh.Statuses, status) {
			return true
		}
	}
	return false
}
