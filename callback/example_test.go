package callback_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

// ExampleNewHandler mounts the callback handler on a ServeMux. The
// gateway POSTs to the callback URL set in the project settings; the
// handler verifies the signature, answers repeats without calling the
// function again, and answers 500 when the function fails so that the
// gateway delivers the callback again.
func ExampleNewHandler() {
	handler, err := callback.NewHandler([]string{"sk_live_private"},
		func(ctx context.Context, cb *callback.Callback) error {
			if cb.Status == callback.Completed {
				// The signature does not bind values to field names:
				// confirm the callback first (see paygate's ExampleClient_ConfirmCallback),
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
		mux.ServeHTTP(w, signer.Request("/paygate/callback", callback.Completed, nil))
		fmt.Println(w.Code, w.Body.String())
	}
	// Output:
	// fulfil order-1001 10.00 EUR
	// 200 OK
	// 200 OK
}
