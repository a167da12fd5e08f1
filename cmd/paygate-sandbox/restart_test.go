package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
)

const (
	project = "demo"
	secret  = "demo-secret"
)

// buildSandbox builds this command into a temporary directory, as a
// merchant's CI would run it.
func buildSandbox(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "paygate-sandbox")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// sandboxProcess is a running paygate-sandbox.
type sandboxProcess struct {
	cmd *exec.Cmd
	url string
}

// startSandbox runs bin with args on a free port and waits for its
// "listening on" line.
func startSandbox(t *testing.T, bin string, args ...string) *sandboxProcess {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0", "-project", project, "-secret", secret}, args...)...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = io.Discard
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				lines <- u
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case u := <-lines:
		return &sandboxProcess{cmd: cmd, url: u}
	case <-time.After(20 * time.Second):
		t.Fatal("paygate-sandbox did not print its address")
		return nil
	}
}

// control sends a control-plane request and decodes its JSON answer.
func (p *sandboxProcess) control(t *testing.T, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, p.url+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, raw
}

// api makes a signed call of the gateway's API and returns the answer.
func (p *sandboxProcess) api(t *testing.T, httpMethod, method string, v url.Values) map[string]any {
	t.Helper()
	v.Set("project", project)
	v.Set("signature", paygate.Sign(v, secret))
	var resp *http.Response
	var err error
	if httpMethod == http.MethodGet {
		resp, err = http.Get(p.url + "/v1/" + method + "?" + v.Encode())
	} else {
		resp, err = http.PostForm(p.url+"/v1/"+method, v)
	}
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %v", method, out)
	return out
}

// view is what the sandbox shows of its state: every transaction, the
// balance, every callback.
func (p *sandboxProcess) view(t *testing.T) (txns, balance, deliveries string) {
	t.Helper()
	status, raw := p.control(t, http.MethodGet, "/sandbox/transactions?per_page=1000", "")
	require.Equal(t, http.StatusOK, status, string(raw))
	status, rawDeliveries := p.control(t, http.MethodGet, "/sandbox/deliveries?per_page=1000", "")
	require.Equal(t, http.StatusOK, status, string(rawDeliveries))
	b, err := json.Marshal(p.api(t, http.MethodGet, "balance", url.Values{"currency": {"EUR"}}))
	require.NoError(t, err)
	return string(raw), string(b), string(rawDeliveries)
}

// TestSandbox_StateSurvivesSIGKILL seeds a scenario in the real binary,
// kills it with SIGKILL (no shutdown, no final write) and starts it again
// on the same -state: every transaction, the balance, every callback, the
// users and the subscription are there.
func TestSandbox_StateSurvivesSIGKILL(t *testing.T) {
	bin := buildSandbox(t)
	state := filepath.Join(t.TempDir(), "state.json")
	first := startSandbox(t, bin, "-state", state)
	fixtures, err := os.ReadFile("../../paygatetest/testdata/fixtures/example.json")
	require.NoError(t, err)
	status, raw := first.control(t, http.MethodPost, "/sandbox/fixtures", string(fixtures))
	require.Equal(t, http.StatusOK, status, string(raw))
	var ids struct{ Users, Transactions, Cards map[string]string }
	require.NoError(t, json.Unmarshal(raw, &ids))
	txns, balance, deliveries := first.view(t)
	require.Contains(t, txns, ids.Transactions["payout"])

	// The state is written within 200 ms of a change (later on a slow
	// machine): the kill comes once the file holds every transaction the
	// fixtures made, and three write intervals after, with no chance to
	// write anything more.
	require.Eventually(t, func() bool {
		saved, err := os.ReadFile(state)
		if err != nil {
			return false
		}
		for _, id := range ids.Transactions {
			if !strings.Contains(string(saved), id) {
				return false
			}
		}
		return true
	}, 10*time.Second, 20*time.Millisecond, "the state file holds the fixtures' transactions")
	time.Sleep(600 * time.Millisecond)
	require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
	first.cmd.Wait()

	second := startSandbox(t, bin, "-state", state)
	gotTxns, gotBalance, gotDeliveries := second.view(t)
	assert.JSONEq(t, txns, gotTxns, "every transaction")
	assert.JSONEq(t, balance, gotBalance, "the balance")
	assert.JSONEq(t, deliveries, gotDeliveries, "every callback")
	alice := ids.Users["alice"]
	assert.Equal(t, alice, jsonID(second.api(t, http.MethodPost, "user/resolve",
		url.Values{"identifier": {"alice"}, "email": {"alice@example.com"}, "ip": {"192.0.2.1"}})["id"]), "the same user")
	sub := second.api(t, http.MethodPost, "card/processRecurring", url.Values{"user": {alice}, "price": {"4.99"}, "currency": {"EUR"}})
	assert.Equal(t, "completed", sub["status"], "the subscription is there")
	again := second.api(t, http.MethodPost, "card/process", url.Values{"user": {alice}, "card_token": {ids.Cards["alice-visa"]},
		"price": {"1.00"}, "currency": {"EUR"}, "description": {"after the restart"}})
	assert.Equal(t, "completed", again["status"], "the remembered card charges")
}

func jsonID(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestSandbox_RefusesACorruptStateFile: a state file that is not one stops
// the command at start with a message naming it, and leaves it as it was.
func TestSandbox_RefusesACorruptStateFile(t *testing.T) {
	bin := buildSandbox(t)
	state := filepath.Join(t.TempDir(), "state.json")
	require.NoError(t, os.WriteFile(state, []byte(`{"version":1,"transactions":[{"id":`), 0o600))
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-project", project, "-secret", secret, "-state", state)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "output: %s", out)
	assert.Equal(t, 1, exit.ExitCode())
	assert.Contains(t, string(out), state)
	assert.NotContains(t, string(out), "listening on")
	got, err := os.ReadFile(state)
	require.NoError(t, err)
	assert.Equal(t, `{"version":1,"transactions":[{"id":`, string(got))
}
