package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
)

// signatureCase is a case of the SDK's testdata/signature vectors.
type signatureCase struct {
	name, key            string
	args                 []string
	canonical, signature string
}

// signatureCases reads the SDK's signature cases and the vectors openssl
// computed from them (testdata/signature/make-vectors.sh).
func signatureCases(t *testing.T) []signatureCase {
	t.Helper()
	cases, err := os.ReadFile("../../testdata/signature/cases.txt")
	require.NoError(t, err)
	vectors, err := os.ReadFile("../../testdata/signature/vectors.tsv")
	require.NoError(t, err)
	want := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(vectors)), "\n") {
		f := strings.Split(line, "\t")
		want[f[0]] = f[1:]
	}
	var out []signatureCase
	for _, line := range strings.Split(string(cases), "\n") {
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "case "):
			name := strings.TrimPrefix(line, "case ")
			out = append(out, signatureCase{name: name, canonical: want[name][0], signature: want[name][1]})
		case strings.HasPrefix(line, "key "):
			out[len(out)-1].key = strings.TrimPrefix(line, "key ")
		default:
			out[len(out)-1].args = append(out[len(out)-1].args, line)
		}
	}
	require.Len(t, out, len(want))
	return out
}

func TestSign_EqualsTheSDKOnTheTestVectors(t *testing.T) {
	t.Parallel()
	for _, c := range signatureCases(t) {
		r := paygateCmd(t, []string{"PAYGATE_SECRET=" + c.key}, "", append([]string{"sign", "--json"}, c.args...)...)
		require.Zero(t, r.code, "%s: %s", c.name, r.stderr)
		var got signature
		decodeJSON(t, r.stdout, &got)
		params, err := parseParams(c.args)
		require.NoError(t, err)
		assert.Equal(t, paygate.Sign(params, c.key), got.Signature, c.name)
		assert.Equal(t, c.signature, got.Signature, c.name)
		assert.Equal(t, c.canonical, got.Canonical, c.name)
	}
}

// The spec's user/resolve request, with every parameter its table lists,
// signed on the command line, from a form body and from a JSON body.
func TestSign_EqualsTheSDKOnTheSpecExample(t *testing.T) {
	t.Parallel()
	params := url.Values{"project": {"pk_test_2f9c"}, "identifier": {"cust-100452"}, "display_name": {"Jane Doe"},
		"email": {"jane.doe@example.com"}, "phone": {"4915112345678"}, "locale": {"de"}, "ip": {"203.0.113.7"},
		"ua": {"Mozilla/5.0 (X11; Linux x86_64)"}}
	want := paygate.Sign(params, testSecret)
	env := []string{"PAYGATE_SECRET=" + testSecret}
	var args []string
	for k := range params {
		args = append(args, k+"="+params.Get(k))
	}
	jsonBody := `{"project":"pk_test_2f9c","identifier":"cust-100452","display_name":"Jane Doe","email":"jane.doe@example.com",` +
		`"phone":4915112345678,"locale":"de","ip":"203.0.113.7","ua":"Mozilla/5.0 (X11; Linux x86_64)"}`
	for name, run := range map[string]func() result{
		"arguments": func() result { return paygateCmd(t, env, "", append([]string{"sign", "--json"}, args...)...) },
		"form body": func() result { return paygateCmd(t, env, params.Encode(), "sign", "--json", "--body", "-") },
		"JSON body": func() result { return paygateCmd(t, env, jsonBody, "sign", "--json", "--body", "-") },
	} {
		r := run()
		require.Zero(t, r.code, "%s: %s", name, r.stderr)
		var got signature
		decodeJSON(t, r.stdout, &got)
		assert.Equal(t, want, got.Signature, name)
		assert.Equal(t, paygate.CanonicalString(params), got.Canonical, name)
	}
}

