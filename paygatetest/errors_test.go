package paygatetest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// TestWriteError: WriteError writes the gateway's error object with the
// HTTP status of the code's first three digits, and the message is the
// code's followed by the detail, as the sandbox answers itself.
func TestWriteError(t *testing.T) {
	for _, tc := range []struct {
		err     *paygatetest.Error
		status  int
		message string
	}{
		{paygatetest.NewError(paygate.CodeTransactionNotFound, ""), http.StatusNotFound, paygate.CodeTransactionNotFound.String()},
		{paygatetest.NewError(paygatetest.CodeMalformedRequest, "count must be a number"), http.StatusBadRequest, "malformed request: count must be a number"},
		{paygatetest.NewError(paygatetest.CodeConflict, ""), http.StatusConflict, "conflict"},
		{paygatetest.NewError(paygatetest.CodeTooManyGuesses, ""), http.StatusTooManyRequests, paygatetest.CodeTooManyGuesses.String()},
	} {
		rec := httptest.NewRecorder()
		paygatetest.WriteError(rec, tc.err)
		require.Equal(t, tc.status, rec.Code)
		require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
		var out struct {
			Error struct {
				Code    paygate.ErrorCode `json:"code"`
				Message string            `json:"message"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
		require.Equal(t, tc.err.Code(), out.Error.Code)
		require.Equal(t, tc.message, out.Error.Message)
		require.Equal(t, tc.message, tc.err.Error())
	}
}

// TestErrorAnswersMatchTheSandbox: the error object a handler beside the
// sandbox writes with WriteError is the one the sandbox itself answers.
func TestErrorAnswersMatchTheSandbox(t *testing.T) {
	s := newSandbox(t)
	status, body := s.do(http.MethodGet, "/no-such-path", nil)
	rec := httptest.NewRecorder()
	paygatetest.WriteError(rec, paygatetest.NewError(paygatetest.CodeMethodNotFound, ""))
	require.Equal(t, status, rec.Code)
	require.JSONEq(t, string(body), rec.Body.String())
}
