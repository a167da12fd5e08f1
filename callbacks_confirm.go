package paygate

import (
	"context"
	"slices"
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
}

// Confirmed reports whether every field the record carries agrees.
func (c *CallbackConfirmation) Confirmed() bool { return len(c.Mismatched) == 0 }

// Mismatches returns the callback fields that disagree with the record, or
// nil.
func (c *CallbackConfirmation) Mismatches() []string { return slices.Clone(c.Mismatched) }

// ConfirmCallback looks the callback's transaction up and compares every
// field the gateway's record can confirm:
//
//   - id: the record is the callback's transaction;
//   - reference_id: the record's reference transaction (extended form);
//   - type: the callback type is "transaction" (or absent, basic form), and
//     the record's transaction type is one the status is about: a
//     refund_completed callback is about a refund, a payout_* one about a
//     payout, a completed one about a payment (see
//     [CallbackStatus.TransactionTypes]);
//   - status: the record's current status, with the effects of later
//     transactions, is what the callback status reports (see
//     [CallbackStatus.TransactionStatuses]): a completed callback of a
//     payment refunded since, or a processing one of a payment completed
//     since, does not confirm;
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
func (c *Client) ConfirmCallback(ctx context.Context, cb *Callback, opts ...CallOption) (*CallbackConfirmation, error) {
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
		}, false)
	} else {
		tx, err := c.Transactions.Get(ctx, cb.ID, opts...)
		if err != nil {
			return nil, err
		}
		conf = compareCallback(cb, tx, true)
	}
	if !conf.Confirmed() {
		return conf, &CallbackMismatchError{ID: cb.ID, Status: cb.Status, Fields: conf.Mismatches()}
	}
	return conf, nil
}

// TransactionStatuses returns the current transaction statuses (with the
// effects of later transactions) that confirm a callback with status s, or
// nil for a status the spec does not list:
//
//	completed, penalty_completed  completed
//	waiting_approval              waiting_approval
//	processing                    processing
//	failed                        failed
//	verified                      verified
//	reversed                      reversed, refunded (basic form: the payment itself)
//	refund_completed              completed (the refund transaction itself)
//	chargeback_completed          charged_back
//	retrieval_completed           retrieved
//	payout_completed              completed
//	payout_failed                 failed
//	payout_cancelled              cancelled
//	payout_abandoned              abandoned
func (s CallbackStatus) TransactionStatuses() []Status {
	return slices.Clone(callbackTransactionStatuses[s])
}

// TransactionTypes returns the transaction types a callback with status s
// can be about, or nil for a status that does not tell.
func (s CallbackStatus) TransactionTypes() []TransactionType {
	return slices.Clone(callbackTransactionTypes[s])
}

var callbackTransactionStatuses = map[CallbackStatus][]Status{
	CallbackCompleted:           {StatusCompleted},
	CallbackWaitingApproval:     {StatusWaitingApproval},
	CallbackProcessing:          {StatusProcessing},
	CallbackFailed:              {StatusFailed},
	CallbackVerified:            {StatusVerified},
	CallbackReversed:            {StatusReversed, StatusRefunded},
	CallbackRefundCompleted:     {StatusCompleted},
	CallbackChargebackCompleted: {StatusChargedBack},
	CallbackRetrievalCompleted:  {StatusRetrieved},
	CallbackPenaltyCompleted:    {StatusCompleted},
	CallbackPayoutCompleted:     {StatusCompleted},
	CallbackPayoutFailed:        {StatusFailed},
	CallbackPayoutCancelled:     {StatusCancelled},
	CallbackPayoutAbandoned:     {StatusAbandoned},
}

// charges are the types of a transaction that takes funds from a payer
// (deposit is the basic form's name for a payment).
var charges = []TransactionType{TypePayment, TypeDeposit}

var callbackTransactionTypes = map[CallbackStatus][]TransactionType{
	CallbackCompleted:           charges,
	CallbackWaitingApproval:     charges,
	CallbackFailed:              {TypePayment, TypeDeposit, TypeVerification},
	CallbackVerified:            {TypeVerification, TypePayment, TypeDeposit},
	CallbackReversed:            charges,
	CallbackRefundCompleted:     {TypeRefund},
	CallbackChargebackCompleted: {TypePayment, TypeDeposit, TypeChargeback},
	CallbackRetrievalCompleted:  {TypePayment, TypeDeposit, TypeRetrieval},
	CallbackPenaltyCompleted:    {TypePenalty},
	CallbackPayoutCompleted:     {TypePayout},
	CallbackPayoutFailed:        {TypePayout},
	CallbackPayoutCancelled:     {TypePayout},
	CallbackPayoutAbandoned:     {TypePayout},
}

// compareCallback compares cb with the record tx; full tells whether the
// record carries the reference id and the user.
func compareCallback(cb *Callback, tx *Transaction, full bool) *CallbackConfirmation {
	conf := &CallbackConfirmation{Transaction: tx}
	check := func(field string, ok bool) {
		if !ok {
			conf.Mismatched = append(conf.Mismatched, field)
		}
	}
	sameTx := tx.ID == cb.ID
	check("id", sameTx)
	if full {
		check("reference_id", sameTx && tx.ReferenceID == cb.ReferenceID)
	}
	types := callbackTransactionTypes[cb.Status]
	// Presence, not emptiness: a swap with an empty field (reason) leaves
	// type and amount present but empty, which the record cannot confirm.
	check("type", sameTx && (!cb.raw.Has("type") || cb.Type == CallbackTypeTransaction) &&
		(types == nil || slices.Contains(types, tx.Type)))
	check("status", sameTx && slices.Contains(callbackTransactionStatuses[cb.Status], tx.Status))
	check("price", sameTx && tx.Price.Equal(cb.Price))
	if cb.raw.Has("amount") {
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
	return conf
}
