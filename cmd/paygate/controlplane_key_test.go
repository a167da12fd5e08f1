package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyRecorder is an HTTP server, or a proxy the command is sent through,
// that records every request it receives and whether it carried the
// private key. It answers each one with status and body.
type keyRecorder struct {
	URL      string
	mu       sync.Mutex
	requests []string // method and URL of each request received
	keyed    []string // those that carried the private key
}

func newKeyRecorder(t *testing.T, status int, body string) *keyRecorder {
	t.Helper()
	rec := &keyRecorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.requests = append(rec.requests, r.Method+" "+r.URL.String())
		if strings.Contains(r.Header.Get("Authorization")+string(sent), testSecret) {
			rec.keyed = append(rec.keyed, r.Method+" "+r.URL.String())
		}
		rec.mu.Unlock()
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	rec.URL = srv.URL
	return rec
}

// seen returns the requests received and those that carried the key.
func (rec *keyRecorder) seen() (requests, keyed []string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]string(nil), rec.requests...), append([]string(nil), rec.keyed...)
}

// throughProxy sends every request of the command to a host that is not
// loopback through the proxy at proxyURL, a loopback server: what the
// command would send to sandbox.example reaches it, without a resolver or
// another machine. Go sends a loopback address directly, never through a
// proxy, so the proxy sees only what left for another host.
func throughProxy(proxyURL string) []string {
	return []string{"HTTP_PROXY=" + proxyURL, "http_proxy=" + proxyURL, "HTTPS_PROXY=" + proxyURL, "https_proxy=" + proxyURL,
		"NO_PROXY=", "no_proxy="}
}

// Every command refuses plain http:// to a host that is not loopback, as
// the SDK does: the control plane's commands would send the private key in
// clear, trigger --to a signed callback.
func TestCommands_NothingInClearToAHostThatIsNotLoopback(t *testing.T) {
	t.Parallel()
	proxy := newKeyRecorder(t, http.StatusInternalServerError, "")
	env := append(sandboxEnv("http://sandbox.example:8080"), throughProxy(proxy.URL)...)
	for _, args := range [][]string{
		{"deliveries"},
		{"deliveries", "--follow", "--interval", "10ms"},
		{"redeliver", "1"},
		{"trigger", "chargeback"},
		{"trigger", "chargeback", "--tx", "5"},
		{"trigger", "completed", "--to", "http://receiver.example:9090/callbacks"},
		{"get", "transaction/status", "order_id=order-1"},
		{"balance"},
	} {
		r := paygateCmd(t, env, "", args...)
		assert.Equal(t, exitUsage, r.code, "%v: stdout %s stderr %s", args, r.stdout, r.stderr)
		assert.Contains(t, r.stderr, "--insecure-http", "%v names the way out", args)
	}
	requests, keyed := proxy.seen()
	assert.Empty(t, keyed, "requests that carried the private key to a host that is not loopback")
	assert.Empty(t, requests, "requests sent in clear to a host that is not loopback")
}

// The control plane's key goes to a host that is not loopback only when
// --remote-sandbox says it is a sandbox, and over plain http only with
// --insecure-http too.
func TestControlPlane_KeyGoesToAnotherHostOnlyWhenNamedASandbox(t *testing.T) {
	t.Parallel()
	proxy := newKeyRecorder(t, http.StatusOK, "[]")
	for _, c := range []struct {
		base string
		args []string
	}{
		{"https://sandbox.example", []string{"deliveries"}},
		{"https://sandbox.example", []string{"trigger", "chargeback", "--tx", "5"}},
		{"http://sandbox.example:8080", []string{"deliveries", "--insecure-http"}},
		{"http://sandbox.example:8080", []string{"redeliver", "1", "--remote-sandbox"}},
	} {
		env := append(sandboxEnv(c.base), throughProxy(proxy.URL)...)
		r := paygateCmd(t, env, "", c.args...)
		assert.Equal(t, exitUsage, r.code, "%s %v: stdout %s stderr %s", c.base, c.args, r.stdout, r.stderr)
	}
	requests, _ := proxy.seen()
	require.Empty(t, requests, "nothing leaves, not even a CONNECT, before the host is known to be a sandbox")

	env := append(sandboxEnv("http://sandbox.example:8080"), throughProxy(proxy.URL)...)
	r := paygateCmd(t, env, "", "deliveries", "--insecure-http", "--remote-sandbox")
	assert.Zero(t, r.code, "stderr: %s", r.stderr)
	_, keyed := proxy.seen()
	assert.Equal(t, []string{"GET http://sandbox.example:8080/sandbox/deliveries?per_page=1000"}, keyed,
		"with both flags the control plane is used there")
}

// A sandbox's answer that redirects is not followed: the key goes to the
// sandbox's address only, not to where a redirect points, even on the same
// host (to which Go's own client would forward the Authorization header).
func TestControlPlane_ARedirectNeverCarriesTheKey(t *testing.T) {
	t.Parallel()
	elsewhere := newKeyRecorder(t, http.StatusOK, "[]")
	sandbox := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(sandbox.Close)
	for _, args := range [][]string{{"deliveries"}, {"redeliver", "1"}, {"trigger", "chargeback", "--tx", "5"}} {
		r := paygateCmd(t, sandboxEnv(sandbox.URL), "", args...)
		assert.Equal(t, exitError, r.code, "%v: stdout %s stderr %s", args, r.stdout, r.stderr)
		assert.Contains(t, r.stderr, "redirect", "%v says why it stopped", args)
	}
	requests, keyed := elsewhere.seen()
	assert.Empty(t, keyed, "requests that carried the private key where a redirect pointed")
	assert.Empty(t, requests, "requests that followed a redirect")
}
