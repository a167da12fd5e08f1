package callback

import (
	"errors"
	"net/url"

	"github.com/paygate/paygate-go/internal/signing"
	"github.com/paygate/paygate-go/internal/wire"
	"github.com/shopspring/decimal"
)

// MaxBytes is the largest callback body read: 64 KiB. A larger body
// is rejected with [ErrTooLarge] before any of it is decoded.
const MaxBytes = 64 << 10

var (
	// ErrMalformed is matched (errors.Is) by the error for a
	// correctly signed callback that cannot be read: a body that is not a
	// form, a field sent more than once, an absent or non-numeric id, an
	// absent status, a reference_id that is not numeric, money that is not
	// a plain decimal, or sandbox other than "1", "0" or "". An id or status
	// sent empty is not malformed: the spec says every parameter is present
	// but may be empty.
	ErrMalformed = errors.New("paygate: malformed callback")
	// ErrTooLarge is matched by the error for a callback body over
	// MaxBytes.
	ErrTooLarge = errors.New("paygate: callback body exceeds 64 KiB")
	// ErrMethod is matched by the error for a callback request that
	// is not a POST.
	ErrMethod = errors.New("paygate: callback request is not a POST")
	// ErrSignatureMissing is matched by the error for a callback without a
	// signature, an empty body included. It matches paygate's sentinel of
	// the gateway code 40101 too.
	ErrSignatureMissing = signing.ErrMissing
	// ErrSignatureInvalid is matched by the error for a signature made with
	// none of the keys or over other values. It matches paygate's sentinel
	// of the gateway code 40301 too.
	ErrSignatureInvalid = signing.ErrInvalid
)

// Type is the type of a callback. The basic form sends none.
type Type string

// TypeTransaction is the type of a callback fired when a
// transaction's status changes, the only type the gateway documents.
const TypeTransaction Type = "transaction"

// Callback is a verified callback: the gateway's signed POST reporting a
// change of a transaction's status. Every field of the callback is present
// in the extended form but may be empty; empty money reads as zero and an
// empty reference_id as the zero ID.
//
// The basic form sends no type and no reason, and types project, user, id
// and reference_id as integers, money as numbers and sandbox as 0 or 1;
// both forms decode to this type, and Form tells which one arrived.
//
// The signature covers the values but not the field names, so a callback
// whose values were moved between fields still verifies. Before fulfilling
// a high-value order, confirm the callback with paygate's Client.ConfirmCallback.
type Callback struct {
	// Project is the gateway's project id (integer(11)), kept as sent.
	Project string
	// User is the user id (string(128); an integer in the basic form), a
	// paygate.UserID: the same type.
	User UserID
	// ID is the transaction id (19 digits), or zero when the gateway sent
	// it empty; a paygate.ID (the same type), ready for the client's calls.
	ID ID
	// ReferenceID is the parent transaction (for refund_completed, the
	// refunded transaction), or zero.
	ReferenceID ID
	// OrderID is the merchant's order id (string(64)), if one was given.
	OrderID string
	// Amount is the amount of virtual currency to give the user,
	// decimal(9,2).
	Amount decimal.Decimal
	// Price is the transaction price, decimal(12,4), in Currency.
	Price decimal.Decimal
	// Deposit is the deposit taken from this transaction, decimal(12,4).
	Deposit decimal.Decimal
	// Earned is the merchant's revenue, decimal(12,4).
	Earned decimal.Decimal
	// VATRate is the VAT rate in the country of payment, decimal(12,4).
	VATRate decimal.Decimal
	// VATAmount is computed from Price and not subtracted from Earned,
	// decimal(12,4).
	VATAmount decimal.Decimal
	// Currency is the ISO 4217 currency of Price, Deposit and Earned.
	Currency string
	// Type is the callback type (extended form only).
	Type Type
	// Status is the callback status; a status the spec does not list is
	// kept as sent (see [Status.Known]), and so is an empty one.
	Status Status
	// Reason may explain the status (extended form only).
	Reason string
	// Sandbox is true when the project is in sandbox mode.
	Sandbox bool
	// Attrs are the custom attributes given when the payment was created,
	// sent back as attr_<name>; the keys are the names without "attr_".
	Attrs map[string]string
	// Form is FormBasic when the callback carried neither type nor reason
	// (a paygate.Form: the same type).
	Form Form
	// Stale is set by [Handler] when its store keeps order (a
	// [OrderStore]) and a later status of the same transaction was
	// processed before this callback arrived: a completed delivered after
	// the refund_completed of the same payment, for example. It is not
	// news: do not fulfil the order on a stale callback.
	Stale bool

	raw callbackFields
	// passed is set once Handler passed the callback to its function: one
	// it did not pass on was a duplicate.
	passed bool
}

