package pgdedup_test

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	paygate "github.com/paygate/paygate-go"
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

	handler, err := paygate.NewCallbackHandler([]string{os.Getenv("PAYGATE_SECRET")},
		func(ctx context.Context, cb *paygate.Callback) error {
			if cb.Stale {
				return nil // a later status of this transaction was processed already
			}
			return nil // fulfil the order, idempotently, keyed on cb.OrderID
		},
		paygate.WithDedupStore(store))
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("POST /paygate/callback", handler)
}
