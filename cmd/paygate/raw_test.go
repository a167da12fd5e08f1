package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
)

// recordingProxy forwards to the sandbox at base and keeps the form bodies
// of the POSTs it forwarded.
type recordingProxy struct {
	URL   string
	mu    sync.Mutex
	forms []url.Values
}

func newRecordingProxy(t *testing.T, base string) *recordingProxy {
	t.Helper()
	target, err := url.Parse(base)
	require.NoError(t, err)
	p := &recordingProxy{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if form, err := url.ParseQuery(string(body)); err == nil && r.Method == http.MethodPost {
			p.mu.Lock()
			p.forms = append(p.forms, form)
			p.mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

func TestPost_AParameterTheSDKDoesNotModelReachesTheSandboxSigned(t *testing.T) {
	t.Parallel()
	proxy := newRecordingProxy(t, startSandbox(t))
	r := paygateCmd(t, sandboxEnv(proxy.URL), "", "post", "user/resolve",
		"identifier=cust-cli", "ip=203.0.113.7", "x_campaign=spring", "--json")
	require.Zero(t, r.code, "stderr: %s", r.stderr)
	var user map[string]any
	decodeJSON(t, r.stdout, &user)
	assert.NotEmpty(t, user["id"], "the sandbox accepted the signature")

	proxy.mu.Lock()
	defer proxy.mu.Unlock()
	require.Len(t, proxy.forms, 1)
	sent := proxy.forms[0]
	assert.Equal(t, "spring", sent.Get("x_campaign"))
	assert.Equal(t, testProject, sent.Get("project"))
	assert.NoError(t, paygate.VerifySignature(sent, testSecret), "signed over every value sent, x_campaign included")
}

func TestGet_AGatewayErrorExitsOne(t *testing.T) {
	t.Parallel()
	base := startSandbox(t)
	r := paygateCmd(t, sandboxEnv(base), "", "get", "transaction/status", "order_id=no-such-order")
	assert.Equal(t, exitError, r.code)
	assert.Contains(t, r.stderr, "40403")

	wrongKey := []string{"PAYGATE_PROJECT=" + testProject, "PAYGATE_SECRET=not-the-key", "PAYGATE_BASE_URL=" + base}
	r = paygateCmd(t, wrongKey, "", "get", "transaction/status", "order_id=x")
	assert.Equal(t, exitError, r.code)
	assert.Contains(t, r.stderr, "40301")
}
