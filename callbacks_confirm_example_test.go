package paygate_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

// ExampleClient_ConfirmCallback confirms every callback against the
// gateway's record of its transaction before acting on it, because the
// callback's signature does not cover which field a value was sent in.
// A genuine callback of any status confirms (see CallbackShapes).
func ExampleClient_ConfirmCallback() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()
	handle := func(ctx context.Context, cb *callback.Callback) error {
		_, err := client.ConfirmCallback(ctx, cb)
		var mismatch *paygate.CallbackMismatchError
		switch {
		case (err == nil || errors.As(err, &mismatch)) && cb.Stale:
			// A later status of its transaction was processed already:
			// acknowledge, never act.
			return nil
		case errors.As(err, &mismatch):
			// Moved between fields, replayed, or read while the
			// transaction is still changing: never act, and do not let it
			// count as processed, so that a genuine delivery with the same
			// values is still processed (the handler answers 500).
			return fmt.Errorf("callback for transaction %s disagrees on %v: %w", cb.ID, mismatch.Fields, err)
		case err != nil:
			return err // answered 500: the gateway delivers again
		}
		// Act on cb.Status: fulfil cb.OrderID on completed, record a
		// refund, a chargeback, a payout's outcome.
		return nil
	}
	handler, err := callback.NewHandler([]string{"sk_live_private"}, handle)
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("POST /paygate/callback", handler)
}
