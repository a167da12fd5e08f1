package callback

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parsedByMiddleware is a genuine callback request whose form middleware
// already parsed: the body is consumed, r.PostForm holds the fields.
func parsedByMiddleware(t *testing.T, body, query string) *http.Request {
	t.Helper()
	r := callbackRequest(body)
	r.URL.RawQuery = query
	require.NoError(t, r.ParseForm())
	return r
}

func TestParseRequest_VerifiesAFormMiddlewareAlreadyParsed(t *testing.T) {
	body := newTestCallbackSigner(testSecret, FormExtended).Body(Completed, nil)
	cb, err := testVerifier(t).ParseRequest(parsedByMiddleware(t, body, ""))
	require.NoError(t, err)
	assert.Equal(t, testCallbackID, cb.ID)
}

func TestParseRequest_ParsedFormIgnoresTheQueryString(t *testing.T) {
	body := newTestCallbackSigner(testSecret, FormExtended).Body(Completed, nil)
	cb, err := testVerifier(t).ParseRequest(parsedByMiddleware(t, body, "order_id=order-9999&extra=1"))
	require.NoError(t, err, "only the POSTed fields are verified")
	assert.Equal(t, "order-1001", cb.OrderID)
}

func TestParseRequest_ParsedFormHeldToTheSizeLimit(t *testing.T) {
	body := newTestCallbackSigner(testSecret, FormExtended).Body(Completed, nil) +
		"&attr_pad=" + strings.Repeat("x", MaxBytes)
	r := callbackRequest(body)
	r.ContentLength = -1 // as a chunked request, which the size check of the header misses
	require.NoError(t, r.ParseForm())
	_, err := testVerifier(t).ParseRequest(r)
	require.ErrorIs(t, err, ErrTooLarge)
}

func TestParseRequest_ParsedFormWithAWrongSignatureIsRejected(t *testing.T) {
	body := newTestCallbackSigner("another-key", FormExtended).Body(Completed, nil)
	_, err := testVerifier(t).ParseRequest(parsedByMiddleware(t, body, ""))
	require.ErrorIs(t, err, ErrSignatureInvalid)
}

// Middleware that reads the body itself (to log it, say) either puts it
// back, and the callback verifies, or leaves it consumed without parsing a
// form, and there is nothing left to verify: refused, never processed.
func TestCallbackHandler_BodyReadByMiddlewareWithoutParseForm(t *testing.T) {
	body := newTestCallbackSigner(testSecret, FormExtended).Body(Completed, nil)
	for _, tc := range []struct {
		name    string
		putBack bool
		want    int
		calls   int
	}{{"put back", true, http.StatusOK, 1}, {"consumed", false, http.StatusForbidden, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			h := newTestCallbackHandler(t, func(context.Context, *Callback) error { calls++; return nil })
			r := callbackRequest(body)
			read, err := io.ReadAll(r.Body)
			require.NoError(t, err)
			if tc.putBack {
				r.Body = io.NopCloser(bytes.NewReader(read))
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			assert.Equal(t, tc.want, w.Code)
			assert.Equal(t, tc.calls, calls)
		})
	}
}
