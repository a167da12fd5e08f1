package paygate

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/redact"
	"github.com/paygate/paygate-go/internal/signing"
	"github.com/paygate/paygate-go/internal/wire"
)

// ErrorCode is the gateway's five-digit error code; its first three digits
// are the HTTP status the gateway answers with.
type ErrorCode int

//go:generate go run ./internal/cmd/gencodes -table internal/cmd/gencodes/errors.md -out errors_codes.go

// codeEntry is a row of the gateway's error table (codeTable, generated
// from the spec).
type codeEntry struct {
	code    ErrorCode
	status  int
	message string
}

// codeIndex finds a code's row of codeTable.
var codeIndex = func() map[ErrorCode]codeEntry {
	m := make(map[ErrorCode]codeEntry, len(codeTable))
	for _, e := range codeTable {
		m[e.code] = e
	}
	return m
}()

// Codes returns every code of the gateway's error table, in ascending
// order. ErrorCode is an open set of numbers, so this is the one way to
// enumerate the codes: for a merchant's test that their handling of
// gateway errors covers every code, or to set up per-code metrics.
func Codes() []ErrorCode {
	out := make([]ErrorCode, len(codeTable))
	for i, e := range codeTable {
		out[i] = e.code
	}
	return out
}

// Known reports whether c is a code of the gateway's error table (see
// [Codes]). A metric labelled by code should label the others alike
// ("other"): ErrorCode is an open set of numbers, and a gateway or a proxy
// answering a new one at every call would make a series of each.
func (c ErrorCode) Known() bool {
	_, ok := codeIndex[c]
	return ok
}

// HTTPStatus is the HTTP status the gateway answers with for the code: the
// error table's, which is always its first three digits.
func (c ErrorCode) HTTPStatus() int {
	if e, ok := codeIndex[c]; ok {
		return e.status
	}
	return int(c) / 100
}

// String returns the meaning of the code as the spec states it, or the
// number for a code the spec does not list.
func (c ErrorCode) String() string {
	if e, ok := codeIndex[c]; ok {
		return e.message
	}
	return strconv.Itoa(int(c))
}

// Error is an error answered by the gateway, or an HTTP failure that carried
// no gateway error object (an HTML page from a proxy, an empty body).
//
// Match a specific gateway error with errors.Is and the sentinels of this
// package, which compare by code:
//
//	if errors.Is(err, paygate.ErrCardTokenUsed) { ... }
//
// or get at the details with errors.As.
type Error struct {
	// HTTPStatus is the status of the HTTP response.
	HTTPStatus int
	// Code is the gateway's five-digit code; zero when the body held no
	// gateway error object.
	Code ErrorCode
	// Message is the gateway's message, or a description of the failure
	// (a refused redirect, a withheld body). For a request that carried
	// card data, and for every raw call (Client.Call), every value the
	// request sent but those that identify it (project, order id,
	// transaction id, price, amount, currency, signature) is masked in it,
	// also where the message reformats it (see Client.Call).
	Message string
	// Body is a short excerpt of a body that was not a gateway error object,
	// with anything that looks like a card number masked. It is always
	// empty for a request that carried card data (a charge with a card or a
	// token, Tokenize, a payout, Authenticate), for a raw call or for a
	// redirect: such a body may echo the request.
	Body string
	// Attempts is how many times the request was sent.
	Attempts int
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Code == 0 {
		s := fmt.Sprintf("paygate: HTTP %d without a gateway error object", e.HTTPStatus)
		if e.Message != "" {
			s += ": " + e.Message
		}
		if e.Body != "" {
			s += ": " + strconv.Quote(e.Body)
		}
		return s
	}
	msg := e.Message
	if msg == "" {
		msg = e.Code.String()
	}
	if e.HTTPStatus == 0 {
		return fmt.Sprintf("paygate: %s (%d)", msg, e.Code)
	}
	return fmt.Sprintf("paygate: %s (%d, HTTP %d)", msg, e.Code, e.HTTPStatus)
}