// Values returns a copy of every field the callback carried, signature
// included, exactly as received.
func (c *Callback) Values() url.Values { return c.raw.values() }

// Has reports whether the callback carried the named field, empty or not.
func (c *Callback) Has(name string) bool { return c.raw.Has(name) }

// Value returns the raw value of the named field, or "" when it was not
// sent.
func (c *Callback) Value(name string) string { return c.raw.Get(name) }

// ID is a transaction id; the same type as paygate.ID.
type ID = wire.ID

// UserID is the gateway's internal user id; the same type as
// paygate.UserID.
type UserID = wire.UserID

// Form is the basic or the extended form of the gateway's interface; the
// same type as paygate.Form.
type Form = wire.Form

// The two forms, the same constants as paygate.FormExtended and
// paygate.FormBasic.
const (
	FormExtended = wire.FormExtended
	FormBasic    = wire.FormBasic
)

// Status is the status a callback (and a payout) reports.
type Status string

// Callback statuses.
const (
	Completed           Status = "completed"
	WaitingApproval     Status = "waiting_approval"
	Processing          Status = "processing"
	Failed              Status = "failed"
	Verified            Status = "verified"
	Reversed            Status = "reversed" // basic form
	RefundCompleted     Status = "refund_completed"
	ChargebackCompleted Status = "chargeback_completed"
	RetrievalCompleted  Status = "retrieval_completed"
	PenaltyCompleted    Status = "penalty_completed"
	PayoutCompleted     Status = "payout_completed"
	PayoutFailed        Status = "payout_failed"
	PayoutCancelled     Status = "payout_cancelled"
	PayoutAbandoned     Status = "payout_abandoned"
)

// statusRule is what one callback status means to the callback package:
// a row of statusRules.
type statusRule struct {
	status Status
	// stage is the position of status in the life of a transaction: see
	// [Key.Stage].
	stage int
	// follows is set when the callback is sent for a new transaction that
	// acts on its reference_id. Other callbacks may carry a reference_id
	// too (a recurring charge names the charge that started it) and are
	// ordered on their own id.
	follows bool
}

// statusRules is the one table of the callback statuses of the spec, in
// the order of the constants above: [Statuses] lists them, and every
// constant has a row (TestStatusRules_EveryConstantHasARow keeps it so),
// and Key.Stage's documentation names the stages the rows hold
// (TestKeyStage_DocSaysWhatTheTableHolds).
// What a status means to the client (the records that confirm it, what it
// observes of an order) is paygate's callbackStatuses; which changes send
// it is paygatetest's sentCallbacks.
var statusRules = [...]statusRule{
	{status: Completed, stage: 2},
	{status: WaitingApproval, stage: 1},
	{status: Processing, stage: 1},
	{status: Failed, stage: 2},
	{status: Verified, stage: 2},
	{status: Reversed, stage: 3},
	{status: RefundCompleted, stage: 3, follows: true},
	{status: ChargebackCompleted, stage: 3, follows: true},
	{status: RetrievalCompleted, stage: 4, follows: true},
	{status: PenaltyCompleted, stage: 4, follows: true},
	{status: PayoutCompleted, stage: 2},
	{status: PayoutFailed, stage: 2},
	{status: PayoutCancelled, stage: 2},
	{status: PayoutAbandoned, stage: 2},
}

// Statuses returns the callback statuses of the spec (a new slice on each
// call), for tools that list or check them.
func Statuses() []Status {
	out := make([]Status, len(statusRules))
	for i, r := range statusRules {
		out[i] = r.status
	}
	return out
}

// rule returns the row of s, or the zero row for a status the spec does
// not list.
func (s Status) rule() statusRule {
	for _, r := range statusRules {
		if r.status == s {
			return r
		}
	}
	return statusRule{}
}

// Known reports whether s is one of the callback statuses of the spec.
func (s Status) Known() bool { return s.rule().status != "" }

// stage is the position of s in the life of a transaction: see [Key.Stage].
func (s Status) stage() int { return s.rule().stage }

// follows reports whether a callback of status s is sent for a new
// transaction that acts on its reference_id.
func (s Status) follows() bool { return s.rule().follows }
