package pgdedup_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/dedup/pgdedup"
	"github.com/paygate/paygate-go/internal/testkit/dedupsuite"
	"github.com/paygate/paygate-go/internal/testkit/testengine"
)

// stores returns a factory of stores on one fresh PostgreSQL server, each
// with its own connection pool, as replicas have.
func stores(t testing.TB, opts ...pgdedup.Option) dedupsuite.Factory {
	dsn := testengine.Postgres(t)
	return func(t testing.TB, lease time.Duration) callback.Store {
		return newStore(t, dsn, append(opts, pgdedup.WithLease(lease))...)
	}
}

// connect returns a pool on dsn, closed when the test ends.
func connect(t testing.TB, dsn string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// newStore returns a store with a pool of its own on dsn.
func newStore(t testing.TB, dsn string, opts ...pgdedup.Option) *pgdedup.Store {
	t.Helper()
	s, err := pgdedup.New(context.Background(), connect(t, dsn), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStore(t *testing.T) {
	dedupsuite.Run(t, func(t testing.TB) dedupsuite.Factory { return stores(t) })
}

// A schema-qualified table name is quoted part by part in every statement,
// which the ordering test runs all of.
func TestWithTable_SchemaQualifiedNameKeepsOrder(t *testing.T) {
	dedupsuite.Ordering(t, stores(t, pgdedup.WithTable("public.dedup_ordering")))
}

func TestStore_PruneForgetsCallbacksOlderThanTheRetention(t *testing.T) {
	ctx := context.Background()
	dsn := testengine.Postgres(t)
	s := newStore(t, dsn, pgdedup.WithRetention(time.Hour))
	old, recent := dedupsuite.Key(21), dedupsuite.Key(22)
	dedupsuite.Record(t, s, old)
	dedupsuite.Record(t, s, recent)
	pool := connect(t, dsn)
	// Age one row past the retention, as two hours of waiting would.
	if _, err := pool.Exec(ctx, `UPDATE `+pgdedup.DefaultTable+` SET done_at = now() - interval '2 hours' WHERE key = $1`, old.String()); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Prune(ctx); err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1 row", n, err)
	}
	dedupsuite.RequireClaim(t, s, old, callback.Acquired)
	dedupsuite.RequireClaim(t, s, recent, callback.Processed)
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

// PostgreSQL cuts identifiers to 63 bytes: a table name of 60 bytes would
// cut its two index names to one, and the second index would be skipped as
// existing. New refuses it; the longest name it accepts gets both indexes.
func TestNew_TableNameLongEnoughToMergeItsIndexNamesIsRefused(t *testing.T) {
	ctx := context.Background()
	dsn := testengine.Postgres(t)
	pool := connect(t, dsn)
	for _, name := range []string{strings.Repeat("t", 60), "public." + strings.Repeat("t", 60), strings.Repeat("s", 64) + ".t"} {
		if _, err := pgdedup.New(ctx, pool, pgdedup.WithTable(name)); err == nil || !strings.Contains(err.Error(), "at most 59 bytes") {
			t.Errorf("WithTable of %d bytes: New = %v; want refused as too long", len(name), err)
		}
	}

	name := strings.Repeat("t", 59)
	newStore(t, dsn, pgdedup.WithTable(name))
	rows, err := pool.Query(ctx, `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = $1::regclass AND NOT i.indisprimary ORDER BY c.relname`, name)
	if err != nil {
		t.Fatal(err)
	}
	indexes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{name + "_age", name + "_txn"}; !slices.Equal(indexes, want) {
		t.Fatalf("indexes of %s = %q; want %q", name, indexes, want)
	}
}

// BenchmarkClaimComplete measures one callback's claim and completion on
// PostgreSQL (one pool, loopback, fsync off as in the tests) against the
// in-process callback.MemoryStore in the same run.
func BenchmarkClaimComplete(b *testing.B) {
	b.Run("memory", func(b *testing.B) { dedupsuite.ClaimComplete(b, callback.NewMemoryStore(0)) })
	b.Run("postgres", func(b *testing.B) { dedupsuite.ClaimComplete(b, stores(b)(b, time.Minute)) })
}

// The table name is quoted as an identifier wherever it is used, so a
// name holding SQL is a strange table name, never a statement.
func TestWithTable_NameIsNeverSQL(t *testing.T) {
	ctx := context.Background()
	dsn := testengine.Postgres(t)
	pool := connect(t, dsn)
	if _, err := pool.Exec(ctx, `CREATE TABLE victim (id int)`); err != nil {
		t.Fatal(err)
	}
	const name = `dedup"; DROP TABLE victim; --`
	s := newStore(t, dsn, pgdedup.WithTable(name))
	dedupsuite.Record(t, s, dedupsuite.Key(51))
	if _, err := s.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	var rows, victims int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM "dedup""; DROP TABLE victim; --"`).Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("rows in the oddly named table = %d, %v; want 1", rows, err)
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM victim`).Scan(&victims); err != nil {
		t.Fatalf("victim table gone: %v", err)
	}
}

func TestNew_DefaultsAreAMinutesLeaseAndThirtyDaysRetention(t *testing.T) {
	ctx := context.Background()
	dsn := testengine.Postgres(t)
	s := newStore(t, dsn)
	if s.Lease() != time.Minute {
		t.Fatalf("Lease() = %v, want 1m: the handler's store deadline is a quarter of it", s.Lease())
	}
	pool := connect(t, dsn)
	kept, pruned := dedupsuite.Key(61), dedupsuite.Key(62)
	dedupsuite.RequireClaim(t, s, kept, callback.Acquired)
	dedupsuite.RequireClaim(t, s, pruned, callback.Acquired)
	var lease time.Duration
	if err := pool.QueryRow(ctx, `SELECT lease_until - now() FROM `+pgdedup.DefaultTable+` WHERE key = $1`, kept.String()).Scan(&lease); err != nil {
		t.Fatal(err)
	}
	if lease <= 59*time.Second || lease > time.Minute {
		t.Fatalf("claim's lease ends in %v, want 60 s", lease)
	}
	for _, k := range []callback.Key{kept, pruned} {
		if err := s.Complete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	for k, age := range map[callback.Key]string{kept: "29 days", pruned: "31 days"} {
		if _, err := pool.Exec(ctx, `UPDATE `+pgdedup.DefaultTable+` SET done_at = now() - $2::interval WHERE key = $1`, k.String(), age); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.Prune(ctx); err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want the row of 31 days only", n, err)
	}
}
