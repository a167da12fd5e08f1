package paygatetest_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestControlPlane_FromPython drives the control plane from Python's
// standard library (Debian's python3; .ci/install-python installs it):
// fixtures seeded, transactions listed page by page, the clock read and
// moved, as a test written in another language does.
func TestControlPlane_FromPython(t *testing.T) {
	t.Parallel()
	out := runControlPlaneClient(t, newSandbox(t), "python3", ".ci/install-python", "testdata/controlplane_client.py")
	require.Contains(t, out, "control plane from Python: 10 transactions")
}

// runControlPlaneClient runs script with interpreter (from PATH; installer
// is the .ci script that installs it) against the sandbox s, given its
// address, its key, the example fixtures and env, and returns what it
// printed once it exits 0.
func runControlPlaneClient(t *testing.T, s *sandbox, interpreter, installer, script string, env ...string) string {
	t.Helper()
	bin, err := exec.LookPath(interpreter)
	require.NoError(t, err, "%s is needed: run %s", interpreter, installer)
	fixtures, err := filepath.Abs("testdata/fixtures/example.json")
	require.NoError(t, err)
	cmd := exec.Command(bin, script)
	cmd.Env = append([]string{"PAYGATE_SANDBOX_URL=" + s.srv.URL, "PAYGATE_SECRET=" + s.srv.PrivateKey, "FIXTURES=" + fixtures}, env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}
