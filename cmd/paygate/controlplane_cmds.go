package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/paygate/paygate-go/paygatetest"
)

// The commands of the sandbox's control plane that are one call each: the
// clock, faults, fixtures, reset, a dashboard link and the callback URL.
// Each names the operations it calls (calls), which a test holds to
// paygatetest.ControlPlaneHelp.

func newClockCmd(cfg *config) *cobra.Command {
	var advance string
	cmd := &cobra.Command{
		Use:   "clock [--advance DURATION]",
		Short: "The sandbox's time; --advance moves it forward (GET/POST /sandbox/clock)",
		Long: `Print the sandbox's time, or with --advance DURATION (a Go duration: 36h,
90m) move it forward first, at most 10 years, running what became due: token
expiry, settlement, automatic recurring charges, callback retries. Only the
sandbox's own project moves the clock.`,
		Example:     "  paygate clock\n  paygate clock --advance 36h",
		Args:        exactArgs(0),
		Annotations: calls("GET /sandbox/clock", "POST /sandbox/clock"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cp, err := cfg.controlPlane()
			if err != nil {
				return err
			}
			var out struct {
				Now string `json:"now"`
			}
			if advance != "" {
				err = cp.do(cmd.Context(), http.MethodPost, "clock", url.Values{"advance": {advance}}, &out)
			} else {
				err = cp.do(cmd.Context(), http.MethodGet, "clock", nil, &out)
			}
			if err != nil {
				return err
			}
			return cfg.emit(out, func(w io.Writer) { fmt.Fprintln(w, "sandbox time:", printable(out.Now)) })
		},
	}
	cmd.Flags().StringVar(&advance, "advance", "", "move the clock forward by this Go duration first (e.g. 36h)")
	return cmd
}

func newFaultCmd(cfg *config) *cobra.Command {
	var count int
	cmd := &cobra.Command{
		Use:   "fault METHOD FAULT [--count N]",
		Short: "Make the project's next calls of METHOD fail (POST /sandbox/faults)",
		Long: `Make the project's next N calls of METHOD (an API path: balance, card/process,
transaction/status) suffer FAULT, to see what your code does with it. --count 0
removes the method's pending fault. The faults:` + faultList(),
		Example:     "  paygate fault card/process timeout-after-commit\n  paygate fault balance status-503 --count 3",
		Args:        exactArgs(2),
		Annotations: calls("POST /sandbox/faults"),
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) != 1 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []string
			for _, f := range paygatetest.Faults {
				names = append(names, string(f))
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cp, err := cfg.controlPlane()
			if err != nil {
				return err
			}
			var out map[string]any
			in := url.Values{"method": {args[0]}, "fault": {args[1]}, "count": {strconv.Itoa(count)}}
			if err := cp.do(cmd.Context(), http.MethodPost, "faults", in, &out); err != nil {
				return err
			}
			return cfg.emit(out, func(w io.Writer) {
				fmt.Fprintf(w, "the next %s call(s) of %s: %s\n", printable(fmt.Sprint(out["count"])),
					printable(fmt.Sprint(out["method"])), printable(fmt.Sprint(out["fault"])))
			})
		},
	}
	cmd.Flags().IntVar(&count, "count", 1, "how many calls (0 removes the pending fault)")
	return cmd
}

// faultList is the faults, one an indented line, for the help.
func faultList() string {
	out := ""
	for _, f := range paygatetest.Faults {
		out += "\n  " + string(f)
	}
	return out
}

func newFixturesCmd(cfg *config) *cobra.Command {
	return &cobra.Command{
		Use:   "fixtures FILE|-",
		Short: "Make a scenario in the sandbox from a fixture file (POST /sandbox/fixtures)",
		Long: `Make a scenario in the sandbox's project from a JSON fixture file (- for standard
input): users, remembered cards, payments in given states, subscriptions,
payouts, then steps. Prints the ids made, by the fixture's names. The format is
in paygatetest's package doc (section "Fixtures").`,
		Example:     "  paygate fixtures paygatetest/testdata/fixtures/example.json --json",
		Args:        exactArgs(1),
		Annotations: calls("POST /sandbox/fixtures"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cp, err := cfg.controlPlane()
			if err != nil {
				return err
			}
			var r io.Reader = cfg.env.stdin
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				r = f
			}
			var made map[string]map[string]textID
			if err := cp.send(cmd.Context(), http.MethodPost, "fixtures", "application/json", r, &made); err != nil {
				return err
			}
			return cfg.emit(made, func(w io.Writer) {
				for _, kind := range slices.Sorted(maps.Keys(made)) {
					for _, name := range slices.Sorted(maps.Keys(made[kind])) {
						fmt.Fprintf(w, "%s %s: %s\n", printable(kind), printable(name), printable(string(made[kind][name])))
					}
				}
			})
		},
	}
}

