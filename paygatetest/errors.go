package paygatetest

import (
	"github.com/paygate/paygate-go"
)

// Codes the sandbox answers with that the gateway's table lacks, in the
// gateway's error object; the first three digits are the HTTP status.
const (
	// CodeMalformedRequest answers a body that is not a form (HTTP 400).
	CodeMalformedRequest paygate.ErrorCode = 40000
	// CodeForbidden answers a control-plane request without the project's
	// key or session, or a dashboard form without its token (HTTP 403).
	CodeForbidden paygate.ErrorCode = 40300
	// CodeMethodNotFound answers an unknown path, and an extended-only
	// method asked of a basic-form project (HTTP 404).
	CodeMethodNotFound paygate.ErrorCode = 40400
	// CodeNotAllowed answers a known path asked with another HTTP method
	// (HTTP 405).
	CodeNotAllowed paygate.ErrorCode = 40500
	// CodeConflict answers an operation the state refuses: an event that
	// does not apply, a callback that cannot be sent again (HTTP 409).
	CodeConflict paygate.ErrorCode = 40900
	// CodeBodyTooLarge answers a body over its bound (HTTP 413).
	CodeBodyTooLarge paygate.ErrorCode = 41300
	// CodeTooManyGuesses answers a client out of guesses of a key
	// (HTTP 429, with Retry-After).
	CodeTooManyGuesses paygate.ErrorCode = 42900
)

// Error is an error answer as the sandbox writes it (WriteError):
// {"error":{"code":...,"message":...}} with the HTTP status of the code's
// first three digits. A handler beside the sandbox (the control plane)
// answers with it so that a client reads one error object everywhere.
type Error struct {
	code    paygate.ErrorCode
	message string
	detail  string
}

// NewError is the answer code, its message followed by detail when detail
// is set. The message of each code is the gateway's (or the sandbox's, for
// the codes above), so that it is written once.
func NewError(code paygate.ErrorCode, detail string) *Error {
	msg := code.String()
	switch code {
	case CodeMalformedRequest:
		msg = "malformed request"
	case CodeMethodNotFound:
		msg = "method not found"
	case CodeForbidden:
		msg = "forbidden"
	case CodeNotAllowed:
		msg = "HTTP method not allowed"
	case CodeConflict:
		msg = "conflict"
	case CodeBodyTooLarge:
		msg = "request body too large"
	}
	if detail != "" {
		msg += ": " + detail
	}
	return &Error{code: code, message: msg, detail: detail}
}

// Code is the code of the answer.
func (e *Error) Code() paygate.ErrorCode { return e.code }

// Error is the answer's message, as the error object carries it.
func (e *Error) Error() string { return e.message }

// extendedOnlyCodes are the codes the spec marks "(extended form)": the
// basic form's error list lacks them.
var extendedOnlyCodes = map[paygate.ErrorCode]bool{40014: true, 40015: true, 42201: true, 50001: true}

// inBasicForm is e as a basic-form project gets it: a code the basic form
// lacks becomes 40000 with the same detail.
func (e *Error) inBasicForm() *Error {
	if !extendedOnlyCodes[e.code] {
		return e
	}
	detail := e.detail
	if detail == "" {
		detail = e.code.String()
	}
	return NewError(CodeMalformedRequest, detail)
}

// errMerchantData is the sandbox's answer to a missing or malformed
// parameter the error table has no own code for (price, currency,
// description, amount, order_id, ...): 40014 naming the parameter.
func errMerchantData(field string) *Error {
	return NewError(paygate.CodeMerchantDataMissing, field)
}
