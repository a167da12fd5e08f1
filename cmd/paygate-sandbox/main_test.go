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
