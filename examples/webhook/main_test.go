package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/internal/cmdtest"
	"github.com/paygate/paygate-go/paygatetest"
)

const testSecret = "sk_test_webhook_3c7a"

// TestHandler_Contract checks the receiver's answers and output against
// the contract in its package documentation.
func TestHandler_Contract(t *testing.T) {
	var out bytes.Buffer
	h, err := newHandler(testSecret, &out)
	require.NoError(t, err)
	ext := paygatetest.NewCallbackSigner(testSecret, paygate.FormExtended)
	basic := paygatetest.NewCallbackSigner(testSecret, paygate.FormBasic)

	steps := []struct {
		name     string
		req      *http.Request
		wantCode int
		wantBody string
		wantLine string // printed by this step, if any
	}{
		{"signed extended callback", ext.Request("/", paygate.CallbackCompleted, nil), 200, "OK", "callback id=9007199254740993 status=completed"},
		{"repeat is acknowledged, not processed", ext.Request("/", paygate.CallbackCompleted, nil), 200, "OK", ""},
		{"next status of the same transaction", ext.Request("/", paygate.CallbackRefundCompleted, nil), 200, "OK", "callback id=9007199254740994 status=refund_completed"},
		{"signed basic callback", basic.Request("/callback", paygate.CallbackReversed, url.Values{"id": {"77"}}), 200, "OK", "callback id=77 status=reversed"},
		{"missing signature", unsigned(ext.Values(paygate.CallbackFailed, nil)), 403, "", ""},
		{"wrong signature", paygatetest.NewCallbackSigner("sk_other", paygate.FormExtended).Request("/", paygate.CallbackFailed, nil), 403, "", ""},
		{"empty body", post(""), 403, "", ""},
		{"id not numeric", ext.Request("/", paygate.CallbackFailed, url.Values{"id": {"abc"}}), 400, "", ""},
		{"id twice", ext.Request("/", paygate.CallbackFailed, url.Values{"id": {"1", "2"}}), 400, "", ""},
		{"GET", httptest.NewRequest(http.MethodGet, "/", nil), 405, "", ""},
		{"body over 64 KiB", ext.Request("/", paygate.CallbackFailed, url.Values{"attr_pad": {strings.Repeat("x", paygate.MaxCallbackBytes)}}), 413, "", ""},
	}
	var wantOut strings.Builder
	for _, st := range steps {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, st.req)
		assert.Equal(t, st.wantCode, w.Code, st.name)
		if st.wantBody != "" {
			assert.Equal(t, st.wantBody, w.Body.String(), st.name)
		}
		if st.wantLine != "" {
			wantOut.WriteString(st.wantLine + "\n")
		}
		assert.Equal(t, wantOut.String(), out.String(), "output after %s", st.name)
	}
}

func TestRun_WithoutSecretFails(t *testing.T) {
	var stderr bytes.Buffer
	err := run(context.Background(), nil, func(string) string { return "" }, io.Discard, &stderr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "PAYGATE_SECRET")
}

func TestRun_ServesCallbacksUntilCancelled(t *testing.T) {
	var stdout, stderr cmdtest.Buffer
	env := map[string]string{"PAYGATE_SECRET": testSecret, "PAYGATE_PROJECT": "pk_test_webhook"}
	stop := cmdtest.Start(t, func(ctx context.Context) error {
		return run(ctx, []string{"-addr", "127.0.0.1:0"}, func(k string) string { return env[k] }, &stdout, &stderr)
	})
	base := cmdtest.URL(t, &stderr)

	s := paygatetest.NewCallbackSigner(testSecret, paygate.FormExtended)
	for range 2 {
		resp, err := http.Post(base+"/paygate/callback", "application/x-www-form-urlencoded", strings.NewReader(s.Body(paygate.CallbackCompleted, nil)))
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "OK", string(body))
	}
	resp, err := http.Get(base + "/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	stop()
	assert.Equal(t, "callback id=9007199254740993 status=completed\n", stdout.String())
}

func unsigned(v url.Values) *http.Request {
	v.Del(paygate.SignatureParam)
	return post(v.Encode())
}

func post(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}
