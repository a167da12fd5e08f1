package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHelp_DocumentsExitCodesAndEveryCommand(t *testing.T) {
	t.Parallel()
	r := paygateCmd(t, nil, "", "help")
	assert.Zero(t, r.code)
	assert.Contains(t, r.stdout, "Exit codes:")
	for _, c := range []string{"sandbox", "trigger", "sign", "verify", "get", "post", "transactions", "balance", "reconcile", "deliveries", "redeliver", "version", "completion"} {
		assert.Contains(t, r.stdout, "\n  "+c+" ", "help lists %s", c)
	}
	r = paygateCmd(t, nil, "", "help", "sandbox")
	assert.Zero(t, r.code)
	assert.Contains(t, r.stdout, "/sandbox/transactions/{id}/{event}")
}

func TestSandbox_DashHPrintsTheSandboxFlagsAndExitsZero(t *testing.T) {
	t.Parallel()
	r := paygateCmd(t, nil, "", "sandbox", "-h")
	assert.Zero(t, r.code)
	assert.Contains(t, r.stderr, "-public-url")
}

func TestCompletion_IsCobras(t *testing.T) {
	t.Parallel()
	r := paygateCmd(t, nil, "", "completion", "bash")
	assert.Zero(t, r.code)
	assert.Contains(t, r.stdout, "bash completion")
}

func TestCompletion_OffersEventsOrWithToCallbackStatuses(t *testing.T) {
	t.Parallel()
	r := paygateCmd(t, nil, "", "__complete", "trigger", "")
	assert.Zero(t, r.code)
	assert.Contains(t, r.stdout, "chargeback\n")
	assert.NotContains(t, r.stdout, "chargeback_completed")
	r = paygateCmd(t, nil, "", "__complete", "trigger", "--to", "http://127.0.0.1:9/", "")
	assert.Contains(t, r.stdout, "chargeback_completed\n")
}

func TestExitCodes_UsageIsTwo(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"unknown command":  {"refund"},
		"unknown flag":     {"balance", "--nope"},
		"missing argument": {"transactions", "get"},
		"not name=value":   {"sign", "novalue"},
		"no configuration": {"balance"},
		"sandbox bad flag": {"sandbox", "--nope"},
		"bad transaction":  {"transactions", "get", "12x"},
	} {
		r := paygateCmd(t, nil, "", args...)
		assert.Equal(t, exitUsage, r.code, "%s: stderr %s", name, r.stderr)
	}
}
