package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/internal/testkit/cmdtest"
)

// deliveries --follow prints each attempt as it happens, one JSON object a
// line, and stops cleanly on SIGINT; trigger --tx applies an event to a
// transaction that exists.
func TestDeliveries_FollowPrintsEachNewAttempt(t *testing.T) {
	t.Parallel()
	receiver := newCallbackReceiver(t)
	base := startSandbox(t, "--callback-url", receiver.URL)
	env := sandboxEnv(base)

	follow := exec.Command(binary, "deliveries", "--follow", "--interval", "50ms", "--json")
	follow.Env = append(cleanEnv(), env...)
	out, err := follow.StdoutPipe()
	require.NoError(t, err)
	stderr := &cmdtest.Buffer{}
	follow.Stderr = stderr
	require.NoError(t, follow.Start())
	lines := make(chan delivery, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			requireNoSecretLine(sc.Text(), lines)
		}
		close(lines)
	}()

	r := paygateCmd(t, env, "", "trigger", "chargeback", "--json")
	require.Zero(t, r.code, r.stderr)
	var chargeback struct {
		ID json.Number `json:"id"`
	}
	decodeJSON(t, r.stdout, &chargeback)
	r = paygateCmd(t, env, "", "trigger", "retrieval", "--tx", chargeback.ID.String())
	require.Zero(t, r.code, r.stderr)

	want := map[string]bool{"completed": true, "chargeback_completed": true, "retrieval_completed": true}
	deadline := time.After(wait)
	for len(want) > 0 {
		select {
		case d, ok := <-lines:
			require.True(t, ok, "deliveries --follow ended; stderr: %s", stderr.String())
			require.Len(t, d.Attempts, 1, "one attempt a line")
			delete(want, d.Fields["status"])
		case <-deadline:
			t.Fatalf("deliveries --follow did not print %v within %v", want, wait)
		}
	}
	require.NoError(t, follow.Process.Signal(os.Interrupt))
	assert.NoError(t, follow.Wait(), "exit status after SIGINT")
	assert.NotContains(t, stderr.String(), testSecret)
}

// requireNoSecretLine decodes a line of deliveries --follow --json onto
// lines; a line that does not decode, or carries the private key, ends up
// as a delivery the test rejects.
func requireNoSecretLine(line string, lines chan<- delivery) {
	var d delivery
	if strings.Contains(line, testSecret) || json.Unmarshal([]byte(line), &d) != nil {
		d = delivery{Fields: map[string]string{"status": "unreadable or secret-bearing line: " + line}}
	}
	lines <- d
}

// What the sandbox says of a delivery beyond the fields the command reads
// is printed as received, whether it answers a list or a page of one.
func TestDeliveries_KeepWhatTheSandboxAdds(t *testing.T) {
	t.Parallel()
	const one = `{"id":"1","url":"http://x/cb","fields":{"status":"completed"},"next_attempt":"2026-11-27T00:00:05Z",` +
		`"attempts":[{"time":"t1","status":500},{"time":"t2","status":200}]}`
	quoted := strings.Replace(one, `"id":1`, `"id":"1"`, 1)
	for name, answer := range map[string]string{"list": "[" + one + "]", "page": `{"deliveries":[` + one + `],"next":2}`,
		"string id": "[" + quoted + "]"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, answer) }))
		cp := &controlPlane{base: srv.URL, secret: testSecret, http: srv.Client()}
		all, err := cp.deliveries(context.Background())
		srv.Close()
		require.NoError(t, err, name)
		require.Len(t, all, 1, name)
		d := all[0]
		d.Attempts = d.Attempts[1:]
		printed, err := json.Marshal(d)
		require.NoError(t, err)
		assert.JSONEq(t, `{"id":"1","url":"http://x/cb","fields":{"status":"completed"},"next_attempt":"2026-11-27T00:00:05Z",`+
			`"attempts":[{"time":"t2","status":200}]}`, string(printed), name)
	}
}

// redeliver tells the attempt it caused from those before it, or says it
// has none: the sandbox answers after 5 seconds without one.
func TestRedeliver_TellsTheNewAttempt(t *testing.T) {
	t.Parallel()
	a1 := attempt{Time: "t1", Status: 500}
	a2 := attempt{Time: "t2", Status: 200, Manual: true}
	for name, c := range map[string]struct {
		before *delivery
		after  delivery
		want   *attempt
	}{
		"one more":          {&delivery{Attempts: []attempt{a1}}, delivery{Attempts: []attempt{a1, a2}}, &a2},
		"none yet":          {&delivery{Attempts: []attempt{a1}}, delivery{Attempts: []attempt{a1}}, nil},
		"history full":      {&delivery{Attempts: []attempt{a1, a2}}, delivery{Attempts: []attempt{a2, {Time: "t3", Status: 200, Manual: true}}}, &attempt{Time: "t3", Status: 200, Manual: true}},
		"unread, manual":    {nil, delivery{Attempts: []attempt{a1, a2}}, &a2},
		"unread, automatic": {nil, delivery{Attempts: []attempt{a1}}, nil},
		"never attempted":   {&delivery{}, delivery{}, nil},
	} {
		assert.Equal(t, c.want, newAttempt(c.before, c.after), name)
	}
}