// Is reports whether target is an *Error with the same non-zero code, so that
// errors.Is matches the sentinels whatever HTTP status carried the code, or
// callback.ErrSignatureMissing or ErrSignatureInvalid for their codes.
func (e *Error) Is(target error) bool {
	switch target {
	case signing.ErrMissing:
		return e.Code == CodeSignatureMissing
	case signing.ErrInvalid:
		return e.Code == CodeSignatureInvalid
	}
	t, ok := target.(*Error)
	return ok && t.Code != 0 && t.Code == e.Code
}

// codeError is the sentinel of c.
func codeError(c ErrorCode) *Error {
	return &Error{HTTPStatus: c.HTTPStatus(), Code: c, Message: codeIndex[c].message}
}

// ErrOutcomeUnknown is matched (errors.Is) by the error of a payment,
// payout or reversal request that may have reached the gateway but got no
// usable answer. The SDK never sends such a request again by itself: settle
// it first (see [TransactionsService.Settle]) before deciding.
var ErrOutcomeUnknown = errors.New("paygate: outcome unknown")

// OutcomeUnknownError is the error of a non-idempotent request that may have
// been processed by the gateway. It matches [ErrOutcomeUnknown].
type OutcomeUnknownError struct {
	// Method and Path name the request, for example POST card/process; a
	// raw call's Path is its operation, never the path it was given (see
	// Client.Call).
	Method, Path string
	// Kind is the operation the request performed, which says what
	// settling it looks for; empty for a request Settle does not settle
	// (user/resolve and the recurring changes, which can simply be sent
	// again).
	Kind OperationKind
	// OrderID is the merchant order id the request carried, if any: the key
	// to look the outcome up with. A bound Authenticate fills in its
	// payment's order.
	OrderID string
	// TransactionID is the payment the request named (a reversal by id, a
	// bound Authenticate), if any.
	TransactionID ID
	// Attempts is how many times the request was sent (earlier attempts
	// provably never left the machine).
	Attempts int
	// Err is what went wrong after the request was sent.
	Err error
}

// Error implements the error interface.
func (e *OutcomeUnknownError) Error() string {
	s := "paygate: " + e.Method + " " + e.Path
	switch {
	case e.OrderID != "":
		s += " for order " + strconv.Quote(e.OrderID) + ": outcome unknown, the gateway may have processed it (look the order up before retrying): "
	case e.TransactionID != 0:
		s += " for transaction " + e.TransactionID.String() + ": outcome unknown, the gateway may have processed it (look the transaction up before retrying): "
	default:
		s += ": outcome unknown, the gateway may have processed it: "
	}
	return s + e.Err.Error()
}

// SettleParams returns what [TransactionsService.Settle] needs to settle
// the request: its kind, order id and payment id.
func (e *OutcomeUnknownError) SettleParams() *TransactionSettleParams {
	return &TransactionSettleParams{Kind: e.Kind, OrderID: e.OrderID, TransactionID: e.TransactionID}
}

// Is makes errors.Is(err, ErrOutcomeUnknown) true.
func (e *OutcomeUnknownError) Is(target error) bool { return target == ErrOutcomeUnknown }

// Unwrap returns the underlying failure.
func (e *OutcomeUnknownError) Unwrap() error { return e.Err }

// ErrListingBound is matched (errors.Is) by a [*ListingBoundError].
var ErrListingBound = errors.New("paygate: listing reached its bound")

// ListingBoundError stops a walk over a listing ([TransactionsService.All],
// Reconcile, Settle) that reached its bound (see [ListBound]) before the
// gateway said it had ended: an answer that never stops sending full pages
// would otherwise be read for ever.
type ListingBoundError struct {
	// OrderID is the order whose transactions were listed.
	OrderID string
	// Bound is the bound that was reached.
	Bound ListBound
	// Pages and Items are how many pages were fetched and transactions
	// read before stopping.
	Pages, Items int
}

// Error implements the error interface.
func (e *ListingBoundError) Error() string {
	return fmt.Sprintf("paygate: GET transactions for order %q stopped at its bound of %d pages or %d transactions (read %d pages, %d transactions) before the listing ended",
		e.OrderID, e.Bound.Pages, e.Bound.Items, e.Pages, e.Items)
}

