package paygate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// A field of an answer that the SDK cannot read never fails a charge that
// went through: the field is left zero and listed in Warnings (and logged at
// warn level through WithLogger). Decide on the fields that tell what
// happened, and keep the warnings for whoever looks after the integration.
func ExampleDecodeWarning() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	customer := seedCustomer(srv) // a customer who paid an order yesterday
	token, err := client.Cards.Tokenize(ctx, &paygate.TokenizeParams{
		Number: paygate.NewCardNumber(paygatetest.CardApproved), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123"),
	})
	if err != nil {
		log.Fatal(err)
	}
	payment, err := client.Cards.Charge(ctx, &paygate.ChargeParams{
		User:        customer,
		CardToken:   paygate.NewCardToken(token.ID),
		Price:       decimal.RequireFromString("24.90"),
		Currency:    "EUR",
		Description: "Order 1001",
		OrderID:     "order-1001-w",
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, w := range payment.Warnings {
		log.Printf("payment %s: gateway answer field %s", payment.ID, w)
	}
	fmt.Println(payment.Status, len(payment.Warnings))
	// Output:
	// completed 0
}

// Calls that return a slice or an id report their warnings through a call
// option.
func ExampleWithDecodeWarnings() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()
	var warnings []paygate.DecodeWarning
	types, err := client.Payouts.Types(context.Background(), paygate.WithDecodeWarnings(&warnings))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(types) > 0, len(warnings))
	// Output:
	// true 0
}
