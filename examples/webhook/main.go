// Command webhook is a runnable receiver of the gateway's callbacks, to
// copy into a merchant's service.
//
//	PAYGATE_BASE_URL=https://... PAYGATE_PROJECT=pk_... PAYGATE_SECRET=sk_... \
//	    go run ./examples/webhook -addr 127.0.0.1:9090 [-form extended|basic]
//
// It answers every path of -addr (set the project's callback URL to any
// path on it). For each callback it answers 200 with body OK once the
// callback is processed, 403 to a missing or wrong signature, 400 to a
// correctly signed callback it cannot read (no id, an id that is not a
// number, a field sent twice), 405 to anything but POST and 413 to a body
// over 64 KiB.
//
// The signature covers the values of a callback, not their field names, so
// a verified callback is confirmed against the gateway's own record of its
// transaction (Client.ConfirmCallback) before it is processed, as the
// handler of docs/webhooks.md does. A callback that disagrees with the
// record (values moved between fields, a transaction still changing) or
// that cannot be confirmed (the gateway unreachable) is answered 500, so
// that the gateway delivers it again, and is not processed; one whose
// transaction has moved on since (a later status processed already, or a
// record that reads a later status: a payment charged back or refunded
// since) is acknowledged with 200, logged at info level and not processed
// either. Processing prints one line to standard output:
//
//	callback id=<id> status=<status>
//
// A repeated delivery of the same callback is acknowledged again but
// processed, and printed, once. The line "listening on http://ADDR", stale
// and refused callbacks and other diagnostics go to standard error.
//
// PAYGATE_SECRET, the project's private key, authenticates a callback.
// PAYGATE_BASE_URL and PAYGATE_PROJECT (the public key) are where and as
// whom a callback is confirmed; -form is the project's form of the
// interface. The three are required. PAYGATE_PROJECT is not compared with
// the callback's project field, which the gateway documents as its numeric
// project id rather than the public key; the private key is per project, so
// a callback it verifies is the project's. PAYGATE_INSECURE_HTTP=1 allows a
// plain http:// base URL on a private test network (a sandbox in another
// container), as for the other examples.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/paygate/paygate-go"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "webhook:", err)
		os.Exit(1)
	}
}

// run serves callbacks until ctx is done.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("webhook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:9090", "address to listen on")
	formName := fs.String("form", "extended", "the project's form of the interface: extended or basic")
	if err := fs.Parse(args); err != nil {
		return err
	}
	client, err := gatewayClient(getenv, *formName)
	if err != nil {
		return err
	}
	handler, err := newHandler(getenv("PAYGATE_SECRET"), client, stdout, stderr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	// Bounded reads and writes: a slow sender cannot hold a handler open.
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	fmt.Fprintf(stderr, "listening on http://%s\n", ln.Addr())

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}

// gatewayClient is the client that confirms callbacks, from the
// environment and the -form flag.
func gatewayClient(getenv func(string) string, formName string) (*paygate.Client, error) {
	var missing []string
	for _, name := range []string{"PAYGATE_SECRET", "PAYGATE_PROJECT", "PAYGATE_BASE_URL"} {
		if getenv(name) == "" {
			missing = append(missing, name)
		}
	}
	if missing != nil {
		return nil, fmt.Errorf("%s not set: PAYGATE_SECRET must hold the project's private key, which signs the callbacks, "+
			"and PAYGATE_BASE_URL and PAYGATE_PROJECT the gateway and public key that confirm them", strings.Join(missing, ", "))
	}
	var form paygate.Form
	switch formName {
	case "extended":
		form = paygate.FormExtended
	case "basic":
		form = paygate.FormBasic
	default:
		return nil, fmt.Errorf("-form must be extended or basic, not %q", formName)
	}
	opts := []paygate.Option{
		paygate.WithBaseURL(getenv("PAYGATE_BASE_URL")), paygate.WithForm(form), paygate.WithAppInfo("webhook", paygate.Version),
		// A confirmation must end before the gateway gives up on the
		// answer: within the server's write timeout.
		paygate.WithTimeout(20 * time.Second),
	}
	if getenv("PAYGATE_INSECURE_HTTP") == "1" {
		opts = append(opts, paygate.WithInsecureHTTP())
	}
	return paygate.NewClient(getenv("PAYGATE_PROJECT"), getenv("PAYGATE_SECRET"), opts...)
}
