package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
)

// newHandler returns the callback handler: it verifies each callback with
// secret, confirms it with client and prints one line per processed
// callback to out; diagnostics (stale callbacks acknowledged, refusals and
// failures, never a body or a key) go to diag. Printing is where a merchant
// fulfils the order instead; an error returned by the function is answered
// 500 and the gateway delivers the callback again.
func newHandler(secret string, client *paygate.Client, out, diag io.Writer) (http.Handler, error) {
	var mu sync.Mutex // keeps concurrent lines whole
	logger := slog.New(slog.NewTextHandler(diag, nil))
	return callback.NewHandler([]string{secret}, func(ctx context.Context, cb *callback.Callback) error {
		_, err := client.ConfirmCallback(ctx, cb)
		var mismatch *paygate.CallbackMismatchError
		switch {
		case (err == nil || errors.As(err, &mismatch)) && cb.Stale:
			logger.Info("stale callback acknowledged, not processed", "id", cb.ID, "status", cb.Status)
			return nil
		case errors.As(err, &mismatch) && mismatch.Superseded:
			// True once; a later callback (a refund, a chargeback) reports
			// where the transaction is now.
			logger.Info("callback acknowledged, not processed: its transaction has moved on since", "id", cb.ID, "status", cb.Status)
			return nil
		case errors.As(err, &mismatch):
			return fmt.Errorf("callback %s %s disagrees with the gateway's record on %v: %w", cb.ID, cb.Status, mismatch.Fields, err)
		case err != nil:
			return fmt.Errorf("confirming callback %s %s: %w", cb.ID, cb.Status, err)
		}
		mu.Lock()
		defer mu.Unlock()
		_, err = fmt.Fprintf(out, "callback id=%s status=%s\n", cb.ID, cb.Status)
		return err
	}, callback.WithLogger(logger))
}
