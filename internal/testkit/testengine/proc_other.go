//go:build !linux

package testengine

import (
	"errors"
	"os/exec"
)

// start starts cmd. Outside Linux there is no parent-death signal: a
// server outlives a test binary killed before its cleanup ran.
func start(cmd *exec.Cmd) error { return cmd.Start() }

// runAs is needed only as root, which these tests support on Linux only.
func runAs(*exec.Cmd, int, int) error {
	return errors.New("running the tests as root is supported on Linux only")
}
