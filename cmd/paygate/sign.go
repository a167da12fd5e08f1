package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"

	"github.com/spf13/cobra"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

// maxBody bounds a body read from a file or standard input: a callback is
// at most 64 KiB, a request far less.
const maxBody = 1 << 20

func newSignCmd(cfg *config) *cobra.Command {
	var body string
	cmd := &cobra.Command{
		Use:   "sign [name=value ...] [--body FILE|-]",
		Short: "Print the canonical string and the signature of parameters",
		Long: `Print the canonical string and the signature of the given parameters under
the private key ($PAYGATE_SECRET): every value but the signature's, sorted as
byte strings, joined with "|", HMAC-SHA256, lowercase hex. The parameters are
name=value arguments, or a request or callback body (a form, or a JSON
object as the gateway's JSON clients send) read from --body FILE, or from
standard input with --body -. Arguments are signed with project added from
--project or $PAYGATE_PROJECT unless one is given, as the SDK sends every
request; a body is signed exactly as it is.

sign is for requests to the gateway, but signs whatever it is given: the
gateway signs a callback's values the same way, whatever their names, so
the signature of a callback's values makes a callback handler
(callback.NewHandler) accept that callback. What sign prints is as
sensitive as what it signs. When the values hold a callback's status,
sign says so on standard error.`,
		Example: `  PAYGATE_PROJECT=pk_1 PAYGATE_SECRET=... paygate sign identifier=cust-42 ip=203.0.113.7
  paygate sign --body callback.txt --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			secret, params, err := cfg.keyAndParams(args, body)
			if err != nil {
				return err
			}
			if len(args) > 0 {
				cfg.addProject(params)
			}
			out := signature{Canonical: paygate.CanonicalString(params), Signature: paygate.Sign(params, secret)}
			if status := params.Get("status"); callback.Status(status).Known() {
				fmt.Fprintf(cfg.env.stderr, "paygate: note: status=%s is a callback's: this signature also makes a callback of these values verify "+
					"(callback.NewHandler accepts it); sign is for requests to the gateway\n", status)
			}
			return cfg.emit(out, func(w io.Writer) {
				fmt.Fprintln(w, "canonical:", printable(out.Canonical))
				fmt.Fprintln(w, "signature:", out.Signature)
			})
		},
	}
	cmd.Flags().StringVar(&body, "body", "", "read the parameters from a form or JSON body in FILE (- for standard input)")
	return cmd
}

// signature is what sign prints.
type signature struct {
	Canonical string `json:"canonical"`
	Signature string `json:"signature"`
}

// keyAndParams returns the private key and the parameters (readParams)
// that sign and verify work on.
func (c *config) keyAndParams(args []string, body string) (string, url.Values, error) {
	secret, err := c.privateKey()
	if err != nil {
		return "", nil, err
	}
	params, err := c.readParams(args, body)
	return secret, params, err
}

// readParams returns the name=value args, or the body named by body (a
// path, or "-" for standard input); not both.
func (c *config) readParams(args []string, body string) (url.Values, error) {
	switch {
	case body != "" && len(args) > 0:
		return nil, usagef("give name=value arguments or --body, not both")
	case body == "" && len(args) == 0:
		return nil, usagef("no parameters: give name=value arguments or --body FILE")
	case body == "":
		return parseParams(args)
	}
	var r io.Reader = c.env.stdin
	if body != "-" {
		f, err := os.Open(body)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	raw, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxBody {
		return nil, fmt.Errorf("the body is larger than %d bytes", maxBody)
	}
	return parseBody(raw)
}

// parseBody reads a form body, or a JSON object, as the sandbox reads the
// parameters of a request (paygatetest.RequestParams).
func parseBody(raw []byte) (url.Values, error) {
	trimmed := bytes.TrimSpace(raw)
	req, err := http.NewRequest(http.MethodPost, "/", bytes.NewReader(trimmed))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		req.Header.Set("Content-Type", "application/json")
	}
	v, err := paygatetest.RequestParams(req)
	if err != nil {
		return nil, fmt.Errorf("the body is neither a form nor a JSON object within the sandbox's bounds: %w", err)
	}
	return v, nil
}

// addProject adds the configured project key to the name=value arguments
// sign signs, unless they hold one: every request of the SDK carries it,
// so a signature without it is not the one the SDK sent.
func (c *config) addProject(params url.Values) {
	if params.Has("project") {
		return
	}
	project, err := c.projectKey()
	if err != nil {
		fmt.Fprintln(c.env.stderr, "paygate: note: no project key (--project, PAYGATE_PROJECT), so none is signed; every request of the SDK carries project")
		return
	}
	params.Set("project", project)
}
