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

// ExampleClient_ConfirmCallback confirms a callback against the gateway's
// record of its transaction before fulfilling an order, because the
// callback's signature does not cover which field a value was sent in.
func ExampleClient_ConfirmCallback() {
	client := exampleClient()
	fulfil := func(ctx context.Context, cb *paygate.Callback) error {
		if cb.Status != paygate.CallbackCompleted {
			return nil
		}
		_, err := client.ConfirmCallback(ctx, cb)
		var mismatch *paygate.CallbackMismatchError
		switch {
		case errors.As(err, &mismatch) && cb.Stale:
			// Overtaken by a later status already processed: acknowledge,
			// never act.
			return nil
		case errors.As(err, &mismatch):
			// Moved between fields, replayed, or read while the payment
			// is still changing: never act, and do not let it count as
			// processed, so that a genuine delivery with the same values
			// is still processed (the handler answers 500).
			return fmt.Errorf("callback for transaction %s disagrees on %v: %w", cb.ID, mismatch.Fields, err)
		case err != nil:
			return err // answered 500: the gateway delivers again
		}
		// Fulfil cb.OrderID.
		return nil
	}
	handler, err := paygate.NewCallbackHandler([]string{"sk_live_private"}, fulfil)
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("POST /paygate/callback", handler)
}