func newResetCmd(cfg *config) *cobra.Command {
	return &cobra.Command{
		Use:         "reset",
		Short:       "Make the sandbox's project forget its users, tokens, transactions and faults (POST /sandbox/reset)",
		Args:        exactArgs(0),
		Annotations: calls("POST /sandbox/reset"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cp, err := cfg.controlPlane()
			if err != nil {
				return err
			}
			var out map[string]any
			if err := cp.do(cmd.Context(), http.MethodPost, "reset", nil, &out); err != nil {
				return err
			}
			return cfg.emit(out, func(w io.Writer) {
				fmt.Fprintln(w, "the project's users, tokens, transactions and faults are forgotten")
			})
		},
	}
}

func newDashboardCmd(cfg *config) *cobra.Command {
	return &cobra.Command{
		Use:   "dashboard",
		Short: "A one-time link to the sandbox's dashboard (POST /sandbox/login-url)",
		Long: `Print a link that opens the sandbox's dashboard (GET /sandbox/) in a browser
without the private key: once, within 5 minutes.`,
		Args:        exactArgs(0),
		Annotations: calls("POST /sandbox/login-url", "GET /sandbox/"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cp, err := cfg.controlPlane()
			if err != nil {
				return err
			}
			var out struct {
				URL       string      `json:"url"`
				ExpiresIn json.Number `json:"expires_in"`
			}
			if err := cp.do(cmd.Context(), http.MethodPost, "login-url", nil, &out); err != nil {
				return err
			}
			return cfg.emit(out, func(w io.Writer) {
				fmt.Fprintln(w, printable(out.URL))
				fmt.Fprintf(cfg.env.stderr, "single use, valid %s seconds\n", printable(out.ExpiresIn.String()))
			})
		},
	}
}

func newCallbackURLCmd(cfg *config) *cobra.Command {
	var none bool
	cmd := &cobra.Command{
		Use:   "callback-url [URL | --none]",
		Short: "Where the sandbox's callbacks go; URL changes it (GET/POST /sandbox/callback-url)",
		Long: `Print where the sandbox's project sends its callbacks, or change it: URL, or
--none to record callbacks without sending them. Later callbacks go there;
earlier ones keep theirs. paygate listen changes it for a while and puts it
back.`,
		Example:     "  paygate callback-url\n  paygate callback-url http://127.0.0.1:9090/callbacks\n  paygate callback-url --none",
		Annotations: calls("GET /sandbox/callback-url", "POST /sandbox/callback-url"),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 || (none && len(args) > 0) {
				return usagef("callback-url takes one URL, or --none, or nothing to print it")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cp, err := cfg.controlPlane()
			if err != nil {
				return err
			}
			var out struct {
				URL      string  `json:"url"`
				Previous *string `json:"previous,omitempty"`
			}
			if len(args) == 0 && !none {
				err = cp.do(cmd.Context(), http.MethodGet, "callback-url", nil, &out)
			} else {
				target := ""
				if len(args) == 1 {
					target = args[0]
					if _, err := cfg.checkedURL("callback-url", target, "callbacks signed with the private key"); err != nil {
						return err
					}
				}
				err = cp.do(cmd.Context(), http.MethodPost, "callback-url", url.Values{"url": {target}}, &out)
			}
			if err != nil {
				return err
			}
			return cfg.emit(out, func(w io.Writer) { fmt.Fprintln(w, callbackTarget(out.URL)) })
		},
	}
	cmd.Flags().BoolVar(&none, "none", false, "record callbacks without sending them")
	return cmd
}

// callbackTarget says where callbacks go, for text output.
func callbackTarget(u string) string {
	if u == "" {
		return "no callback URL: callbacks are recorded only"
	}
	return "callbacks go to " + printable(u)
}
