package sandboxcmd

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/internal/testkit/cmdtest"
	"github.com/paygate/paygate-go/paygatetest"
)

func TestRun_ServesTheSandboxUntilCancelled(t *testing.T) {
	var stderr cmdtest.Buffer
	base, stop := startRun(t, &stderr, "-project", "demo", "-secret", "demo-secret", "-form", "basic")
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

	stop()
	assert.Contains(t, stderr.String(), "project demo")
}

// startRun runs the command with args on a free loopback port and an empty
// environment, its standard error going to stderr, and returns its base
// URL and stop (see cmdtest.Start).
func startRun(t *testing.T, stderr io.Writer, args ...string) (base string, stop func()) {
	t.Helper()
	return startRunEnv(t, stderr, nil, args...)
}

// startRunEnv is startRun with the environment env.
func startRunEnv(t *testing.T, stderr io.Writer, env map[string]string, args ...string) (base string, stop func()) {
	t.Helper()
	var stdout cmdtest.Buffer
	stop = cmdtest.Start(t, func(ctx context.Context) error {
		return Run(ctx, "paygate-sandbox", append([]string{"-addr", "127.0.0.1:0"}, args...), envOf(env), &stdout, stderr)
	})
	return cmdtest.URL(t, &stdout), stop
}

// envOf reads env as os.Getenv reads the environment.
func envOf(env map[string]string) func(string) string {
	return func(name string) string { return env[name] }
}

func TestRun_PublicURLIsTheACSAddress(t *testing.T) {
	base, _ := startRun(t, io.Discard, "-project", "demo", "-secret", "demo-secret", "-public-url", "http://sandbox.example:8080/")
	client, err := paygate.NewClient("demo", "demo-secret", paygate.WithBaseURL(base))
	require.NoError(t, err)
	ctx := context.Background()
	user, err := client.Users.Resolve(ctx, &paygate.ResolveUserParams{Identifier: "u", IP: "192.0.2.1"})
	require.NoError(t, err)
	tok, err := client.Cards.Tokenize(ctx, &paygate.TokenizeParams{Number: paygate.NewCardNumber("4000000000003220"), Expiry: paygate.NewExpiry(12, 2099), SecurityCode: paygate.NewSecurityCode("123")})
	require.NoError(t, err)
	pay, err := client.Cards.Charge(ctx, &paygate.ChargeParams{User: user, CardToken: paygate.NewCardToken(tok.ID),
		Price: decimal.RequireFromString("5.00"), Currency: "EUR", Description: "3-D Secure"})
	require.NoError(t, err)
	require.NotNil(t, pay.ACS)
	assert.Equal(t, "http://sandbox.example:8080/acs", pay.ACS.URL)
}

func TestRun_RetainKeepsTheNewestTransactions(t *testing.T) {
	base, _ := startRun(t, io.Discard, "-secret", "demo-secret", "-retain", "1")
	client, err := paygate.NewClient(paygatetest.DefaultProjectKey, "demo-secret", paygate.WithBaseURL(base))
	require.NoError(t, err)
	ctx := context.Background()
	charge := func() paygate.ID {
		pay, err := client.Cards.Charge(ctx, &paygate.ChargeParams{
			UserDetails: &paygate.UserDetails{Identifier: "u", IP: "192.0.2.1"},
			Card: &paygate.CardDetails{Number: paygate.NewCardNumber(paygatetest.CardApproved), Expiry: paygate.NewExpiry(12, 2099),
				SecurityCode: paygate.NewSecurityCode("123")},
			Price: decimal.RequireFromString("5.00"), Currency: "EUR", Description: "retained",
		})
		require.NoError(t, err)
		return pay.ID
	}
	first, second := charge(), charge()
	_, err = client.Transactions.Get(ctx, first)
	require.ErrorIs(t, err, paygate.ErrTransactionNotFound, "dropped beyond -retain 1")
	_, err = client.Transactions.Get(ctx, second)
	require.NoError(t, err)
}

func TestRun_ServesTheControlPlane(t *testing.T) {
	base, _ := startRun(t, io.Discard, "-secret", "demo-secret")
	resp := advanceClock(t, base, "")
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "without the key")

	resp = advanceClock(t, base, "demo-secret")
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var out struct{ Now time.Time }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	assert.WithinDuration(t, time.Now().Add(time.Hour), out.Now, time.Minute)
}

// advanceClock asks the control plane at base to move the clock an hour
// on, with key as bearer token ("" for no Authorization header).
func advanceClock(t *testing.T, base, key string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/sandbox/clock", strings.NewReader("advance=1h"))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return resp
}

