package paygatetest_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"net/url"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

// ExampleNewCallbackSigner tests a callback handler without a gateway: the
// signer builds the request the gateway would POST, signed with the
// project's private key.
func ExampleNewCallbackSigner() {
	handler, err := callback.NewHandler([]string{"sk_test"},
		func(ctx context.Context, cb *callback.Callback) error {
			fmt.Println(cb.Status, cb.ID, cb.OrderID, cb.Price.StringFixed(2), cb.Attrs["plan"])
			return nil
		})
	if err != nil {
		log.Fatal(err)
	}
	signer := paygatetest.NewCallbackSigner("sk_test", paygate.FormExtended)

	w := httptest.NewRecorder()
	handler.ServeHTTP(w, signer.Request("/paygate/callback", callback.Completed,
		url.Values{"order_id": {"order-42"}, "attr_plan": {"gold"}}))
	fmt.Println(w.Code)
	// Output:
	// completed 9007199254740993 order-42 10.00 gold
	// 200
}
