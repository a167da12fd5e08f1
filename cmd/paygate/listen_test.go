package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/testkit/cmdtest"
)

// listen --forward-to points the sandbox's callbacks at a forwarder of its
// own, which passes each to the receiver and prints it with the receiver's
// answer as it arrives; on SIGINT it puts the callback URL back.
func TestListen_ForwardsEachCallbackAndRestoresTheURL(t *testing.T) {
	t.Parallel()
	testListen(t, false)
}

// listen --direct points the callbacks at the receiver itself and prints
// each attempt of the deliveries, as a sandbox elsewhere needs.
func TestListen_DirectFollowsTheDeliveries(t *testing.T) {
	t.Parallel()
	testListen(t, true)
}

func testListen(t *testing.T, direct bool) {
	receiver := newCallbackReceiver(t)
	const before = "http://127.0.0.1:9/before"
	base := startSandbox(t, "--callback-url", before)
	env := sandboxEnv(base)
	receiver.confirmAgainst(t, base)

	args := []string{"listen", "--forward-to", receiver.URL, "--json"}
	if direct {
		args = append(args, "--direct", "--interval", "50ms")
	}
	listen := exec.Command(binary, args...)
	listen.Env = append(cleanEnv(), env...)
	out, err := listen.StdoutPipe()
	require.NoError(t, err)
	stderr := &cmdtest.Buffer{}
	listen.Stderr = stderr
	require.NoError(t, listen.Start())
	t.Cleanup(func() { listen.Process.Kill() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "ready") }, wait, 10*time.Millisecond,
		"listen says when callbacks go to it; stderr: %s", stderr)
	r := paygateCmd(t, env, "", "callback-url", "--json")
	var now struct{ URL string }
	decodeJSON(t, r.stdout, &now)
	assert.NotEqual(t, before, now.URL, "the callbacks go to the forwarder")
	if direct {
		assert.Equal(t, receiver.URL, now.URL, "the callbacks go to the receiver")
	}

	r = paygateCmd(t, env, "", "trigger", "chargeback")
	require.Zero(t, r.code, "stdout: %s stderr: %s", r.stdout, r.stderr)
	receiver.next(t, callback.ChargebackCompleted)
	deadline := time.After(wait)
	for seen := false; !seen; {
		select {
		case line, ok := <-lines:
			require.True(t, ok, "listen ended; stderr: %s", stderr)
			var got struct {
				Fields     map[string]string
				HTTPStatus int       `json:"http_status"`
				Attempts   []attempt `json:"attempts"`
			}
			require.NoError(t, json.Unmarshal([]byte(line), &got), line)
			requireNoSecret(t, line)
			if got.Fields["status"] == "chargeback_completed" {
				if direct {
					require.Len(t, got.Attempts, 1, line)
					assert.Equal(t, 200, got.Attempts[0].Status, line)
				} else {
					assert.Equal(t, 200, got.HTTPStatus, line)
				}
				seen = true
			}
		case <-deadline:
			t.Fatalf("listen printed no chargeback_completed within %v; stderr: %s", wait, stderr)
		}
	}

	require.NoError(t, listen.Process.Signal(os.Interrupt))
	assert.NoError(t, listen.Wait(), "exit status after SIGINT; stderr: %s", stderr)
	r = paygateCmd(t, env, "", "callback-url", "--json")
	decodeJSON(t, r.stdout, &now)
	assert.Equal(t, before, now.URL, "the callback URL is put back")
	requireNoSecret(t, stderr.String())
}
