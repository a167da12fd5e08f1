package sandboxcmd

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// healthcheck runs the command with -healthcheck -addr addr and returns
// what it printed on standard output and its error.
func healthcheck(t *testing.T, addr string) (string, error) {
	t.Helper()
	var stdout, stderr strings.Builder
	err := Run(context.Background(), "paygate-sandbox", []string{"-healthcheck", "-addr", addr}, envOf(nil), &stdout, &stderr)
	return stdout.String(), err
}

func TestRun_HealthcheckAsksTheSandboxOnAddr(t *testing.T) {
	base, _ := startRun(t, io.Discard, "-secret", "demo-secret")
	u, err := url.Parse(base)
	require.NoError(t, err)

	out, err := healthcheck(t, u.Host)
	require.NoError(t, err)
	assert.Equal(t, "ok "+base+paygatetest.HealthPath+"\n", out)

	// The -addr of a sandbox listening on every interface: asked on loopback.
	out, err = healthcheck(t, "0.0.0.0:"+u.Port())
	require.NoError(t, err)
	assert.Equal(t, "ok "+base+paygatetest.HealthPath+"\n", out)
	_, err = healthcheck(t, ":"+u.Port())
	require.NoError(t, err)
}

func TestRun_HealthcheckFailsWithoutAHealthySandbox(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	require.NoError(t, ln.Close())
	out, err := healthcheck(t, closed)
	require.Error(t, err, "nothing listens")
	assert.Empty(t, out)

	unhealthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	defer unhealthy.Close()
	out, err = healthcheck(t, strings.TrimPrefix(unhealthy.URL, "http://"))
	require.ErrorContains(t, err, "302 Found", "a redirect is no answer of the sandbox")
	assert.Empty(t, out)

	_, err = healthcheck(t, "no-port")
	require.ErrorContains(t, err, `-addr "no-port"`)
}