// Is makes errors.Is(err, ErrListingBound) true.
func (e *ListingBoundError) Is(target error) bool { return target == ErrListingBound }

// NetworkError is the error of a request that got no HTTP answer at all,
// after the retries the policy allowed.
type NetworkError struct {
	// Method and Path name the request as OutcomeUnknownError's do.
	Method, Path string
	// Attempts is how many times the request was sent.
	Attempts int
	Err      error
}

// Error implements the error interface.
func (e *NetworkError) Error() string {
	return fmt.Sprintf("paygate: %s %s failed after %d attempt(s): %v", e.Method, e.Path, e.Attempts, e.Err)
}

// Unwrap returns the last transport error.
func (e *NetworkError) Unwrap() error { return e.Err }

// ResponseError reports a successful HTTP answer whose body could not be
// understood: not JSON, the wrong JSON types, or a required field missing.
type ResponseError struct {
	// Method and Path name the request as OutcomeUnknownError's do.
	Method, Path string
	HTTPStatus   int
	// Field is the JSON field at fault, when one is known.
	Field string
	Err   error
}

// Error implements the error interface.
func (e *ResponseError) Error() string {
	s := fmt.Sprintf("paygate: malformed response to %s %s (HTTP %d)", e.Method, e.Path, e.HTTPStatus)
	if e.Field != "" {
		s += ": field " + strconv.Quote(e.Field)
	}
	// A hostile body can make a decoder quote a huge value, or a card
	// number: keep 300 bytes, with card-like digit runs masked.
	msg := e.Err.Error()
	excerpt := redact.Excerpt([]byte(msg), 300)
	if len(msg) > 300 {
		excerpt += "..."
	}
	return s + ": " + excerpt
}

// Unwrap returns the decoding failure.
func (e *ResponseError) Unwrap() error { return e.Err }

// ValidationError reports a parameter the SDK rejected before sending
// anything. Field is the parameter's name as the gateway knows it (for
// example "order_id" or "card[number]"); the value itself is never quoted.
// Package callback returns the same type.
type ValidationError = wire.ValidationError

// ErrBasicForm is matched (errors.Is) by the error of a call the basic form
// of the API does not offer, made on a client configured for it.
var ErrBasicForm = errors.New("paygate: not available in the basic form")

// ErrACSReturnMismatch is matched (errors.Is) by an *ACSReturnMismatchError.
var ErrACSReturnMismatch = errors.New("paygate: 3-D Secure return does not belong to this payment")

// ACSReturnMismatchError is the error of a bound Authenticate (see
// [CardsService.Authenticate]) whose 3-D Secure return does not belong to
// the expected payment or order. Leave the order as it is.
type ACSReturnMismatchError struct {
	// PaymentID and OrderID are what the return was expected for.
	PaymentID ID
	OrderID   string
	// FoundOrderID is the order of the payment looked up, when the payment
	// belongs to another order (refused before anything was sent).
	FoundOrderID string
	// AuthenticatedID is the payment the gateway authenticated instead,
	// when the return belonged to another payment (refused after the call:
	// that other payment went on through its own 3-D Secure step).
	AuthenticatedID ID
	// Err is the gateway's refusal when the return belonged to another
	// payment, already completed (40501, ErrTransactionCompleted), while
	// the expected one still waits for 3-D Secure.
	Err error
}

// Error implements the error interface.
func (e *ACSReturnMismatchError) Error() string {
	switch {
	case e.AuthenticatedID != 0:
		return fmt.Sprintf("paygate: the 3-D Secure return belonged to transaction %s, not to payment %s", e.AuthenticatedID, e.PaymentID)
	case e.Err != nil:
		return fmt.Sprintf("paygate: the 3-D Secure return belonged to another transaction, already completed, not to payment %s (%v)", e.PaymentID, e.Err)
	}
	return fmt.Sprintf("paygate: payment %s belongs to order %q, not to order %q; nothing was sent", e.PaymentID, e.FoundOrderID, e.OrderID)
}

// Is makes errors.Is(err, ErrACSReturnMismatch) true.
func (e *ACSReturnMismatchError) Is(target error) bool { return target == ErrACSReturnMismatch }

