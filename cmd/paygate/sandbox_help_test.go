package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate-go/paygatetest"
)

// paygate help sandbox prints every operation of the control plane as the
// sandbox describes them, and the flags that keep and seed its state.
func TestHelpSandbox_PrintsTheWholeControlPlane(t *testing.T) {
	t.Parallel()
	r := paygateCmd(t, nil, "", "help", "sandbox")
	assert.Zero(t, r.code)
	assert.Contains(t, r.stdout, paygatetest.ControlPlaneHelp)
	for _, want := range []string{"GET  /sandbox/transactions", "GET  /sandbox/clock", "POST /sandbox/fixtures", "--state FILE", "--fixtures FILE"} {
		assert.Contains(t, r.stdout, want)
	}
}

// paygate sandbox --help prints the sandbox's flags, and says where the
// rest is: the control plane is in paygate help sandbox.
func TestSandbox_HelpFlagPointsAtHelpSandbox(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--help", "-h"} {
		r := paygateCmd(t, nil, "", "sandbox", flag)
		assert.Zero(t, r.code, flag)
		assert.Contains(t, r.stdout+r.stderr, "-callback-url", flag)
		assert.Contains(t, r.stdout+r.stderr, `"paygate help sandbox"`, flag)
	}
}
