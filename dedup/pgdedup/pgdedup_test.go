package pgdedup_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	paygate "github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/dedup/pgdedup"
	"github.com/paygate/paygate-go/internal/dedupsuite"
	"github.com/paygate/paygate-go/internal/testengine"
)

// stores returns a factory of stores on one fresh PostgreSQL server, each
// with its own connection pool, as replicas have.
func stores(t testing.TB, opts ...pgdedup.Option) dedupsuite.Factory {
	dsn := testengine.Postgres(t)
	return func(t testing.TB, lease time.Duration) paygate.CallbackDedupStore {
		return newStore(t, dsn, append(opts, pgdedup.WithLease(lease))...)
	}
}

func newStore(t testing.TB, dsn string, opts ...pgdedup.Option) *pgdedup.Store {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s, err := pgdedup.New(context.Background(), pool, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStore_ReplicasProcessEachCallbackOnce(t *testing.T) {
	dedupsuite.Replicas(t, stores(t))
}

func TestStore_ClaimOfACrashedReplicaExpiresAfterTheLease(t *testing.T) {
	dedupsuite.Crash(t, stores(t), 300*time.Millisecond)
}

func TestStore_StaleCallbacksAreMarked(t *testing.T) {
	dedupsuite.Ordering(t, stores(t, pgdedup.WithTable("public.dedup_ordering")))
}

func TestStore_ReleaseLeavesAnotherReplicasClaim(t *testing.T) {
	dedupsuite.ReleaseKeepsATakenOverClaim(t, stores(t))
}

func TestStore_CompleteAfterATakeOverReportsTheLostLease(t *testing.T) {
	dedupsuite.CompleteAfterATakeOverReportsTheLostLease(t, stores(t))
}

func TestStore_PruneForgetsCallbacksOlderThanTheRetention(t *testing.T) {
	ctx := context.Background()
	dsn := testengine.Postgres(t)
	s := newStore(t, dsn, pgdedup.WithRetention(time.Hour))
	old := paygate.DedupKey{ID: 21, Status: paygate.CallbackCompleted, Transaction: 21, Digest: [32]byte{21}}
	recent := paygate.DedupKey{ID: 22, Status: paygate.CallbackCompleted, Transaction: 22, Digest: [32]byte{22}}
	for _, k := range []paygate.DedupKey{old, recent} {
		if c, err := s.Claim(ctx, k); err != nil || c != paygate.DedupAcquired {
			t.Fatalf("Claim = %v, %v", c, err)
		}
		if err := s.Complete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// Age one row past the retention, as two hours of waiting would.
	if _, err := pool.Exec(ctx, `UPDATE `+pgdedup.DefaultTable+` SET done_at = now() - interval '2 hours' WHERE key = $1`, old.String()); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Prune(ctx); err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1 row", n, err)
	}
	for k, want := range map[paygate.DedupKey]paygate.DedupClaim{old: paygate.DedupAcquired, recent: paygate.DedupProcessed} {
		if c, err := s.Claim(ctx, k); err != nil || c != want {
			t.Errorf("Claim(%s) after Prune = %v, %v; want %v", k.ID, c, err, want)
		}
	}
}

func TestNew_ReplicasStartingTogetherCreateTheTableOnce(t *testing.T) {
	dsn := testengine.Postgres(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			pool, err := pgxpool.New(context.Background(), dsn)
			if err != nil {
				errs <- err
				return
			}
			defer pool.Close()
			_, err = pgdedup.New(context.Background(), pool)
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestNew_RefusesABadTableName(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), "postgres://127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for _, name := range []string{"", "a.b.c", ".x", "x."} {
		if _, err := pgdedup.New(context.Background(), pool, pgdedup.WithTable(name)); err == nil {
			t.Errorf("WithTable(%q) accepted", name)
		}
	}
}

// BenchmarkClaimComplete measures one callback's claim and completion on
// PostgreSQL (one pool, loopback, fsync off as in the tests) against the
// in-process MemoryDedupStore in the same run.
func BenchmarkClaimComplete(b *testing.B) {
	b.Run("memory", func(b *testing.B) { dedupsuite.ClaimComplete(b, paygate.NewMemoryDedupStore(0)) })
	b.Run("postgres", func(b *testing.B) { dedupsuite.ClaimComplete(b, stores(b)(b, time.Minute)) })
}
