package paygate_test

import (
	"context"
	"log"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// seedCustomer gives a fresh sandbox the history the examples that look
// back need, and returns the customer's user id: user 1 (identifier
// cust-100452) paid order-1001, 29.99 EUR, with transaction
// 1000000000000000001, subscribing to manual recurring payments; the
// sandbox's clock was then moved on a day, so the next recurring payment is
// due.
func seedCustomer(srv *paygatetest.Server) paygate.UserID {
	ctx := context.Background()
	client := srv.Client()
	user, err := client.Users.Resolve(ctx, &paygate.ResolveUserParams{Identifier: "cust-100452", IP: "203.0.113.7"})
	if err != nil {
		log.Fatal("seeding the example sandbox: ", err)
	}
	token, err := client.Cards.Tokenize(ctx, &paygate.TokenizeParams{
		Number: paygate.NewCardNumber(paygatetest.CardApproved), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123"),
	})
	if err != nil {
		log.Fatal("seeding the example sandbox: ", err)
	}
	_, err = client.Cards.Charge(ctx, &paygate.ChargeParams{
		User: user, CardToken: paygate.NewCardToken(token.ID), Price: decimal.RequireFromString("29.99"),
		Currency: "EUR", Description: "Order order-1001", OrderID: "order-1001",
		Recurring: true, RecurringInterval: paygate.Days(0),
	})
	if err != nil {
		log.Fatal("seeding the example sandbox: ", err)
	}
	srv.Advance(24 * time.Hour)
	return user
}