// Unwrap returns the gateway's refusal, if any.
func (e *ACSReturnMismatchError) Unwrap() error { return e.Err }

// ErrCallbackNotConfirmed is matched (errors.Is) by a *CallbackMismatchError.
var ErrCallbackNotConfirmed = errors.New("paygate: callback not confirmed by the gateway's record")

// CallbackMismatchError is the error of ConfirmCallback for a callback that
// disagrees with the gateway's record of its transaction: a callback whose
// values were moved between fields, one replayed after its transaction moved
// on (a completed payment since refunded), or one read while the
// transaction is still changing. Do not act on such a callback.
type CallbackMismatchError struct {
	// ID and Status are the callback's.
	ID     ID
	Status callback.Status
	// Fields are the callback fields that disagree (see
	// CallbackConfirmation.Mismatched).
	Fields []string
	// Superseded is set when the callback was the truth once and its
	// transaction has moved on since (see CallbackConfirmation.Superseded):
	// acknowledge it without acting on it.
	Superseded bool
}

// Error implements the error interface. It names the fields, never their
// values.
func (e *CallbackMismatchError) Error() string {
	return "paygate: " + string(e.Status) + " callback for transaction " + e.ID.String() +
		" disagrees with the gateway's record on: " + strings.Join(e.Fields, ", ")
}

// Is makes errors.Is(err, ErrCallbackNotConfirmed) true.
func (e *CallbackMismatchError) Is(target error) bool { return target == ErrCallbackNotConfirmed }

// ErrDeclined is matched (errors.Is) by a [*DeclinedError].
var ErrDeclined = errors.New("paygate: declined by the gateway")

// DeclinedError reports a request the gateway answered with success false
// and no error object: it received the request and refused it. Unlike an
// unknown outcome, nothing happened, so the caller decides what next (the
// gateway gives no reason; its status look-ups may tell more).
type DeclinedError struct {
	// Method and Path name the request, for example POST transaction/reverse.
	Method, Path string
	// ID and Status are the transaction or payout id and status the answer
	// carried, when it carried them.
	ID     ID
	Status string
}

// Error implements the error interface.
func (e *DeclinedError) Error() string {
	s := "paygate: " + e.Method + " " + e.Path + " declined: the gateway answered success false"
	if e.ID != 0 {
		s += " for id " + e.ID.String()
	}
	if e.Status != "" {
		s += " with status " + strconv.Quote(e.Status)
	}
	return s
}

// Is makes errors.Is(err, ErrDeclined) true.
func (e *DeclinedError) Is(target error) bool { return target == ErrDeclined }

// MissingParametersError lists the required payout parameters that have no
// value. errors.As also reaches a *ValidationError for the first of them.
type MissingParametersError struct {
	// Names are the wire names, in the order the gateway listed them.
	Names []string
}

// Error implements the error interface.
func (e *MissingParametersError) Error() string {
	return "paygate: missing required payout parameters: " + strings.Join(e.Names, ", ")
}

// Unwrap returns a *ValidationError per missing parameter.
func (e *MissingParametersError) Unwrap() []error {
	errs := make([]error, len(e.Names))
	for i, n := range e.Names {
		errs[i] = &ValidationError{Field: n, Reason: "is required for this payout"}
	}
	return errs
}

// fieldError is a required or essential field that is missing or cannot be
// read: it fails the call.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// missingFieldError names a field the gateway always sends but did not.
type missingFieldError struct{ field string }

func (e *missingFieldError) Error() string { return "required field " + e.field + " is missing" }

// scrubbedError is an error whose text has the values of a card-bearing
// request masked.
type scrubbedError struct {
	err  error
	sent sentSecrets
}

func (e *scrubbedError) Error() string { return e.sent.mask(e.err.Error()) }

// Unwrap returns the original error, for errors.Is and errors.As.
func (e *scrubbedError) Unwrap() error { return e.err }

// Format prints the masked text for every verb, so that %+v and %#v show
// no more than Error.
func (e *scrubbedError) Format(f fmt.State, _ rune) { io.WriteString(f, e.Error()) }
