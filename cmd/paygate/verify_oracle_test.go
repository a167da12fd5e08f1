package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

// forgedCallback is a callback nobody with the key sent: a real one's
// fields with a changed amount and order, and a made-up signature.
func forgedCallback() url.Values {
	v := paygatetest.NewCallbackSigner(testSecret, paygate.FormExtended).Values(callback.Completed,
		url.Values{"order_id": {"order-forged"}, "amount": {"9999.00"}, "price": {"9999.0000"}})
	v.Set(paygate.SignatureParam, strings.Repeat("0", 64))
	return v
}

// acceptedBy reports whether callback.NewHandler, keyed as the merchant's,
// runs the merchant's function for body.
func acceptedBy(t *testing.T, body url.Values) bool {
	t.Helper()
	var ran atomic.Bool
	h, err := callback.NewHandler([]string{testSecret}, func(context.Context, *callback.Callback) error {
		ran.Store(true)
		return nil
	}, callback.WithoutDedup())
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodPost, "/callbacks", strings.NewReader(body.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return ran.Load() && w.Code == http.StatusOK
}

// hexRuns are the candidate signatures in verify's output: every run of
// eight or more hex digits.
var hexRuns = regexp.MustCompile(`[0-9a-fA-F]{8,}`)

// verify is no signing oracle: a forged body run through it, in text and in
// JSON, yields nothing that pasted back as the signature makes
// callback.NewHandler accept the forgery. --show-expected, whose help says
// so, prints the full signature, which it then accepts.
func TestVerify_AForgedBodyYieldsNoSignatureTheHandlerAccepts(t *testing.T) {
	t.Parallel()
	forged := forgedCallback()
	full := paygate.Sign(forged, testSecret)
	env := []string{"PAYGATE_SECRET=" + testSecret}
	for _, args := range [][]string{{"verify", "--body", "-"}, {"verify", "--body", "-", "--json"}} {
		r := paygateCmd(t, env, forged.Encode(), args...)
		require.Equal(t, exitFailed, r.code, "%v: %s", args, r.stderr)
		printed := r.stdout + r.stderr
		assert.NotContains(t, printed, full, "%v printed the expected signature", args)
		assert.Contains(t, printed, full[:8], "%v prints the expected signature's first 8 hex digits", args)
		for _, candidate := range hexRuns.FindAllString(printed, -1) {
			pasted := url.Values{}
			for k, vs := range forged {
				pasted[k] = vs
			}
			pasted.Set(paygate.SignatureParam, candidate)
			assert.False(t, acceptedBy(t, pasted), "%v: signature=%s from its output makes the handler accept the forgery", args, candidate)
		}
	}

	r := paygateCmd(t, nil, "", "verify", "--help")
	assert.Contains(t, r.stdout, "--show-expected")
	assert.Contains(t, r.stdout, "forged")
	r = paygateCmd(t, env, forged.Encode(), "verify", "--body", "-", "--show-expected", "--json")
	require.Equal(t, exitFailed, r.code, r.stderr)
	var got verification
	decodeJSON(t, r.stdout, &got)
	require.Equal(t, full, got.Expected, "--show-expected prints the full signature")
	forged.Set(paygate.SignatureParam, got.Expected)
	assert.True(t, acceptedBy(t, forged), "which is why it is behind a flag")
}

// sign's purpose is to sign, but values that look like a callback are not
// signed silently: the signature of a set of values is the same for a
// callback, and callback.NewHandler accepts it.
func TestSign_ACallbackIsNotSignedSilently(t *testing.T) {
	t.Parallel()
	forged := forgedCallback()
	forged.Del(paygate.SignatureParam)
	env := []string{"PAYGATE_SECRET=" + testSecret}
	r := paygateCmd(t, env, forged.Encode(), "sign", "--body", "-", "--json")
	require.Zero(t, r.code, r.stderr)
	var got signature
	decodeJSON(t, r.stdout, &got)
	assert.Equal(t, paygate.Sign(forged, testSecret), got.Signature, "sign signs what it is given")
	assert.Contains(t, r.stderr, "callback", "the person signing a callback is told so")

	r = paygateCmd(t, env, "", "sign", "project=pk_1", "identifier=cust-42", "ip=203.0.113.7")
	require.Zero(t, r.code, r.stderr)
	assert.Empty(t, r.stderr, "a request is signed without a word")

	r = paygateCmd(t, nil, "", "sign", "--help")
	assert.Contains(t, r.stdout, "callback", "sign's help says a signature of values is the same for a callback")
}
