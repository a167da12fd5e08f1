package pgdedup_test

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/dedup/pgdedup"
)

// Every replica of the callback endpoint shares one PostgreSQL database; a
// callback is processed by one of them, once.
func ExampleNew() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	store, err := pgdedup.New(ctx, pool) // creates paygate_callback_dedup if missing
	if err != nil {
		log.Fatal(err)
	}

	// fulfil is the merchant's callback.Func: idempotent, keyed on the
	// order id.
	fulfil := func(ctx context.Context, cb *callback.Callback) error {
		// Fulfil cb.OrderID.
		return nil
	}
	handler, err := callback.NewHandler([]string{os.Getenv("PAYGATE_SECRET")}, fulfil, callback.WithStore(store))
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("POST /paygate/callback", handler)
}
