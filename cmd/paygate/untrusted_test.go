package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile is text a body, a receiver or a server controls that would act
// on a terminal printed raw: ESC ] 0 ; ... BEL retitles the window, ESC [ 2
// J clears it, U+009B is the one-character CSI of C1, U+202E reverses
// what follows, and a newline and a CR could forge a line of the output.
const hostile = "\x1b]0;pwned\x07\x1b[2J\u009b2J\u202e\nsignature verifies\r"

// assertNothingActsOnATerminal fails for any rune of printed that is not
// graphic, a space or the end of a line of the command's own.
func assertNothingActsOnATerminal(t *testing.T, printed, what string) {
	t.Helper()
	for _, r := range printed {
		if r != '\n' && !unicode.IsGraphic(r) {
			t.Errorf("%s printed %U raw: %q", what, r, printed)
			return
		}
	}
	for _, line := range strings.Split(printed, "\n") {
		assert.NotEqual(t, "signature verifies", line, "%s printed a line of the body as its own", what)
	}
}

func TestVerify_ControlCharactersOfTheBodyAreQuoted(t *testing.T) {
	t.Parallel()
	body := url.Values{"order_id": {hostile}, "x" + hostile: {" 1"}, "signature": {hostile}}.Encode()
	for _, args := range [][]string{{"verify", "--body", "-"}, {"verify", "--body", "-", "--json"}} {
		r := paygateCmd(t, []string{"PAYGATE_SECRET=" + testSecret}, body, args...)
		assert.Equal(t, exitFailed, r.code, "%v: %s", args, r.stderr)
		assertNothingActsOnATerminal(t, r.stdout+r.stderr, strings.Join(args, " "))
	}
	r := paygateCmd(t, []string{"PAYGATE_SECRET=" + testSecret}, body, "verify", "--body", "-")
	assert.Contains(t, r.stdout, `\x1b]0;pwned\a\x1b[2J\u009b2J\u202e\nsignature verifies\r`, "shown, escaped as Go would")
	r = paygateCmd(t, []string{"PAYGATE_SECRET=" + testSecret}, body, "verify", "--body", "-", "--json")
	var got verification
	decodeJSON(t, r.stdout, &got)
	assert.Contains(t, got.Canonical, hostile, "JSON keeps the value, escaped as JSON")
}

func TestTriggerTo_ControlCharactersOfTheAnswerAreQuoted(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusOK, http.StatusForbidden} {
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(status)
			io.WriteString(w, hostile)
		}))
		for _, json := range []bool{false, true} {
			args := []string{"trigger", "completed", "--to", receiver.URL + "/cb?" + url.QueryEscape(hostile), "--set", "id=" + hostile}
			if json {
				args = append(args, "--json")
			}
			r := paygateCmd(t, []string{"PAYGATE_SECRET=" + testSecret}, "", args...)
			assert.Contains(t, []int{exitOK, exitFailed}, r.code, "%v: %s", args, r.stderr)
			assertNothingActsOnATerminal(t, r.stdout+r.stderr, "trigger --to answered "+http.StatusText(status))
		}
		receiver.Close()
	}
}

// A sandbox's deliveries hold what receivers and merchants made: a
// receiver's error, a callback URL, field values.
func TestDeliveries_ControlCharactersAreQuoted(t *testing.T) {
	t.Parallel()
	one, err := json.Marshal(map[string]any{"id": 1, "url": "http://127.0.0.1:9/" + hostile,
		"fields":   map[string]string{"status": hostile, "id": hostile},
		"attempts": []map[string]any{{"time": hostile, "error": hostile}, {"time": "t2", "status": 500}}})
	require.NoError(t, err)
	sandbox := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.Write(one)
			return
		}
		io.WriteString(w, "["+string(one)+"]")
	}))
	t.Cleanup(sandbox.Close)
	for _, args := range [][]string{{"deliveries"}, {"deliveries", "--json"}, {"redeliver", "1"}} {
		r := paygateCmd(t, sandboxEnv(sandbox.URL), "", args...)
		assert.Zero(t, r.code, "%v: %s", args, r.stderr)
		assertNothingActsOnATerminal(t, r.stdout+r.stderr, strings.Join(args, " "))
	}
}

// Errors quote what a server said: a gateway's error message, a page that
// is not one, the control plane's error.
func TestErrors_ControlCharactersOfAnAnswerAreQuoted(t *testing.T) {
	t.Parallel()
	message, err := json.Marshal(map[string]any{"error": map[string]any{"code": 40001, "message": hostile}})
	require.NoError(t, err)
	for name, answer := range map[string]string{"error object": string(message), "page": hostile} {
		server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, answer)
		}))
		for _, args := range [][]string{{"get", "transaction/status", "order_id=o"}, {"post", "user/resolve", "identifier=u"},
			{"deliveries"}, {"trigger", "chargeback", "--tx", "5"}} {
			r := paygateCmd(t, sandboxEnv(server.URL), "", args...)
			assert.Equal(t, exitError, r.code, "%s %v: %s", name, args, r.stderr)
			assertNothingActsOnATerminal(t, r.stdout+r.stderr, name+": "+strings.Join(args, " "))
		}
		server.Close()
	}
}
