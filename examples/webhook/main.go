// Command webhook is a runnable receiver of the gateway's callbacks, to
// copy into a merchant's service.
//
//	PAYGATE_SECRET=sk_... go run ./examples/webhook -addr 127.0.0.1:9090
//
// It answers every path of -addr (set the project's callback URL to any
// path on it). For each callback it answers 200 with body OK once the
// callback is processed, 403 to a missing or wrong signature, 400 to a
// correctly signed callback it cannot read (no id, an id that is not a
// number, a field sent twice), 405 to anything but POST and 413 to a body
// over 64 KiB. Processing prints one line to standard output:
//
//	callback id=<id> status=<status>
//
// A repeated delivery of the same callback (the same transaction id and
// status) is acknowledged again but processed, and printed, once. The line
// "listening on http://ADDR" and any diagnostics go to standard error.
//
// PAYGATE_SECRET, the project's private key, is required: it is what
// authenticates a callback. PAYGATE_PROJECT may be set as for the other
// examples but is not compared with the callback's project field, which the
// gateway documents as its numeric project id rather than the public key;
// the private key is per project, so a callback it verifies is the
// project's.
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
	"sync"
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
	if err := fs.Parse(args); err != nil {
		return err
	}
	secret := getenv("PAYGATE_SECRET")
	if secret == "" {
		return errors.New("PAYGATE_SECRET is not set: it must hold the project's private key, which signs the callbacks")
	}
	handler, err := newHandler(secret, stdout)
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

// newHandler returns the callback handler: it verifies each callback with
// secret and prints one line per processed callback to out. This is where
// a merchant fulfils the order instead; an error returned here is answered
// 500 and the gateway delivers the callback again.
func newHandler(secret string, out io.Writer) (http.Handler, error) {
	var mu sync.Mutex // keeps concurrent lines whole
	return paygate.NewCallbackHandler([]string{secret}, func(_ context.Context, cb *paygate.Callback) error {
		mu.Lock()
		defer mu.Unlock()
		_, err := fmt.Fprintf(out, "callback id=%s status=%s\n", cb.ID, cb.Status)
		return err
	})
}
