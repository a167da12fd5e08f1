package paygate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func ExampleBalanceService_Get() {
	srv := paygatetest.NewServer()
	defer srv.Close()
	client := srv.Client()
	seedCustomer(srv) // a payment of 29.99 EUR, less the fee

	balance, err := client.Balance.Get(context.Background(), &paygate.BalanceParams{Currency: "EUR"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("available:", balance.Amount, balance.Currency)
	fmt.Println("rolling reserve:", balance.RollingReserve)
	fmt.Println("in the base currency:", balance.BaseAmount, "reserve", balance.BaseRollingReserve)
	// Output:
	// available: 29.12 EUR
	// rolling reserve: 0
	// in the base currency: 29.12 reserve 0
}
