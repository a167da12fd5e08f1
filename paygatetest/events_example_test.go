package paygatetest_test

import (
	"context"
	"fmt"
	"log"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// A cardholder disputes a payment, and the merchant wins the dispute: the
// payment reads charged_back, then retrieved, and each step sends its
// callback, which the merchant's webhook handler must process.
func ExampleServer_Chargeback() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	user, err := client.Users.Resolve(ctx, &paygate.ResolveUserParams{Identifier: "customer-42", IP: "192.0.2.1"})
	if err != nil {
		log.Fatal(err)
	}
	token, err := client.Cards.Tokenize(ctx, &paygate.TokenizeParams{Number: paygate.NewCardNumber(paygatetest.CardApproved),
		Expiry: paygate.NewExpiry(12, 2099), SecurityCode: paygate.NewSecurityCode("123")})
	if err != nil {
		log.Fatal(err)
	}
	payment, err := client.Cards.Charge(ctx, &paygate.ChargeParams{User: user, CardToken: paygate.NewCardToken(token.ID),
		Price: decimal.RequireFromString("19.90"), Currency: "EUR", Description: "Order 1001", OrderID: "order-1001"})
	if err != nil {
		log.Fatal(err)
	}

	chargeback, err := srv.Chargeback(payment.ID)
	if err != nil {
		log.Fatal(err)
	}
	st, err := client.Transactions.Status(ctx, &paygate.TransactionStatusParams{ID: payment.ID})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("payment:", st.Status, "- its own status:", st.OriginalStatus)

	if _, err := srv.Retrieve(chargeback); err != nil {
		log.Fatal(err)
	}
	for _, d := range srv.Deliveries() {
		fmt.Printf("callback: %s id=%s reference_id=%s\n", d.Values.Get("status"), d.Values.Get("id"), d.Values.Get("reference_id"))
	}
	// Output:
	// payment: charged_back - its own status: completed
	// callback: completed id=1000000000000000001 reference_id=
	// callback: chargeback_completed id=1000000000000000002 reference_id=1000000000000000001
	// callback: retrieval_completed id=1000000000000000003 reference_id=1000000000000000002
}
