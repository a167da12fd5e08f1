package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestRun_WholeFlowOnTheBuiltInSandbox(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), envOf(nil), &out), out.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Contains(t, lines[0], "in-process sandbox")
	steps := lines[1:]
	require.Len(t, steps, 16)
	for _, l := range steps {
		require.Contains(t, l, " ok ", "every step succeeds on the sandbox: %s", l)
	}
	require.Contains(t, out.String(), "after the ACS step: completed")
	require.Contains(t, out.String(), "signed callback verified: completed")
	require.Contains(t, out.String(), "/confirm/")
}

func TestRun_AgainstAGatewayFromTheEnvironment(t *testing.T) {
	// A sandbox started apart stands in for a real gateway reached through
	// the PAYGATE_* variables: the steps that need a person or a reachable
	// callback URL are skipped, all others succeed.
	srv := paygatetest.NewServer()
	defer srv.Close()
	var out bytes.Buffer
	err := run(context.Background(), envOf(map[string]string{
		"PAYGATE_BASE_URL": srv.URL, "PAYGATE_PROJECT": srv.ProjectKey, "PAYGATE_SECRET": srv.PrivateKey,
	}), &out)
	require.NoError(t, err, out.String())
	require.Contains(t, out.String(), "gateway: "+srv.URL)
	require.Equal(t, 2, strings.Count(out.String(), " skip "), out.String())
	require.Equal(t, 14, strings.Count(out.String(), " ok "), out.String())
}

func TestRun_PartialEnvironmentNamesWhatIsMissing(t *testing.T) {
	err := run(context.Background(), envOf(map[string]string{"PAYGATE_BASE_URL": "https://gw.example.com"}), &bytes.Buffer{})
	require.ErrorContains(t, err, "PAYGATE_PROJECT")
	require.ErrorContains(t, err, "PAYGATE_SECRET")
}

func TestRun_FailingStepIsNamedAndStopsTheFlow(t *testing.T) {
	srv := paygatetest.NewServer()
	defer srv.Close()
	var out bytes.Buffer
	err := run(context.Background(), envOf(map[string]string{
		"PAYGATE_BASE_URL": srv.URL, "PAYGATE_PROJECT": srv.ProjectKey, "PAYGATE_SECRET": "not-the-private-key",
	}), &out)
	require.ErrorContains(t, err, `step "resolve user" failed`)
	require.Contains(t, out.String(), "FAIL resolve user")
	require.NotContains(t, out.String(), "tokenize card")
}

func TestRun_PlainHTTPOffLoopbackNeedsTheInsecureSwitch(t *testing.T) {
	env := map[string]string{
		"PAYGATE_BASE_URL": "http://sandbox.test:8080", "PAYGATE_PROJECT": "pk", "PAYGATE_SECRET": "sk",
	}
	_, err := openGateway(envOf(env))
	require.ErrorContains(t, err, "plain http://")

	env["PAYGATE_INSECURE_HTTP"] = "1"
	gw, err := openGateway(envOf(env))
	require.NoError(t, err)
	gw.Close()
}
