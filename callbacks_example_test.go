package paygate_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// ExampleNewCallbackHandler mounts the callback handler on a ServeMux. The
// gateway POSTs to the callback URL set in the project settings; the
// handler verifies the signature, answers repeats without calling the
// function again, and answers 500 when the function fails so that the
// gateway delivers the callback again.
func ExampleNewCallbackHandler() {
	handler, err := paygate.NewCallbackHandler([]string{"sk_live_private"},
		func(ctx context.Context, cb *paygate.Callback) error {
			if cb.Status == paygate.CallbackCompleted {
				// The signature does not bind values to field names:
				// confirm the callback first (see ExampleClient_ConfirmCallback),
				// then fulfil cb.OrderID; return an error to be called again.
				fmt.Println("fulfil", cb.OrderID, cb.Price.StringFixed(2), cb.Currency)
			}
			return nil
		})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /paygate/callback", handler)

	// What the gateway would send, delivered twice.
	signer := paygatetest.NewCallbackSigner("sk_live_private", paygate.FormExtended)
	for range 2 {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, signer.Request("/paygate/callback", paygate.CallbackCompleted, nil))
		fmt.Println(w.Code, w.Body.String())
	}
	// Output:
	// fulfil order-1001 10.00 EUR
	// 200 OK
	// 200 OK
}

// ExampleClient_ConfirmCallback confirms every callback against the
// gateway's record of its transaction before acting on it, because the
// callback's signature does not cover which field a value was sent in.
// A genuine callback of any status confirms (see CallbackStatus.Shapes).
func ExampleClient_ConfirmCallback() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()
	handle := func(ctx context.Context, cb *paygate.Callback) error {
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
	handler, err := paygate.NewCallbackHandler([]string{"sk_live_private"}, handle)
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("POST /paygate/callback", handler)
}
