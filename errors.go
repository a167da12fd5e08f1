package paygate

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/paygate/paygate-go/internal/redact"
)

// ErrorCode is the gateway's five-digit error code; its first three digits
// are the HTTP status the gateway answers with.
type ErrorCode int

// The codes of the gateway's error table.
const (
	CodeProjectKeyMissing            ErrorCode = 40001
	CodeUserIdentifierMissing        ErrorCode = 40002
	CodeCardNumberMissing            ErrorCode = 40003
	CodeCardNumberInvalid            ErrorCode = 40004
	CodeExpiryInvalid                ErrorCode = 40005
	CodeSecurityCodeMissing          ErrorCode = 40006
	CodeSecurityCodeInvalid          ErrorCode = 40007
	CodeCardTokenMissing             ErrorCode = 40008
	CodeCardDataMissing              ErrorCode = 40009
	CodeUserEmailMissing             ErrorCode = 40010
	CodeUserIPMissing                ErrorCode = 40011
	CodeExpirationMonthMissing       ErrorCode = 40012
	CodeExpirationYearMissing        ErrorCode = 40013
	CodeMerchantDataMissing          ErrorCode = 40014 // extended form
	CodeCardholderInvalid            ErrorCode = 40015 // extended form
	CodeSignatureMissing             ErrorCode = 40101
	CodeAuthTokenMissing             ErrorCode = 40102
	CodeSignatureInvalid             ErrorCode = 40301
	CodeAuthTokenInvalid             ErrorCode = 40302
	CodeAuthTokenExpired             ErrorCode = 40303
	CodeCardTokenExpired             ErrorCode = 40304
	CodeCardTokenUsed                ErrorCode = 40305
	CodePlatformTokenInvalid         ErrorCode = 40306
	CodePlatformAuthTokenInvalid     ErrorCode = 40307
	CodeUserBlocked                  ErrorCode = 40308
	CodeCardBlocked                  ErrorCode = 40309
	CodeRecurringDisabled            ErrorCode = 40310
	CodeRecurringExpired             ErrorCode = 40311
	CodeCardRememberingDisabled      ErrorCode = 40312
	CodeProjectNotFound              ErrorCode = 40401
	CodeCardTokenInvalid             ErrorCode = 40402
	CodeTransactionNotFound          ErrorCode = 40403
	CodePlatformNotFound             ErrorCode = 40404
	CodeReferenceTransactionNotFound ErrorCode = 40405
	CodeUserNotFound                 ErrorCode = 40406
	CodePlatformUserNotFound         ErrorCode = 40407
	CodeTransactionCompleted         ErrorCode = 40501
	CodeRecurringTooFrequent         ErrorCode = 40502
	CodeRecurringNotCreated          ErrorCode = 40503
	CodeNotReversible                ErrorCode = 40504
	CodeGatewayMisconfigured         ErrorCode = 42201 // extended form
	CodeTokenizationFailed           ErrorCode = 50001 // extended form
)

