package sandboxcmd

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/internal/testkit/cmdtest"
)

func TestRun_PrintsAOneTimeDashboardLoginLink(t *testing.T) {
	var stderr cmdtest.Buffer
	base, stop := startRun(t, &stderr, "-project", "demo", "-secret", "demo-secret")
	link := regexp.MustCompile(`dashboard login link \(single use, valid 5 minutes\): (\S+)`).FindStringSubmatch(stderr.String())
	require.NotNil(t, link, stderr.String())
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(link[1])
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Regexp(t, `^`+regexp.QuoteMeta(base)+`/sandbox/login\?token=`, link[1])
	stop()
	assert.NotContains(t, stderr.String(), "demo-secret")
}

// The fixtures load into a new state file only: at a restart the state
// file holds them, with whatever the tests changed since.
func TestRun_FixturesLoadIntoANewStateOnly(t *testing.T) {
	dir := t.TempDir()
	state, fixtures := filepath.Join(dir, "state.json"), filepath.Join(dir, "fixtures.json")
	require.NoError(t, os.WriteFile(fixtures, []byte(`{"users":[{"name":"a"}],"payments":[{"user":"a"}]}`), 0o600))
	count := func(base string) int {
		req, err := http.NewRequest(http.MethodGet, base+"/sandbox/transactions", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer demo-secret")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var out struct{ Total int }
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		return out.Total
	}
	for i, want := range []string{"fixtures " + fixtures + " loaded", "not loaded: the state file holds"} {
		var stderr cmdtest.Buffer
		base, stop := startRun(t, &stderr, "-project", "demo", "-secret", "demo-secret", "-state", state, "-fixtures", fixtures)
		assert.Contains(t, stderr.String(), want)
		assert.Equal(t, 1, count(base), "start %d: one payment", i+1)
		stop()
	}
}

func TestRun_RefusesMissingFixturesAndACorruptState(t *testing.T) {
	dir := t.TempDir()
	err := Run(context.Background(), "paygate-sandbox", []string{"-addr", "127.0.0.1:0", "-secret", "s", "-fixtures", filepath.Join(dir, "none.json")},
		envOf(nil), &cmdtest.Buffer{}, &cmdtest.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "none.json")
	state := filepath.Join(dir, "state.json")
	require.NoError(t, os.WriteFile(state, []byte("{"), 0o600))
	err = Run(context.Background(), "paygate-sandbox", []string{"-addr", "127.0.0.1:0", "-secret", "s", "-state", state},
		envOf(nil), &cmdtest.Buffer{}, &cmdtest.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), state)
}

// Two sandboxes on one -state file would overwrite each other's state: the
// second stops at start, saying which file and who holds it.
func TestRun_ASecondSandboxOnOneStateFileIsRefused(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	_, stop := startRun(t, &cmdtest.Buffer{}, "-secret", "s", "-state", state)
	defer stop()
	// Refused at once; were it not, it would serve until the context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := Run(ctx, "paygate-sandbox", []string{"-addr", "127.0.0.1:0", "-secret", "s", "-state", state},
		envOf(nil), &cmdtest.Buffer{}, &cmdtest.Buffer{})
	require.Error(t, err, "the second sandbox served")
	assert.Contains(t, err.Error(), state)
	assert.Contains(t, err.Error(), "in use by another sandbox")
	assert.Contains(t, err.Error(), "process "+strconv.Itoa(os.Getpid()))
}