func TestVerify_ACallbackBodyVerifies(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile("../../testdata/callbacks/extended_completed.txt")
	require.NoError(t, err)
	const key = "sk_test_5b1e07d6" // the key the SDK's callback fixtures are signed with
	params, err := url.ParseQuery(strings.TrimSpace(string(body)))
	require.NoError(t, err)
	require.NoError(t, paygate.VerifySignature(params, key))

	r := paygateCmd(t, []string{"PAYGATE_SECRET=" + key}, "", "verify", "--body", "../../testdata/callbacks/extended_completed.txt")
	assert.Zero(t, r.code, r.stderr)
	assert.Contains(t, r.stdout, "signature verifies")
}

func TestVerify_AReformattedValueIsNamedAndExitsThree(t *testing.T) {
	t.Parallel()
	signer := url.Values{"project": {"10042"}, "id": {"1000000000000000001"}, "amount": {"10.00"}, "status": {"completed"}}
	sig := paygate.Sign(signer, testSecret)
	received := url.Values{"project": {"10042"}, "id": {"1000000000000000001"}, "amount": {"10.0"}, "status": {"completed"}, "signature": {sig}}

	r := paygateCmd(t, []string{"PAYGATE_SECRET=" + testSecret}, received.Encode(), "verify", "--body", "-")
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stdout, "canonical: 10.0|1000000000000000001|10042|completed")
	assert.Contains(t, r.stdout, "expected:  "+paygate.Sign(received, testSecret)[:8]+"...")
	assert.Contains(t, r.stdout, "received:  "+sig)
	assert.Contains(t, r.stdout, `amount="10.0"`)

	r = paygateCmd(t, []string{"PAYGATE_SECRET=" + testSecret}, received.Encode(), "verify", "--body", "-", "--json")
	assert.Equal(t, exitFailed, r.code)
	var got verification
	decodeJSON(t, r.stdout, &got)
	assert.False(t, got.Valid)
	require.Len(t, got.Suspects, 1)
	assert.Equal(t, "amount", got.Suspects[0].Field)
}

func TestLooksReformatted(t *testing.T) {
	t.Parallel()
	for v, reformatted := range map[string]bool{
		"10.00": false, "9.7100": false, "order-1001": false, "1000000000000000001": false, "": false,
		"10.0": true, " 10.00": true, "true": true, "1e+21": true, "a%20b": true, "9007199254740994": true, "9007199254740993": false,
		"\xff": true,
	} {
		assert.Equal(t, reformatted, looksReformatted(v) != "", "%q", v)
	}
}

// sign signs what the SDK sends for the same call: the project key from
// --project or PAYGATE_PROJECT is one of the signed values, as in every
// request of the SDK.
func TestSign_SignsWhatTheSDKSends(t *testing.T) {
	t.Parallel()
	sent := make(chan url.Values, 1)
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		sent <- r.PostForm
		io.WriteString(w, `{"id":"1"}`)
	}))
	t.Cleanup(gateway.Close)
	client, err := paygate.NewClient("pk_sign_1", testSecret, paygate.WithBaseURL(gateway.URL))
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, client.Call(context.Background(), http.MethodPost, "user/resolve",
		url.Values{"identifier": {"cust-42"}, "ip": {"203.0.113.7"}}, &out))
	want := (<-sent).Get(paygate.SignatureParam)

	for name, env := range map[string][]string{
		"environment": {"PAYGATE_SECRET=" + testSecret, "PAYGATE_PROJECT=pk_sign_1"},
		"flag":        {"PAYGATE_SECRET=" + testSecret, "PAYGATE_PROJECT=pk_other"},
	} {
		args := []string{"sign", "--json", "identifier=cust-42", "ip=203.0.113.7"}
		if name == "flag" {
			args = append(args, "--project", "pk_sign_1")
		}
		r := paygateCmd(t, env, "", args...)
		require.Zero(t, r.code, "%s: %s", name, r.stderr)
		var got signature
		decodeJSON(t, r.stdout, &got)
		assert.Equal(t, want, got.Signature, name)
		assert.Contains(t, got.Canonical, "pk_sign_1", name)
	}
}
