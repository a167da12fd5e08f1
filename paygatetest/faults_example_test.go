package paygatetest_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// The gateway charges the card, then the connection drops before the
// answer arrives. The client never sends the charge again: it reports an
// unknown outcome carrying the order id, and Reconcile asks the gateway
// what became of the order.
func ExampleServer_InjectFault() {
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

	// The next card/process is processed, and its answer lost.
	if err := srv.InjectFault("card/process", paygatetest.FaultResetAfterCommit, 1); err != nil {
		log.Fatal(err)
	}
	_, err = client.Cards.Charge(ctx, &paygate.ChargeParams{User: user, CardToken: paygate.NewCardToken(token.ID),
		Price: decimal.RequireFromString("19.90"), Currency: "EUR", Description: "Order 1001", OrderID: "order-1001"})
	var unknown *paygate.OutcomeUnknownError
	if !errors.As(err, &unknown) {
		log.Fatalf("expected an unknown outcome, got %v", err)
	}
	fmt.Println("charge:", errors.Is(err, paygate.ErrOutcomeUnknown), "for", unknown.OrderID)

	rec, err := client.Transactions.Reconcile(ctx, unknown.OrderID)
	if err != nil {
		log.Fatal(err)
	}
	switch {
	case !rec.Found:
		fmt.Println("nothing recorded yet: look again before charging again")
	case rec.Completed():
		fmt.Println("reconciled: completed", rec.Transactions[0].ID, rec.Transactions[0].Price.StringFixed(2), rec.Transactions[0].Currency, "- fulfil the order")
	default:
		fmt.Println("recorded, not completed: wait for the callback")
	}
	// Output:
	// charge: true for order-1001
	// reconciled: completed 1000000000000000001 19.90 EUR - fulfil the order
}
