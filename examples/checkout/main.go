// Command checkout is a small web shop with a complete card and PayPal
// checkout, to copy into a merchant's service.
//
//	go run ./examples/checkout -addr 127.0.0.1:8000
//
// With no PAYGATE_* variables it starts the sandbox (package paygatetest)
// in the same process, with its callbacks sent to the shop's own /callback
// endpoint, so the whole flow works with no account: open the printed
// address and pay with a test card: 4242424242424242 is approved, and the
// others are the Card constants of package paygatetest (3-D Secure,
// declined, processing, blocked), with the ACS password ACSPassword.
//
// Against a real gateway set PAYGATE_BASE_URL, PAYGATE_PROJECT and
// PAYGATE_SECRET (and PAYGATE_CHECKOUT_URL when the hosted confirmation
// address differs from the base URL), set the project's callback URL to
// {public URL}/callback, and give -public-url when the payer's browser
// reaches the shop at another address than -addr.
//
// The card never touches the shop: the browser sends it to the gateway's
// card/getToken and posts only the one-time token to the shop, which
// charges it. It prints "listening on http://ADDR" once it serves.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "checkout:", err)
		os.Exit(1)
	}
}

// run serves the shop until ctx is done.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("checkout", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8000", "address to listen on")
	publicURL := fs.String("public-url", "", "the shop's address as browsers reach it (default http://ADDR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	if *publicURL == "" {
		*publicURL = "http://" + ln.Addr().String()
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	cfg, closeGateway, err := gatewayConfig(getenv, *publicURL)
	if err != nil {
		return err
	}
	defer closeGateway()
	cfg.Logger = logger
	handler, err := newApp(cfg)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())

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

// sandboxRetry makes the embedded sandbox deliver a refused callback again
// within seconds instead of on a real gateway's schedule of minutes: the
// shop refuses a callback that overtakes the answer to its payment request.
var sandboxRetry = paygatetest.WithCallbackRetry(6, 250*time.Millisecond)

// gatewayConfig connects to the gateway the PAYGATE_* variables name, or
// starts the sandbox when none is set. The returned func stops the
// sandbox.
func gatewayConfig(getenv func(string) string, publicURL string) (config, func(), error) {
	base, project, secret := getenv("PAYGATE_BASE_URL"), getenv("PAYGATE_PROJECT"), getenv("PAYGATE_SECRET")
	if base == "" && project == "" && secret == "" {
		sandbox := paygatetest.NewServer(paygatetest.WithCallbackURL(publicURL+"/callback"), sandboxRetry)
		return config{
			Client:      sandbox.Client(),
			CallbackKey: sandbox.PrivateKey,
			GatewayURL:  sandbox.URL,
			PublicURL:   publicURL,
		}, sandbox.Close, nil
	}
	if base == "" || project == "" || secret == "" {
		return config{}, nil, errors.New("set all of PAYGATE_BASE_URL, PAYGATE_PROJECT and PAYGATE_SECRET, or none to use the sandbox")
	}
	opts := []paygate.Option{paygate.WithBaseURL(base), paygate.WithAppInfo("paygate-checkout-example", paygate.Version)}
	if checkout := getenv("PAYGATE_CHECKOUT_URL"); checkout != "" {
		opts = append(opts, paygate.WithCheckoutURL(checkout))
	}
	client, err := paygate.NewClient(project, secret, opts...)
	if err != nil {
		return config{}, nil, err
	}
	return config{Client: client, CallbackKey: secret, GatewayURL: base, PublicURL: publicURL}, func() {}, nil
}