var codeMessages = map[ErrorCode]string{
	CodeProjectKeyMissing:            "project public key missing",
	CodeUserIdentifierMissing:        "user identifier missing",
	CodeCardNumberMissing:            "card number missing",
	CodeCardNumberInvalid:            "card number invalid",
	CodeExpiryInvalid:                "expiry invalid",
	CodeSecurityCodeMissing:          "card security code missing",
	CodeSecurityCodeInvalid:          "card security code invalid",
	CodeCardTokenMissing:             "card token missing",
	CodeCardDataMissing:              "card data missing",
	CodeUserEmailMissing:             "user e-mail missing",
	CodeUserIPMissing:                "user IP address missing",
	CodeExpirationMonthMissing:       "card expiration month missing",
	CodeExpirationYearMissing:        "card expiration year missing",
	CodeMerchantDataMissing:          "merchant data missing",
	CodeCardholderInvalid:            "cardholder invalid, more than 21 characters",
	CodeSignatureMissing:             "signature missing",
	CodeAuthTokenMissing:             "authentication token missing",
	CodeSignatureInvalid:             "signature invalid",
	CodeAuthTokenInvalid:             "authentication token invalid",
	CodeAuthTokenExpired:             "authentication token expired",
	CodeCardTokenExpired:             "card token expired",
	CodeCardTokenUsed:                "card token already used",
	CodePlatformTokenInvalid:         "platform authentication token invalid",
	CodePlatformAuthTokenInvalid:     "platform authentication token invalid",
	CodeUserBlocked:                  "user is blocked",
	CodeCardBlocked:                  "card is blocked",
	CodeRecurringDisabled:            "recurring disabled for the user",
	CodeRecurringExpired:             "recurring expired for the user",
	CodeCardRememberingDisabled:      "card remembering disabled for the project",
	CodeProjectNotFound:              "project missing",
	CodeCardTokenInvalid:             "card token invalid",
	CodeTransactionNotFound:          "transaction does not exist",
	CodePlatformNotFound:             "platform missing",
	CodeReferenceTransactionNotFound: "reference recurrent transaction missing",
	CodeUserNotFound:                 "user missing",
	CodePlatformUserNotFound:         "platform user missing",
	CodeTransactionCompleted:         "transaction already completed",
	CodeRecurringTooFrequent:         "recurring payments too frequent for the user",
	CodeRecurringNotCreated:          "unable to create recurrent transaction",
	CodeNotReversible:                "transaction cannot be reversed",
	CodeGatewayMisconfigured:         "gateway not properly configured",
	CodeTokenizationFailed:           "card tokenization error",
}

// Codes returns every code of the gateway's error table, in ascending order.
func Codes() []ErrorCode {
	return []ErrorCode{
		40001, 40002, 40003, 40004, 40005, 40006, 40007, 40008, 40009, 40010, 40011, 40012, 40013, 40014, 40015,
		40101, 40102,
		40301, 40302, 40303, 40304, 40305, 40306, 40307, 40308, 40309, 40310, 40311, 40312,
		40401, 40402, 40403, 40404, 40405, 40406, 40407,
		40501, 40502, 40503, 40504,
		42201, 50001,
	}
}

// HTTPStatus is the HTTP status the gateway answers with for the code: its
// first three digits.
func (c ErrorCode) HTTPStatus() int { return int(c) / 100 }

