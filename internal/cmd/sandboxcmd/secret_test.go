package sandboxcmd

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/internal/testkit/cmdtest"
	"github.com/paygate/paygate-go/paygatetest"
)

// With a state file and no key given, the random key is kept beside the
// state: every client keeps working after a restart that restored the
// state, and the start line says where the key is.
func TestRun_TheRandomKeyOfAStateFileSurvivesARestart(t *testing.T) {
	state := filepath.Join(t.TempDir(), "sandbox.json")
	var stderr cmdtest.Buffer
	base, stop := startRun(t, &stderr, "-state", state)
	assert.Contains(t, stderr.String(), "made at random, in "+state+".key")
	key, err := os.ReadFile(state + ".key")
	require.NoError(t, err)
	resp := advanceClock(t, base, string(key))
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	stop()
	_, err = os.Stat(state + ".key")
	require.NoError(t, err, "the key is kept with the state")

	var again cmdtest.Buffer
	base, _ = startRun(t, &again, "-state", state)
	assert.Contains(t, again.String(), "read from "+state+".key")
	assert.NotContains(t, again.String(), string(key), "the key is never printed")
	resp = advanceClock(t, base, string(key))
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the key of the first start still works")
}

// A key file left behind (a sandbox killed with -9 never removes its own)
// is read again, not refused: a restart with the same -secret-file works.
func TestRun_AKeyFileLeftBehindIsReadAgain(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sandbox.key")
	require.NoError(t, os.WriteFile(file, []byte("sk_left_behind_0123456789\n"), 0o600))
	var stderr cmdtest.Buffer
	base, stop := startRun(t, &stderr, "-secret-file", file)
	assert.Contains(t, stderr.String(), "private key read from "+file)
	resp := advanceClock(t, base, "sk_left_behind_0123456789")
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	stop()
	got, err := os.ReadFile(file)
	require.NoError(t, err, "a chosen key file outlives the server")
	assert.Equal(t, "sk_left_behind_0123456789\n", string(got), "and is never overwritten")
}

// A key file others may read or write, a link, or an empty one is
// refused, naming the file and what to do.
func TestRun_AKeyFileOthersCouldHaveReadIsRefused(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open.key")
	require.NoError(t, os.WriteFile(open, []byte("sk_open"), 0o644))
	empty := filepath.Join(dir, "empty.key")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	link := filepath.Join(dir, "link.key")
	require.NoError(t, os.Symlink(empty, link))
	for _, tt := range []struct{ file, want string }{
		{open, "chmod 600 " + open},
		{empty, empty + " is empty"},
		{link, link + " is not a regular file"},
	} {
		var out strings.Builder
		err := Run(context.Background(), "paygate-sandbox", []string{"-addr", "127.0.0.1:0", "-secret-file", tt.file}, envOf(nil), &out, io.Discard)
		require.Error(t, err, tt.file)
		assert.Contains(t, err.Error(), tt.want)
		assert.Empty(t, out.String(), "never listening")
	}
}

// A request signed with another key is answered with the file the
// sandbox's key is in, never the key.
func TestRun_AWrongSignatureNamesTheKeyFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sandbox.key")
	var stderr cmdtest.Buffer
	base, _ := startRun(t, &stderr, "-secret-file", file)
	key, err := os.ReadFile(file)
	require.NoError(t, err)
	v := url.Values{"project": {paygatetest.DefaultProjectKey}, "identifier": {"u"}, "ip": {"192.0.2.1"}}
	v.Set("signature", paygate.Sign(v, "sk_from_an_old_start"))
	resp, err := http.PostForm(base+"/v1/user/resolve", v)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, string(body), "with the private key from the file "+file)
	assert.NotContains(t, string(body), string(key))
}
