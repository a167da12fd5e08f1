package paygate_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func ExampleUsersService_Resolve() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()

	// Resolve creates the user on first use and returns the same id ever
	// after; keep it with the merchant's own user record.
	userID, err := client.Users.Resolve(context.Background(), &paygate.ResolveUserParams{
		Identifier: "cust-8841",
		Email:      "jane.doe@example.com",
		Phone:      "4915123456789",
		Locale:     "en",
		IP:         "203.0.113.7",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("user", userID)
	// Output:
	// user 1
}

func ExampleUsersService_ChangeRecurring() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()
	subscriber := seedCustomer(srv) // subscribed to recurring payments yesterday

	// Move the subscription to 30-day payments of 9.99 EUR. Days(0) would
	// stop automatic payments and leave only manual recurring charges.
	err := client.Users.ChangeRecurring(context.Background(), &paygate.ChangeRecurringParams{
		User:     subscriber,
		Interval: paygate.Days(30),
		Price:    decimal.RequireFromString("9.99"),
		Currency: "EUR",
	})
	switch {
	case errors.Is(err, paygate.ErrDeclined):
		fmt.Println("the gateway did not change the subscription")
	case errors.Is(err, paygate.ErrRecurringDisabled):
		fmt.Println("the user has no subscription")
	case err != nil:
		log.Fatal(err)
	}
	// Output:
}