// String returns the meaning of the code as the spec states it, or the
// number for a code the spec does not list.
func (c ErrorCode) String() string {
	if m, ok := codeMessages[c]; ok {
		return m
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
	// card data, every value the request sent but those that identify it
	// (project, order id, price, amount, currency, signature) is masked in
	// it.
	Message string
	// Body is a short excerpt of a body that was not a gateway error object,
	// with anything that looks like a card number masked. It is always
	// empty for a request that carried card data (a charge with a card or a
	// token, Tokenize, a payout, Authenticate) or for a redirect: such a
	// body may echo the request.
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
// errors.Is matches the sentinels whatever HTTP status carried the code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code != 0 && t.Code == e.Code
}

func codeError(c ErrorCode) *Error {
	return &Error{HTTPStatus: c.HTTPStatus(), Code: c, Message: codeMessages[c]}
}

// Sentinels for every code of the gateway's error table, for errors.Is.
var (
	ErrProjectKeyMissing            = codeError(CodeProjectKeyMissing)
	ErrUserIdentifierMissing        = codeError(CodeUserIdentifierMissing)
	ErrCardNumberMissing            = codeError(CodeCardNumberMissing)
	ErrCardNumberInvalid            = codeError(CodeCardNumberInvalid)
	ErrExpiryInvalid                = codeError(CodeExpiryInvalid)
	ErrSecurityCodeMissing          = codeError(CodeSecurityCodeMissing)
	ErrSecurityCodeInvalid          = codeError(CodeSecurityCodeInvalid)
	ErrCardTokenMissing             = codeError(CodeCardTokenMissing)
	ErrCardDataMissing              = codeError(CodeCardDataMissing)
	ErrUserEmailMissing             = codeError(CodeUserEmailMissing)
	ErrUserIPMissing                = codeError(CodeUserIPMissing)
	ErrExpirationMonthMissing       = codeError(CodeExpirationMonthMissing)
	ErrExpirationYearMissing        = codeError(CodeExpirationYearMissing)
	ErrMerchantDataMissing          = codeError(CodeMerchantDataMissing)
	ErrCardholderInvalid            = codeError(CodeCardholderInvalid)
	ErrAuthTokenMissing             = codeError(CodeAuthTokenMissing)
	ErrAuthTokenInvalid             = codeError(CodeAuthTokenInvalid)
	ErrAuthTokenExpired             = codeError(CodeAuthTokenExpired)
	ErrCardTokenExpired             = codeError(CodeCardTokenExpired)
	ErrCardTokenUsed                = codeError(CodeCardTokenUsed)
	ErrPlatformTokenInvalid         = codeError(CodePlatformTokenInvalid)
	ErrPlatformAuthTokenInvalid     = codeError(CodePlatformAuthTokenInvalid)
	ErrUserBlocked                  = codeError(CodeUserBlocked)
	ErrCardBlocked                  = codeError(CodeCardBlocked)
	ErrRecurringDisabled            = codeError(CodeRecurringDisabled)
	ErrRecurringExpired             = codeError(CodeRecurringExpired)
	ErrCardRememberingDisabled      = codeError(CodeCardRememberingDisabled)
	ErrProjectNotFound              = codeError(CodeProjectNotFound)
	ErrCardTokenInvalid             = codeError(CodeCardTokenInvalid)
	ErrTransactionNotFound          = codeError(CodeTransactionNotFound)
	ErrPlatformNotFound             = codeError(CodePlatformNotFound)
	ErrReferenceTransactionNotFound = codeError(CodeReferenceTransactionNotFound)
	ErrUserNotFound                 = codeError(CodeUserNotFound)
	ErrPlatformUserNotFound         = codeError(CodePlatformUserNotFound)
	ErrTransactionCompleted         = codeError(CodeTransactionCompleted)
	ErrRecurringTooFrequent         = codeError(CodeRecurringTooFrequent)
	ErrRecurringNotCreated          = codeError(CodeRecurringNotCreated)
	ErrNotReversible                = codeError(CodeNotReversible)
	ErrGatewayMisconfigured         = codeError(CodeGatewayMisconfigured)
	ErrTokenizationFailed           = codeError(CodeTokenizationFailed)
)

// ErrSignatureMissing (40101) and ErrSignatureInvalid (40301) are declared
// in signature.go: the gateway's codes and the local verifier share them.

// ErrOutcomeUnknown is matched (errors.Is) by the error of a payment,
// payout or reversal request that may have reached the gateway but got no
// usable answer. The SDK never sends such a request again by itself: look
// the order up (see [TransactionsService.Reconcile]) before deciding.
var ErrOutcomeUnknown = errors.New("paygate: outcome unknown")

// OutcomeUnknownError is the error of a non-idempotent request that may have
// been processed by the gateway. It matches [ErrOutcomeUnknown].
type OutcomeUnknownError struct {
	// Method and Path name the request, for example POST card/process.
	Method, Path string
	// OrderID is the merchant order id the request carried, if any: the key
	// to look the outcome up with.
	OrderID string
	// TransactionID is the transaction the request named (a reversal by
	// id), if any: look its status up to see whether it was reversed.
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

// Is makes errors.Is(err, ErrOutcomeUnknown) true.
func (e *OutcomeUnknownError) Is(target error) bool { return target == ErrOutcomeUnknown }

// Unwrap returns the underlying failure.
func (e *OutcomeUnknownError) Unwrap() error { return e.Err }

// NetworkError is the error of a request that got no HTTP answer at all,
// after the retries the policy allowed.
type NetworkError struct {
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
type ValidationError struct {
	Field  string
	Reason string
}

// Error implements the error interface.
func (e *ValidationError) Error() string {
	return "paygate: invalid parameter " + e.Field + ": " + e.Reason
}

// ErrBasicForm is matched (errors.Is) by the error of a call the basic form
// of the API does not offer, made on a client configured for it.
var ErrBasicForm = errors.New("paygate: not available in the basic form")
