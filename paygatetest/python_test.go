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
	python, err := exec.LookPath("python3")
	require.NoError(t, err, "python3 is needed: run .ci/install-python")
	s := newSandbox(t)
	fixtures, err := filepath.Abs("testdata/fixtures/example.json")
	require.NoError(t, err)
	cmd := exec.Command(python, "testdata/controlplane_client.py")
	cmd.Env = []string{"PAYGATE_SANDBOX_URL=" + s.srv.URL, "PAYGATE_SECRET=" + s.srv.PrivateKey, "FIXTURES=" + fixtures}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "control plane from Python: 10 transactions")
}
