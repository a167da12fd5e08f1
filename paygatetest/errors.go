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
	return &apiError{code: code, message: msg}
}

// errMerchantData is the sandbox's answer to a missing or malformed
// parameter the error table has no own code for (price, currency,
// description, amount, order_id, ...): 40014 naming the parameter.
func errMerchantData(field string) *apiError {
	return newError(paygate.CodeMerchantDataMissing, field)
}
