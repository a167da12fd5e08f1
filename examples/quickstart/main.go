// Command quickstart walks the whole merchant flow of paygate-go, printing
// one line a step: resolve a user, tokenize and charge a card (remembering
// it and subscribing to recurring payments), check and list the order, charge
// the permanent token, run a manual recurring charge, refund part of the
// first payment, pass 3-D Secure, receive a signed callback, start a PayPal
// payment, pay out to a card and read the balance.
//
// With no environment it starts the sandbox (package paygatetest) in-process,
// so it needs no account:
//
//	go run ./examples/quickstart
//
// With PAYGATE_BASE_URL, PAYGATE_PROJECT and PAYGATE_SECRET set it runs the
// same flow against that gateway (PAYGATE_CHECKOUT_URL optionally sets the
// hosted confirmation address; PAYGATE_INSECURE_HTTP=1 allows a plain
// http:// gateway that is not on loopback, such as a standalone sandbox on a
// private test network). The steps that need a person (the bank's
// 3-D Secure page) or a public callback URL are then reported as skipped.
//
// It exits 0 only when every step succeeded (or was skipped for that
// reason), and otherwise names the step that failed.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// run sets up the gateway the environment names (or the sandbox) and walks
// the flow on it.
func run(ctx context.Context, getenv func(string) string, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	gw, err := openGateway(getenv)
	if err != nil {
		return err
	}
	defer gw.Close()
	fmt.Fprintf(out, "gateway: %s\n", gw.description)
	return newFlow(gw, out).run(ctx)
}