func TestRun_HelpPrintsTheUsage(t *testing.T) {
	var stdout, stderr strings.Builder
	err := Run(context.Background(), "paygate-sandbox", []string{"-h"}, envOf(nil), &stdout, &stderr)
	require.ErrorIs(t, err, flag.ErrHelp)
	assert.Empty(t, stdout.String())
	for _, name := range []string{"-addr", "-project", "-secret", "-secret-file", "PAYGATE_SECRET", "-callback-url", "-form", "-public-url", "-retain", "-healthcheck", "-version"} {
		assert.Contains(t, stderr.String(), name)
	}
}

// TestRun_VersionPrintsTheSDKsVersion: -version prints the version of the
// SDK's module from the build information and serves nothing. The test
// binary is built from a working tree: "(devel)".
func TestRun_VersionPrintsTheSDKsVersion(t *testing.T) {
	var stdout, stderr strings.Builder
	err := Run(context.Background(), "paygate-sandbox", []string{"-version", "-addr", "127.0.0.1:0"}, envOf(nil), &stdout, &stderr)
	require.NoError(t, err)
	assert.Equal(t, "paygate-sandbox (devel) "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+"\n", stdout.String())
	assert.Empty(t, stderr.String(), "nothing is served, no key is made")
}

func TestRun_RejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-form", "medium"},
		{"-project", ""},
		{"-addr", "256.0.0.1:0"},
		{"-nope"},
		{"-public-url", "sandbox.example:8080"},
		{"-secret", "k", "-secret-file", filepath.Join(t.TempDir(), "key")},
		{"-secret-file", filepath.Join(t.TempDir(), "no-such-dir", "key")},
		{"-retain", "0"},
		{"-retain", "many"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stdout, stderr strings.Builder
			err := Run(context.Background(), "paygate-sandbox", args, envOf(nil), &stdout, &stderr)
			require.Error(t, err)
			assert.Empty(t, stdout.String(), "nothing is announced when nothing listens")
		})
	}
}

// Without a key the sandbox never takes the published one: it makes a
// random key, writes it to a file only its owner reads, says where, and
// removes the file at shutdown.
func TestRun_WithoutAKeyMakesARandomOneInAPrivateFile(t *testing.T) {
	var stderr cmdtest.Buffer
	base, stop := startRun(t, &stderr)
	resp := advanceClock(t, base, paygatetest.DefaultPrivateKey)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "the published key does not work")

	m := regexp.MustCompile(`private key made at random, in (\S+) `).FindStringSubmatch(stderr.String())
	require.NotNil(t, m, "the start line says where the key is: %s", stderr.String())
	info, err := os.Stat(m[1])
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	key, err := os.ReadFile(m[1])
	require.NoError(t, err)
	assert.NotContains(t, stderr.String(), string(key), "the key is never printed")
	resp = advanceClock(t, base, string(key))
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	stop()
	_, err = os.Stat(m[1])
	assert.ErrorIs(t, err, os.ErrNotExist, "the key dies with the server")
}

func TestRun_KeyFromTheEnvironmentOrAChosenFile(t *testing.T) {
	var stderr cmdtest.Buffer
	base, _ := startRunEnv(t, &stderr, map[string]string{"PAYGATE_PROJECT": "env-project", "PAYGATE_SECRET": "env-secret"})
	resp := advanceClock(t, base, "env-secret")
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, stderr.String(), "project env-project, extended form (private key from PAYGATE_SECRET)")
	assert.NotContains(t, stderr.String(), "env-secret")

	file := filepath.Join(t.TempDir(), "sandbox.key")
	var stderr2 cmdtest.Buffer
	base, _ = startRun(t, &stderr2, "-secret-file", file)
	key, err := os.ReadFile(file)
	require.NoError(t, err)
	resp = advanceClock(t, base, string(key))
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, stderr2.String(), "made at random, in "+file)

}

func TestRun_WarnsOfThePublishedKey(t *testing.T) {
	var stderr cmdtest.Buffer
	startRun(t, &stderr, "-secret", paygatetest.DefaultPrivateKey)
	assert.Contains(t, stderr.String(), "warning: the private key is the published")
}

// The sandbox says where its callbacks go, or that they go nowhere, as a
// newcomer otherwise learns only from a handler that never hears of them.
func TestRun_SaysWhereCallbacksGo(t *testing.T) {
	var stderr cmdtest.Buffer
	_, stop := startRun(t, &stderr, "-secret", "s", "-callback-url", "http://127.0.0.1:9090/callbacks")
	stop()
	assert.Contains(t, stderr.String(), "callbacks go to http://127.0.0.1:9090/callbacks\n")

	stderr = cmdtest.Buffer{}
	_, stop = startRun(t, &stderr, "-secret", "s")
	stop()
	assert.Contains(t, stderr.String(), "no callback URL: callbacks are recorded only")
}
