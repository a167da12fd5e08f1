package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paygate/paygate-go"
)

// Exit codes, as "paygate help" documents them.
const (
	exitOK     = 0
	exitError  = 1
	exitUsage  = 2
	exitFailed = 3
)

// environ is what a run of the command reads and writes, so that tests
// can run it in-process as well as built.
type environ struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// usageError is a command used wrongly: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// checkFailed is a check that did not pass (a signature, a delivery):
// exit code 3. What went wrong was printed already.
type checkFailed struct{ msg string }

func (e *checkFailed) Error() string { return e.msg }

// run runs the command line args and returns the exit code.
func run(ctx context.Context, args []string, env environ) int {
	cfg := &config{env: env}
	root := newRoot(cfg)
	root.SetArgs(args)
	root.SetIn(env.stdin)
	root.SetOut(env.stdout)
	root.SetErr(env.stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	if cfg.json {
		printJSONError(env.stderr, err, code)
		return code
	}
	fmt.Fprintln(env.stderr, "paygate:", errorText(err))
	if code == exitUsage {
		fmt.Fprintln(env.stderr, `Run "paygate help" for usage.`)
	}
	return code
}

// exitCode is the exit code of a run that ended with err.
func exitCode(err error) int {
	var usage *usageError
	var invalid *paygate.ValidationError
	var failed *checkFailed
	switch {
	case errors.As(err, &usage), errors.As(err, &invalid), isCobraUsage(err):
		return exitUsage
	case errors.As(err, &failed):
		return exitFailed
	}
	return exitError
}

// printJSONError prints err as --json prints an error, on standard error
// (standard output holds data only, which a failed check may have
// printed): {"error":{"message":...,"code":...}}, the code the gateway's
// or the sandbox's (a number) when the error is theirs, else "usage",
// "failed" or "error" by the exit code. The message is the exact text;
// JSON escapes what the terminal must not see raw.
func printJSONError(w io.Writer, err error, exit int) {
	var code any = map[int]string{exitUsage: "usage", exitFailed: "failed"}[exit]
	if code == "" {
		code = "error"
	}
	var gw *paygate.Error
	var cp *controlPlaneError
	switch {
	case errors.As(err, &gw) && gw.Code != 0:
		code = int(gw.Code)
	case errors.As(err, &cp):
		code = json.Number(cp.Code)
	}
	out := struct {
		Error struct {
			Message string `json:"message"`
			Code    any    `json:"code"`
		} `json:"error"`
	}{}
	out.Error.Message = strings.TrimPrefix(err.Error(), "paygate: ")
	out.Error.Code = code
	if printJSON(w, out) != nil {
		fmt.Fprintln(w, "paygate:", errorText(err))
	}
}

// isCobraUsage reports whether err is cobra's own complaint about the
// command line (an unknown command or flag, wrong arguments).
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "invalid argument", "flag needs an argument", "required flag", "flag provided but not defined", "bad flag syntax"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

const rootLong = `paygate drives the Payment Gateway from a terminal or a CI job.

Configuration: flags first, then the environment.
  --project   PAYGATE_PROJECT    the project's public key
  --secret    PAYGATE_SECRET     the project's private key (never printed;
                                 prefer the environment: a command line is
                                 visible to every user of the machine)
  --base-url  PAYGATE_BASE_URL   the gateway or sandbox, e.g. http://127.0.0.1:8080:
                                 https://, or http:// to this machine unless
                                 --insecure-http; the sandbox's control plane
                                 (trigger, deliveries, redeliver, listen,
                                 callback-url, clock, fault, fixtures, reset,
                                 dashboard, transactions list --sandbox) is
                                 sent the private key, so it must be on this
                                 machine unless --remote-sandbox

Every command that prints data prints JSON with --json; with --json an error
is a JSON object on standard error: {"error":{"message":"...","code":...}},
the code the gateway's or the sandbox's (a number) when the error is theirs,
else "usage", "failed" or "error".

Exit codes:
  0  success
  1  an error (network, gateway error, unreadable input)
  2  a usage error (unknown command or flag, wrong arguments, missing
     configuration, a parameter the SDK refuses before sending)
  3  a check failed: a signature does not verify (verify), a callback
     receiver did not accept a callback (trigger, trigger --to)`

func newRoot(cfg *config) *cobra.Command {
	root := &cobra.Command{
		Use:           "paygate",
		Short:         "The Payment Gateway's command: sandbox, callbacks, signatures, raw calls, queries",
		Long:          rootLong,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{msg: err.Error()} })
	f := root.PersistentFlags()
	f.StringVar(&cfg.project, "project", "", "the project's public key (default $PAYGATE_PROJECT)")
	f.StringVar(&cfg.secret, "secret", "", "the project's private key (default $PAYGATE_SECRET)")
	f.StringVar(&cfg.baseURL, "base-url", "", "the gateway's or sandbox's address (default $PAYGATE_BASE_URL)")
	f.StringVar(&cfg.form, "form", "extended", "form of the interface: extended or basic")
	f.BoolVar(&cfg.insecure, "insecure-http", false, "allow plain http:// to a host that is not loopback (a sandbox in another container)")
	f.BoolVar(&cfg.remoteSandbox, "remote-sandbox", false, "the --base-url on another host is a sandbox: its control plane may be sent the private key")
	f.BoolVar(&cfg.json, "json", false, "print data as JSON")
	root.AddCommand(
		newSandboxCmd(cfg),
		newTriggerCmd(cfg),
		newSignCmd(cfg),
		newVerifyCmd(cfg),
		newRawCmd(cfg, "get"),
		newRawCmd(cfg, "post"),
		newTransactionsCmd(cfg),
		newBalanceCmd(cfg),
		newReconcileCmd(cfg),
		newDeliveriesCmd(cfg),
		newRedeliverCmd(cfg),
		newListenCmd(cfg),
		newCallbackURLCmd(cfg),
		newClockCmd(cfg),
		newFaultCmd(cfg),
		newFixturesCmd(cfg),
		newResetCmd(cfg),
		newDashboardCmd(cfg),
		newVersionCmd(cfg),
	)
	return root
}

