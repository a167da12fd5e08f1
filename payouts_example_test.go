package paygate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// A payout to a card: pick the type, ask which further parameters it needs,
// check them, create the payout.
func ExamplePayoutsService_Create() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()
	seedCustomer(srv) // a payment of 29.99 EUR: the balance a payout draws on
	ctx := context.Background()

	types, err := client.Payouts.Types(ctx)
	if err != nil {
		log.Fatal(err)
	}
	var card paygate.PayoutType
	for _, t := range types {
		if t.IsCard() {
			card = t
		}
	}

	// The full number may be given: only its first 6 digits are sent.
	controls, err := client.Payouts.Parameters(ctx, &paygate.PayoutParametersParams{
		Type: card, Account: paygate.NewAccountNumber("4242424242424242"), Currency: "EUR",
	})
	if err != nil {
		log.Fatal(err)
	}

	params := &paygate.PayoutParams{
		Type:       card,
		Account:    paygate.NewAccountNumber("4242424242424242"),
		Amount:     decimal.RequireFromString("120.00"),
		Currency:   "EUR",
		OrderID:    "payout-2001",
		FirstName:  "Jane",
		LastName:   "Roe",
		CardHolder: "JANE ROE",
		// Parameters without a field of their own go in Extra, by name.
		Extra: map[string]string{"purposeCode": "SALA"},
	}
	if err := params.CheckRequired(controls); err != nil {
		log.Fatal(err) // names every missing parameter; ask the user for them
	}
	payout, err := client.Payouts.Create(ctx, params)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("payout", payout.ID, payout.Status) // the final status arrives by callback
	// Output:
	// payout 1000000000000000002 processing
}
