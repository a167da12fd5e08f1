package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// controlPlaneOps are the operations paygatetest.ControlPlaneHelp lists,
// "METHOD /sandbox/path": the sandbox's own table, which paygatetest's
// tests hold to what it serves.
func controlPlaneOps(t *testing.T) []string {
	t.Helper()
	var ops []string
	for _, m := range regexp.MustCompile(`(?m)^  (GET|POST) +(/sandbox/\S*)`).FindAllStringSubmatch(paygatetest.ControlPlaneHelp, -1) {
		ops = append(ops, m[1]+" "+m[2])
	}
	require.NotEmpty(t, ops, "ControlPlaneHelp lists no operation: has its layout changed?")
	return ops
}

// Every operation of the control plane has a command, so that nothing the
// sandbox can do needs curl, and a new operation cannot be forgotten: a
// command names the operations it calls in its annotation.
func TestCommands_EveryControlPlaneOperationHasOne(t *testing.T) {
	t.Parallel()
	covered := map[string][]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, op := range controlPlaneOpsOf(c) {
			covered[op] = append(covered[op], c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&config{}))
	ops := controlPlaneOps(t)
	for _, op := range ops {
		if len(covered[op]) == 0 {
			t.Errorf("the control plane's %s has no paygate command: add one, annotated with %q", op, op)
		}
	}
	for op, cmds := range covered {
		if !slices.Contains(ops, op) {
			t.Errorf("%v names %q, which paygatetest.ControlPlaneHelp does not list", cmds, op)
		}
	}
}

// The control plane's commands, against a sandbox: the clock, faults,
// fixtures, reset, a login link and the callback URL.
func TestCommands_DriveTheControlPlane(t *testing.T) {
	t.Parallel()
	base := startSandbox(t)
	env := sandboxEnv(base)

	r := paygateCmd(t, env, "", "clock", "--json")
	require.Zero(t, r.code, r.stderr)
	var clock struct{ Now time.Time }
	decodeJSON(t, r.stdout, &clock)
	r = paygateCmd(t, env, "", "clock", "--advance", "36h")
	require.Zero(t, r.code, r.stderr)
	later, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(strings.TrimPrefix(r.stdout, "sandbox time:")))
	require.NoError(t, err, r.stdout)
	assert.GreaterOrEqual(t, later.Sub(clock.Now), 36*time.Hour)

	r = paygateCmd(t, env, "", "fault", "balance", "status-503", "--count", "1")
	require.Zero(t, r.code, r.stderr)
	assert.Contains(t, r.stdout, "balance")
	r = paygateCmd(t, env, "", "fault", "balance", "no-such-fault")
	assert.Equal(t, exitError, r.code, "the sandbox refuses it: %s", r.stderr)

	fixtures, err := os.ReadFile(filepath.Join("..", "..", "paygatetest", "testdata", "fixtures", "example.json"))
	require.NoError(t, err)
	r = paygateCmd(t, env, string(fixtures), "fixtures", "-", "--json")
	require.Zero(t, r.code, r.stderr)
	var made struct{ Transactions map[string]string }
	decodeJSON(t, r.stdout, &made)
	require.NotEmpty(t, made.Transactions, r.stdout)
	var some string
	for _, id := range made.Transactions {
		some = id
	}
	require.Zero(t, paygateCmd(t, env, "", "transactions", "get", some).code)

	r = paygateCmd(t, env, "", "reset")
	require.Zero(t, r.code, r.stderr)
	assert.Equal(t, exitError, paygateCmd(t, env, "", "transactions", "get", some).code, "reset forgot it")

	r = paygateCmd(t, env, "", "dashboard")
	require.Zero(t, r.code, r.stderr)
	assert.Contains(t, r.stdout, base+"/sandbox/login?token=")

	r = paygateCmd(t, env, "", "callback-url")
	require.Zero(t, r.code, r.stderr)
	assert.Equal(t, "no callback URL: callbacks are recorded only\n", r.stdout)
	r = paygateCmd(t, env, "", "callback-url", "http://127.0.0.1:9/callbacks")
	require.Zero(t, r.code, r.stderr)
	r = paygateCmd(t, env, "", "callback-url", "--json")
	require.Zero(t, r.code, r.stderr)
	var cb struct{ URL string }
	decodeJSON(t, r.stdout, &cb)
	assert.Equal(t, "http://127.0.0.1:9/callbacks", cb.URL)
	r = paygateCmd(t, env, "", "callback-url", "--none")
	require.Zero(t, r.code, r.stderr)
	assert.Equal(t, "no callback URL: callbacks are recorded only\n", paygateCmd(t, env, "", "callback-url").stdout)
}

// controlPlaneOpsOf are the operations command c says it calls.
func controlPlaneOpsOf(c *cobra.Command) []string {
	if ops := c.Annotations[controlPlaneAnnotation]; ops != "" {
		return strings.Split(ops, "\n")
	}
	return nil
}
