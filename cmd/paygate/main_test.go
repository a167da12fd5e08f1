package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/testkit/cmdtest"
)

// The tests run the real binary, built once.

// binary is the paygate command under test.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "paygate-cmd-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "paygate")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building paygate: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Keys of the tests' sandboxes. The secret is distinctive, so that finding
// it in any output means it was printed.
const (
	testProject = "pk_cli_test"
	testSecret  = "sk_cli_7f3a91c2d4e5"
)

// wait bounds every wait of these tests on another process.
const wait = 15 * time.Second

// result is what one run of the binary gave.
type result struct {
	stdout, stderr string
	code           int
}

// paygateCmd runs the binary with args and the environment env (the
// process's own PAYGATE_* variables left out), stdin as its input, and
// fails the test if the private key shows in what it printed.
func paygateCmd(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err, "running paygate %v", args)
	}
	requireNoSecret(t, r.stdout+r.stderr)
	return r
}

func requireNoSecret(t *testing.T, printed string) {
	t.Helper()
	require.NotContains(t, printed, testSecret, "the private key was printed")
}

// cleanEnv is the process's environment without PAYGATE_* variables.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PAYGATE_") {
			out = append(out, kv)
		}
	}
	return out
}

// sandboxEnv configures the command for the sandbox at base.
func sandboxEnv(base string) []string {
	return []string{"PAYGATE_PROJECT=" + testProject, "PAYGATE_SECRET=" + testSecret, "PAYGATE_BASE_URL=" + base}
}

// startSandbox runs "paygate sandbox" on a free port with extra flags and
// returns its URL once it printed "listening on". The end of the test
// stops it with SIGINT and checks that it never printed the private key.
func startSandbox(t *testing.T, extra ...string) string {
	t.Helper()
	args := append([]string{"sandbox", "--addr", "127.0.0.1:0", "--project", testProject}, extra...)
	cmd := exec.Command(binary, args...)
	cmd.Env = append(cleanEnv(), "PAYGATE_SECRET="+testSecret)
	stdout, stderr := &cmdtest.Buffer{}, &cmdtest.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			assert.NoError(t, err, "paygate sandbox after SIGINT; stderr: %s", stderr)
		case <-time.After(wait):
			cmd.Process.Kill()
			t.Error("paygate sandbox did not stop on SIGINT")
		}
		requireNoSecret(t, stdout.String()+stderr.String())
	})
	url := cmdtest.URL(t, stdout)
	assert.Eventually(t, func() bool { return strings.Contains(stderr.String(), testProject) }, wait, 10*time.Millisecond,
		"the project key is printed at start")
	return url
}

// decodeJSON decodes printed JSON with numbers as json.Number, as a
// 19-digit id needs.
func decodeJSON(t *testing.T, printed string, out any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(printed))
	dec.UseNumber()
	require.NoError(t, dec.Decode(out), "printed: %s", printed)
}

// callbackReceiver is a merchant's webhook built with the SDK, as the
// README shows it: it verifies each callback and, given a client,
// confirms it against the gateway before accepting it.
type callbackReceiver struct {
	URL       string
	client    atomic.Pointer[paygate.Client]
	callbacks chan *callback.Callback
}

func newCallbackReceiver(t *testing.T) *callbackReceiver {
	t.Helper()
	r := &callbackReceiver{callbacks: make(chan *callback.Callback, 32)}
	h, err := callback.NewHandler([]string{testSecret}, func(ctx context.Context, cb *callback.Callback) error {
		if c := r.client.Load(); c != nil {
			if _, err := c.ConfirmCallback(ctx, cb); err != nil {
				return err
			}
		}
		r.callbacks <- cb
		return nil
	})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// confirmAgainst makes the receiver confirm each callback with the
// sandbox at base before accepting it.
func (r *callbackReceiver) confirmAgainst(t *testing.T, base string) {
	t.Helper()
	c, err := paygate.NewClient(testProject, testSecret, paygate.WithBaseURL(base))
	require.NoError(t, err)
	r.client.Store(c)
}

// next waits for an accepted callback of status.
func (r *callbackReceiver) next(t *testing.T, status callback.Status) *callback.Callback {
	t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case cb := <-r.callbacks:
			if cb.Status == status {
				return cb
			}
		case <-deadline:
			t.Fatalf("no %s callback accepted within %v", status, wait)
			return nil
		}
	}
}