// exactArgs is cobra.ExactArgs as a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %d argument(s), got %d", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}

// config is the configuration every command reads.
type config struct {
	env      environ
	project  string
	secret   string
	baseURL  string
	form     string
	insecure bool
	// remoteSandbox allows the control plane's commands to send the
	// private key to a --base-url that is not loopback.
	remoteSandbox bool
	json          bool
}

// projectKey is --project, else $PAYGATE_PROJECT.
func (c *config) projectKey() (string, error) {
	if k := firstOf(c.project, c.env.getenv("PAYGATE_PROJECT")); k != "" {
		return k, nil
	}
	return "", usagef("no project key: give --project or set PAYGATE_PROJECT")
}

// privateKey is --secret, else $PAYGATE_SECRET.
func (c *config) privateKey() (string, error) {
	if k := firstOf(c.secret, c.env.getenv("PAYGATE_SECRET")); k != "" {
		return k, nil
	}
	return "", usagef("no private key: set PAYGATE_SECRET (or give --secret)")
}

// base is --base-url, else $PAYGATE_BASE_URL; empty for the SDK's default.
func (c *config) base() string {
	return strings.TrimRight(firstOf(c.baseURL, c.env.getenv("PAYGATE_BASE_URL")), "/")
}

func (c *config) parsedForm() (paygate.Form, error) {
	switch c.form {
	case "extended":
		return paygate.FormExtended, nil
	case "basic":
		return paygate.FormBasic, nil
	}
	return 0, usagef("--form must be extended or basic, not %q", c.form)
}

// client returns an SDK client of the configured project and gateway.
func (c *config) client() (*paygate.Client, error) {
	project, err := c.projectKey()
	if err != nil {
		return nil, err
	}
	secret, err := c.privateKey()
	if err != nil {
		return nil, err
	}
	form, err := c.parsedForm()
	if err != nil {
		return nil, err
	}
	b, err := c.gatewayBase()
	if err != nil {
		return nil, err
	}
	opts := []paygate.Option{paygate.WithForm(form), paygate.WithAppInfo("paygate-cli", "1")}
	if b != "" {
		opts = append(opts, paygate.WithBaseURL(b))
	}
	if c.insecure {
		opts = append(opts, paygate.WithInsecureHTTP())
	}
	return paygate.NewClient(project, secret, opts...)
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
