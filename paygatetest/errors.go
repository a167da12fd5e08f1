package paygatetest

import (
	"github.com/paygate/paygate-go"
)

// Codes the sandbox answers with that the gateway's table lacks.
const (
	// codeMalformedRequest answers a body that is not a form (HTTP 400).
	codeMalformedRequest paygate.ErrorCode = 40000
	// codeMethodNotFound answers an unknown path, and an extended-only
	// method asked of a basic-form project (HTTP 404).
	codeMethodNotFound paygate.ErrorCode = 40400
)

// apiError is an error answer: {"error":{"code":...,"message":...}} with
// the HTTP status of the code's first three digits.
type apiError struct {
	code    paygate.ErrorCode
	message string
	detail  string
}

func newError(code paygate.ErrorCode, detail string) *apiError {
	msg := code.String()
	switch code {
	case codeMalformedRequest:
		msg = "malformed request"
	case codeMethodNotFound:
		msg = "method not found"
	case codeForbidden:
		msg = "forbidden"
	case codeNotAllowed:
		msg = "HTTP method not allowed"
	case codeEventNotApplies:
		msg = "conflict"
	case codeBodyTooLarge:
		msg = "request body too large"
	}
	if detail != "" {
		msg += ": " + detail
	}
	return &apiError{code: code, message: msg, detail: detail}
}

// extendedOnlyCodes are the codes the spec marks "(extended form)": the
// basic form's error list lacks them.
var extendedOnlyCodes = map[paygate.ErrorCode]bool{40014: true, 40015: true, 42201: true, 50001: true}

// inBasicForm is e as a basic-form project gets it: a code the basic form
// lacks becomes 40000 with the same detail.
func (e *apiError) inBasicForm() *apiError {
	if !extendedOnlyCodes[e.code] {
		return e
	}
	detail := e.detail
	if detail == "" {
		detail = e.code.String()
	}
	return newError(codeMalformedRequest, detail)
}

// errMerchantData is the sandbox's answer to a missing or malformed
// parameter the error table has no own code for (price, currency,
// description, amount, order_id, ...): 40014 naming the parameter.
func errMerchantData(field string) *apiError {
	return newError(paygate.CodeMerchantDataMissing, field)
}
