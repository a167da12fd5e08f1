package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain_HelpExitsZero runs the built command with -h: usage, exit 0.
func TestMain_HelpExitsZero(t *testing.T) {
	if os.Getenv("PAYGATE_SANDBOX_MAIN") == "1" {
		os.Args = []string{"paygate-sandbox", "-h"}
		main()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMain_HelpExitsZero$")
	cmd.Env = append(os.Environ(), "PAYGATE_SANDBOX_MAIN=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "exit status of -h: %s", out)
	assert.Contains(t, string(out), "-public-url")
}

// TestMain_VersionExitsZero runs the built command with -version: the
// SDK's version from the build information ("(devel)" in a working tree;
// .ci/release-check installs a release and sees its version), exit 0.
func TestMain_VersionExitsZero(t *testing.T) {
	if os.Getenv("PAYGATE_SANDBOX_MAIN") == "1" {
		os.Args = []string{"paygate-sandbox", "-version"}
		main()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMain_VersionExitsZero$")
	cmd.Env = append(os.Environ(), "PAYGATE_SANDBOX_MAIN=1")
	out, err := cmd.Output()
	require.NoError(t, err, "exit status of -version: %s", out)
	assert.Regexp(t, `^paygate-sandbox \(devel\) go1\.\S+ \S+/\S+\n`, string(out))
}
