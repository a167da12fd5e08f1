package paygate

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Merchants read these messages in their logs: each code prints the
// meaning the spec's error table gives it.
func TestErrorCode_StringIsTheSpecsMeaning(t *testing.T) {
	spec := map[ErrorCode]string{
		40001: "project public key missing",
		40002: "user identifier missing",
		40003: "card number missing",
		40004: "card number invalid",
		40005: "expiry invalid",
		40006: "card security code missing",
		40007: "card security code invalid",
		40008: "card token missing",
		40009: "card data missing",
		40010: "user e-mail missing",
		40011: "user IP address missing",
		40012: "card expiration month missing",
		40013: "card expiration year missing",
		40014: "merchant data missing",
		40015: "cardholder invalid, more than 21 characters",
		40101: "signature missing",
		40102: "authentication token missing",
		40301: "signature invalid",
		40302: "authentication token invalid",
		40303: "authentication token expired",
		40304: "card token expired",
		40305: "card token already used",
		40306: "platform authentication token invalid",
		40307: "platform authentication token invalid",
		40308: "user is blocked",
		40309: "card is blocked",
		40310: "recurring disabled for the user",
		40311: "recurring expired for the user",
		40312: "card remembering disabled for the project",
		40401: "project missing",
		40402: "card token invalid",
		40403: "transaction does not exist",
		40404: "platform missing",
		40405: "reference recurrent transaction missing",
		40406: "user missing",
		40407: "platform user missing",
		40501: "transaction already completed",
		40502: "recurring payments too frequent for the user",
		40503: "unable to create recurrent transaction",
		40504: "transaction cannot be reversed",
		42201: "gateway not properly configured",
		50001: "card tokenization error",
	}
	assert.Len(t, Codes(), len(spec), "every code of the table is listed")
	for _, c := range Codes() {
		assert.Equal(t, spec[c], c.String(), "%d", int(c))
		assert.Equal(t, int(c)/100, c.HTTPStatus(), "%d", int(c))
		assert.True(t, c.Known(), "%d", int(c))
	}
	for _, c := range []ErrorCode{0, 40000, 40016, 40999, 46001, 99999, -1} {
		assert.False(t, c.Known(), "%d is not in the table", int(c))
	}
	assert.Equal(t, "40999", ErrorCode(40999).String(), "an unlisted code prints as its number")
	assert.Equal(t, "0", ErrorCode(0).String())
}

func TestError_ErrorText(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"sentinel", ErrCardTokenUsed, "paygate: card token already used (40305, HTTP 403)"},
		{"the gateway's own message", &Error{HTTPStatus: 400, Code: CodeSignatureMissing, Message: "Signature is missing"},
			"paygate: Signature is missing (40101, HTTP 400)"},
		{"no message: the code's meaning", &Error{HTTPStatus: 404, Code: CodeTransactionNotFound}, "paygate: transaction does not exist (40403, HTTP 404)"},
		{"an unlisted code without message", &Error{HTTPStatus: 409, Code: 40901}, "paygate: 40901 (40901, HTTP 409)"},
		{"no HTTP status", &Error{Code: CodeCardBlocked, Message: "card is blocked"}, "paygate: card is blocked (40309)"},
		{"no gateway error object", &Error{HTTPStatus: 502}, "paygate: HTTP 502 without a gateway error object"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error(), tt.name)
	}
	withBody := (&Error{HTTPStatus: 502, Body: "<html>Bad Gateway</html>"}).Error()
	assert.Contains(t, withBody, "paygate: HTTP 502 without a gateway error object: ")
	assert.Contains(t, withBody, "Bad Gateway")
}

func TestError_IsComparesNonZeroCodes(t *testing.T) {
	assert.ErrorIs(t, &Error{HTTPStatus: 400, Code: CodeSignatureMissing}, ErrSignatureMissing)
	assert.NotErrorIs(t, &Error{HTTPStatus: 403, Code: CodeSignatureInvalid}, ErrSignatureMissing)
	assert.NotErrorIs(t, &Error{HTTPStatus: 502}, &Error{HTTPStatus: 502}, "without a code nothing matches")
	assert.NotErrorIs(t, &Error{Code: CodeCardBlocked}, errors.New("paygate: card is blocked (40309)"))
}

func TestOutcomeUnknownError_ErrorText(t *testing.T) {
	tests := []struct {
		name string
		err  *OutcomeUnknownError
		want string
	}{
		{"with order id", &OutcomeUnknownError{Method: "POST", Path: "card/process", OrderID: "ord-1001", Attempts: 1, Err: io.ErrUnexpectedEOF},
			`paygate: POST card/process for order "ord-1001": outcome unknown, the gateway may have processed it (look the order up before retrying): unexpected EOF`},
		{"with transaction id", &OutcomeUnknownError{Method: "POST", Path: "transaction/reverse", TransactionID: 9007199254740993, Attempts: 1, Err: io.ErrUnexpectedEOF},
			`paygate: POST transaction/reverse for transaction 9007199254740993: outcome unknown, the gateway may have processed it (look the transaction up before retrying): unexpected EOF`},
		{"with neither", &OutcomeUnknownError{Method: "POST", Path: "user/recurring", Attempts: 1, Err: io.ErrUnexpectedEOF},
			`paygate: POST user/recurring: outcome unknown, the gateway may have processed it: unexpected EOF`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error(), tt.name)
		assert.ErrorIs(t, tt.err, ErrOutcomeUnknown, tt.name)
		assert.ErrorIs(t, tt.err, io.ErrUnexpectedEOF, tt.name)
	}
}

func TestOtherErrors_ErrorText(t *testing.T) {
	assert.Equal(t, "paygate: GET transaction/status failed after 3 attempt(s): unexpected EOF",
		(&NetworkError{Method: "GET", Path: "transaction/status", Attempts: 3, Err: io.ErrUnexpectedEOF}).Error())
	assert.Equal(t, "paygate: invalid parameter card[number]: fails the Luhn check",
		(&ValidationError{Field: "card[number]", Reason: "fails the Luhn check"}).Error())
}
