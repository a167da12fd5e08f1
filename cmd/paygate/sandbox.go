package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/paygate/paygate-go/internal/cmd/sandboxcmd"
	"github.com/paygate/paygate-go/paygatetest"
)

// sandboxLong is the help of paygate sandbox: its flags, then every
// operation of the control plane as the sandbox itself describes them.
var sandboxLong = `Serve the sandbox: a stateful fake gateway (package paygatetest) for tests in
any language, with the API under /v1/, the 3-D Secure and confirm pages, and
the control plane and dashboard under /sandbox/ (Authorization: Bearer
<private key>). It takes the flags paygate-sandbox takes; "paygate sandbox -h"
lists them all:

  --addr HOST:PORT      address to listen on (127.0.0.1:0 picks a free port)
  --project KEY         the project's public key (default $PAYGATE_PROJECT)
  --secret KEY          the private key (default $PAYGATE_SECRET, else the one
                        in --secret-file or FILE.key beside --state, made at
                        random when missing; never printed)
  --callback-url URL    where the signed callbacks go
  --form extended|basic
  --public-url URL      the address browsers reach it at
  --retain N            how many transactions it keeps
  --state FILE          keep the state in FILE across restarts and crashes
  --fixtures FILE       load a scenario (JSON) into a new state at start
  --healthcheck         instead of serving, exit 0 if the sandbox on --addr
                        answers GET ` + paygatetest.HealthPath + `, 1 if not

It prints "listening on http://ADDR" on standard output once it accepts
connections; the project key, where the private key came from, a one-time
dashboard login link (valid 5 minutes) and where callbacks go on standard
error; and stops on SIGINT or SIGTERM. GET ` + paygatetest.HealthPath + ` answers 200
without a key once it serves.

Every operation below is a command too: paygate trigger, deliveries,
redeliver, listen, callback-url, clock, fault, fixtures, reset, dashboard and
transactions list --sandbox (each with --base-url of the sandbox).

` + paygatetest.ControlPlaneHelp

func newSandboxCmd(cfg *config) *cobra.Command {
	return &cobra.Command{
		Use:   "sandbox [flags]",
		Short: "Serve the sandbox (the flags of paygate-sandbox)",
		Long:  sandboxLong,
		// The sandbox's flags are sandboxcmd's, so that paygate-sandbox and
		// paygate sandbox keep one set.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			err := sandboxcmd.Run(cmd.Context(), "paygate sandbox", args, cfg.env.getenv, cfg.env.stdout, cfg.env.stderr)
			if errors.Is(err, flag.ErrHelp) {
				// The usage printed lists the flags only: say where the rest is.
				fmt.Fprintln(cfg.env.stderr, `The control plane's operations, what the sandbox prints and the commands that drive it: "paygate help sandbox".`)
				return nil // asking for the usage is no failure
			}
			return err
		},
	}
}
