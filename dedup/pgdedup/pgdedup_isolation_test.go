package pgdedup_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/dedup/pgdedup"
	"github.com/paygate/paygate-go/internal/testkit/dedupsuite"
	"github.com/paygate/paygate-go/internal/testkit/testengine"
)

// A database whose default isolation is repeatable read or serializable
// refuses a claim that meets a row committed after the claim's snapshot
// ("could not serialize access"): that row is another replica's claim, so
// the callback is busy, not an error of the store.
func TestStore_ClaimMeetingAConcurrentClaimIsBusyUnderEveryIsolationLevel(t *testing.T) {
	ctx := context.Background()
	dsn := testengine.Postgres(t)
	for i, level := range []string{"read committed", "repeatable read", "serializable"} {
		t.Run(level, func(t *testing.T) {
			cfg, err := pgxpool.ParseConfig(dsn)
			if err != nil {
				t.Fatal(err)
			}
			cfg.ConnConfig.RuntimeParams["default_transaction_isolation"] = level
			pool, err := pgxpool.NewWithConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			s, err := pgdedup.New(ctx, pool)
			if err != nil {
				t.Fatal(err)
			}
			k := dedupsuite.Key(callback.ID(41 + i))

			// Another replica's claim, inserted but not yet committed.
			other, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close(ctx)
			tx, err := other.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO `+pgdedup.DefaultTable+` (key, transaction_id, stage, status, token, lease_until)
				VALUES ($1, $2, 2, 'completed', 'other', now() + interval '1 minute')`, k.String(), int64(k.ID)); err != nil {
				t.Fatal(err)
			}

			type result struct {
				c   callback.Claim
				err error
			}
			done := make(chan result, 1)
			go func() { c, err := s.Claim(ctx, k); done <- result{c, err} }()
			waitForALockWait(t, other)
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if r := <-done; r.err != nil || r.c != callback.Busy {
				t.Fatalf("Claim = %v, %v; want busy", r.c, r.err)
			}
		})
	}
}

// waitForALockWait returns once a session waits for a lock, as the claim
// does on the uncommitted row.
func waitForALockWait(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_locks WHERE NOT granted`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the claim never waited for the other replica's row")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
