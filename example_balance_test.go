package paygate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/paygate/paygate-go"
)

func ExampleBalanceService_Get() {
	client := exampleClient()

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
