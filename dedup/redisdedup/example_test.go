package redisdedup_test

import (
	"context"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/dedup/redisdedup"
)

// Every replica of the callback endpoint shares one Redis; a callback is
// processed by one of them, once.
func ExampleNew() {
	// ContextTimeoutEnabled frees a stalled connection at the handler's
	// deadline for each store call, not at the client's read timeout.
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR"), ContextTimeoutEnabled: true}) // or redis.NewClusterClient
	store := redisdedup.New(rdb, redisdedup.WithLease(2*time.Minute))

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
