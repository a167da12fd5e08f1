package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
)

func TestRun_ServesTheSandboxUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, w := io.Pipe()
	var stderr strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-project", "demo", "-secret", "demo-secret", "-form", "basic"}, w, &stderr)
		w.Close()
	}()

	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	require.True(t, ok, "first line: %q", line)
	require.Regexp(t, `^http://127\.0\.0\.1:\d+$`, base)

	v := url.Values{"project": {"demo"}, "identifier": {"u"}, "email": {"u@example.com"}, "ip": {"192.0.2.1"}}
	v.Set("signature", paygate.Sign(v, "demo-secret"))
	resp, err := http.PostForm(base+"/v1/user%2Fresolve", v)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var user map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&user))
	assert.Equal(t, float64(1), user["id"])

	resp, err = http.Get(base + "/v1/balance?project=demo")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "the basic form has no balance endpoint")

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("run did not return after cancel")
	}
	assert.Contains(t, stderr.String(), "project demo")
}

func TestRun_RejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-form", "medium"},
		{"-project", ""},
		{"-addr", "256.0.0.1:0"},
		{"-nope"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stdout, stderr strings.Builder
			err := run(context.Background(), args, &stdout, &stderr)
			require.Error(t, err)
			assert.Empty(t, stdout.String(), "nothing is announced when nothing listens")
		})
	}
}
