package paygate_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func ExampleTransactionsService_Reverse() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()
	seedCustomer(srv) // paid order-1001, 29.99 EUR, yesterday
	ctx := context.Background()

	payment, err := client.Transactions.Reverse(ctx, &paygate.ReverseParams{
		OrderID: "order-1001",
		Amount:  decimal.RequireFromString("19.99"),
		Comment: "customer cancelled",
	})
	switch {
	case errors.Is(err, paygate.ErrNotReversible):
		fmt.Println("the payment cannot be reversed (any more)")
	case errors.Is(err, paygate.ErrDeclined):
		fmt.Println("the gateway refused the reversal")
	case errors.Is(err, paygate.ErrOutcomeUnknown):
		fmt.Println("unknown whether it was reversed: reconcile order-1001 before trying again")
	case err != nil:
		log.Fatal(err)
	default:
		// In the basic form only Success is set.
		fmt.Println("reversed:", payment.Success, payment.Status)
	}
	// Output:
	// reversed: true completed
}

func ExampleTransactionsService_Create() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()

	payment, err := client.Transactions.Create(context.Background(), &paygate.AlternativeCreateParams{
		UserIdentifier: "customer-8812",
		PaymentMethod:  paygate.MethodPayPal,
		Price:          decimal.RequireFromString("9.90"),
		Currency:       "EUR",
		Description:    "Premium plan, 1 month",
		OrderID:        "order-1002",
		SuccessURL:     "https://shop.example.com/paid",
		FailURL:        "https://shop.example.com/failed",
	})
	if err != nil {
		log.Fatal(err)
	}
	// Send the payer's browser here; the outcome arrives by callback.
	// Send the payer to payment.RedirectURL, for example with http.Redirect.
	// Here the sandbox's address, which changes from run to run, is cut off.
	fmt.Println("redirect to", strings.TrimPrefix(payment.RedirectURL, srv.URL))
	// Output:
	// redirect to /confirm/1000000000000000001/
}

func ExampleTransactionsService_All() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()
	seedCustomer(srv) // paid order-1001, 29.99 EUR, yesterday

	params := &paygate.TransactionListParams{
		OrderID: "order-1001",
		Created: paygate.TimeRange{From: time.Now().AddDate(0, -1, 0)}, // the last month
		Limit:   50,
	}
	for tx, err := range client.Transactions.All(context.Background(), params) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(tx.ID, tx.Type, tx.Status, tx.Price, tx.Currency)
	}
	// Output:
	// 1000000000000000001 payment completed 29.99 EUR
}

func ExampleTransactionsService_Reconcile() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	seedCustomer(srv) // paid order-1001, 29.99 EUR, yesterday

	// The sandbox reverses, then the connection drops before the answer
	// arrives.
	if err := srv.InjectFault("transaction/reverse", paygatetest.FaultResetAfterCommit, 1); err != nil {
		log.Fatal(err)
	}

	_, err := client.Transactions.Reverse(ctx, &paygate.ReverseParams{
		OrderID: "order-1001",
		Amount:  decimal.RequireFromString("19.99"),
	})
	var unknown *paygate.OutcomeUnknownError
	if !errors.As(err, &unknown) {
		return
	}
	// The request may have reached the gateway: never send it again
	// blindly; ask what the gateway recorded.
	rec, err := client.Transactions.Reconcile(ctx, unknown.OrderID)
	switch {
	case err != nil:
		fmt.Println("still unknown; keep the order pending and reconcile later:", err)
	case !rec.Found:
		// Not proof that it never arrived: it may still be in flight.
		fmt.Println("nothing recorded yet for", rec.OrderID, "- keep the order pending and look again later")
	default:
		for _, tx := range rec.Transactions {
			fmt.Println(tx.ID, tx.Type, tx.Status)
		}
	}
	// Output:
	// 1000000000000000001 payment completed
	// 1000000000000000002 refund completed
}
