// Package pgdedup is a callback.Store on PostgreSQL, for a
// callback endpoint running on several replicas: each callback is processed
// by one replica at a time and, once processed, never again for the
// retention period, whichever replica receives the next delivery.
//
// One table holds a row per callback, keyed on callback.Key.String. A replica
// claims a callback with INSERT ... ON CONFLICT: a new row, or a row whose
// claim's lease has ended, gets the replica's random token and a lease end
// (lease_until); Complete sets done_at in the same row; Release deletes the
// row only if it still holds this replica's token. A replica that dies
// mid-processing neither completes nor releases: its claim ends after the
// lease, and the next delivery is processed by another replica. Times are
// the database's, so replicas' clocks play no part. Any default isolation
// level works: under repeatable read or serializable, a claim that meets
// another replica's concurrent claim fails to serialize and is reported
// busy, as under read committed.
//
// New creates the table and its indexes if missing (under an advisory lock,
// so replicas starting together do not race); the equivalent migration is:
//
//	CREATE TABLE paygate_callback_dedup (
//	    key            text PRIMARY KEY,
//	    transaction_id bigint NOT NULL,
//	    stage          smallint NOT NULL,
//	    status         text NOT NULL,
//	    token          text,
//	    lease_until    timestamptz,
//	    done_at        timestamptz
//	);
//	CREATE INDEX paygate_callback_dedup_txn ON paygate_callback_dedup (transaction_id, stage DESC, done_at) WHERE done_at IS NOT NULL;
//	CREATE INDEX paygate_callback_dedup_age ON paygate_callback_dedup (coalesce(done_at, lease_until));
//
// Rows older than the retention are deleted by Prune, which Complete runs
// at most once an hour; call it from a scheduled job instead if you like.
// A failure of that hourly prune does not fail Complete (the callback is
// recorded all the same): it is logged at error level (see WithLogger) and
// the prune is tried again on the next Complete.
//
// PostgreSQL cuts identifiers to 63 bytes, so New refuses a table name of
// more than 59 bytes, which would leave the two index names (the name plus
// "_txn" and "_age") cut to one and one index silently missing.
//
// # What it guarantees, and what to configure
//
// PostgreSQL is durable by default: a claim or a processed callback is on
// disk when its statement returns (fsync and synchronous_commit on), so a
// crash or restart of the server loses nothing and a callback recorded
// before it is acknowledged after it without running the merchant function
// again. Turning synchronous_commit off for this database gives that up:
// a crash may lose the last commits, and their callbacks run again.
//
// The callback handler gives each call a deadline, a quarter of the lease
// (see callback.WithStoreTimeout), and every call returns when it passes,
// even on a stalled connection; pgx, with its default context watcher,
// closes the connection it gave up on at once (a
// BuildContextWatcherHandler of your own may keep it longer, though the
// store no longer waits). Choose a lease longer than the merchant function
// can run plus that quarter.
//
// A callback the function processed but Complete could not record (the
// server down or stalled) is logged by the handler at error level and
// answered 500, so the gateway delivers it again. When only the answer was
// lost, the row is marked processed and the next delivery is acknowledged
// without running the function. Otherwise the claim blocks the callback
// until the lease ends (answered 503) and the function then runs again: the
// exception a store cannot avoid, as when a replica dies between the
// function and Complete. pgx prepares a statement on its first use on a
// connection, a round trip of its own; after that, Complete is one.
//
// TestStore_FaultsRunTheFunctionOnceOrAsDocumented shows each case on a
// real server: stalled connections (answers lost, or nothing delivered),
// killed and restarted, killed while the function runs.
package pgdedup

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/dedupstore"
)

// Defaults of the options.
const (
	DefaultLease     = dedupstore.DefaultLease
	DefaultRetention = dedupstore.DefaultRetention
	DefaultTable     = "paygate_callback_dedup"
)

// pruneEvery is how often Complete prunes old rows.
const pruneEvery = time.Hour

// maxIdentifier is the length in bytes past which PostgreSQL cuts an
// identifier (NAMEDATALEN - 1).
const maxIdentifier = 63

// indexSuffixes are appended to the table's name to name its indexes.
var indexSuffixes = [...]string{"_txn", "_age"}

// ErrLeaseLost is matched (errors.Is) by the error Complete returns when
// the claim expired and another replica took the callback over before
// Complete: the callback was processed twice, so lengthen the lease. It is
// recorded as processed all the same.
var ErrLeaseLost = dedupstore.ErrLeaseLost

// Store is a callback.OrderStore on PostgreSQL. It is safe for
// concurrent use; share one per process.
type Store struct {
	pool      *pgxpool.Pool
	cfg       dedupstore.Settings
	table     string
	tokens    dedupstore.Tokens
	logger    *slog.Logger
	lastPrune atomic.Int64 // unix nanoseconds

	claimSQL, completeSQL, takeOverSQL, releaseSQL, latestSQL, pruneSQL string
}

var (
	_ callback.OrderStore  = (*Store)(nil)
	_ callback.LeasedStore = (*Store)(nil)
)

// Option configures New.
type Option func(*Store)

// WithLease sets how far ahead a claim's lease_until is set: how long a
// replica that died before completing blocks the callback's row. Make it
// longer than the merchant function can run, or another replica may run it
// too. Default DefaultLease; zero or less keeps it.
func WithLease(d time.Duration) Option { return func(s *Store) { s.cfg.SetLease(d) } }

// WithRetention sets the age past which Prune deletes a processed
// callback's row (and so forgets it, and the latest status it recorded).
// Default DefaultRetention; zero or less keeps it.
func WithRetention(d time.Duration) Option { return func(s *Store) { s.cfg.SetRetention(d) } }

// WithTable sets the table's name, optionally schema-qualified
// ("payments.callback_dedup"). Default DefaultTable.
func WithTable(name string) Option {
	return func(s *Store) { s.table = name }
}

// WithLogger sets where failures of the hourly prune that Complete runs
// are logged (at error level). Default slog.Default(); nil keeps it.
func WithLogger(l *slog.Logger) Option {
	return func(s *Store) {
		if l != nil {
			s.logger = l
		}
	}
}

// New returns a store on pool, creating its table and indexes if missing.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	s := &Store{pool: pool, cfg: dedupstore.Defaults(), table: DefaultTable, logger: slog.Default()}
	for _, o := range opts {
		o(s)
	}
	parts := strings.Split(s.table, ".")
	if s.table == "" || len(parts) > 2 || parts[len(parts)-1] == "" || parts[0] == "" {
		return nil, fmt.Errorf("pgdedup: table name %q: want name or schema.name", s.table)
	}
	base := parts[len(parts)-1]
	if limit := maxIdentifier - len(indexSuffixes[0]); len(base) > limit || len(parts[0]) > maxIdentifier {
		return nil, fmt.Errorf("pgdedup: table name %q: at most %d bytes (and a schema of at most %d), or PostgreSQL cuts its index names to one", s.table, limit, maxIdentifier)
	}
	t := pgx.Identifier(parts).Sanitize()
	idx := func(suffix string) string { return pgx.Identifier{base + suffix}.Sanitize() }
	s.prepare(t)
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// CREATE ... IF NOT EXISTS races with itself across sessions.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "pgdedup:"+s.table); err != nil {
			return err
		}
		for _, q := range []string{
			`CREATE TABLE IF NOT EXISTS ` + t + ` (
				key text PRIMARY KEY,
				transaction_id bigint NOT NULL,
				stage smallint NOT NULL,
				status text NOT NULL,
				token text,
				lease_until timestamptz,
				done_at timestamptz)`,
			`CREATE INDEX IF NOT EXISTS ` + idx(indexSuffixes[0]) + ` ON ` + t + ` (transaction_id, stage DESC, done_at) WHERE done_at IS NOT NULL`,
			`CREATE INDEX IF NOT EXISTS ` + idx(indexSuffixes[1]) + ` ON ` + t + ` (coalesce(done_at, lease_until))`,
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pgdedup: create table %s: %w", s.table, err)
	}
	return s, nil
}

func (s *Store) prepare(t string) {
	// The claim takes a new row or one whose lease ended. When the row is
	// neither, the second SELECT tells processed (1) from busy (2); no row
	// at all means it was claimed since this statement's snapshot: busy.
	s.claimSQL = `WITH claim AS (
		INSERT INTO ` + t + ` AS d (key, transaction_id, stage, status, token, lease_until)
		VALUES ($1, $2, $3, $4, $5, now() + $6 * interval '1 millisecond')
		ON CONFLICT (key) DO UPDATE SET token = excluded.token, lease_until = excluded.lease_until
		WHERE d.done_at IS NULL AND d.lease_until <= now()
		RETURNING 0 AS state)
	SELECT state FROM claim
	UNION ALL
	SELECT CASE WHEN done_at IS NULL THEN 2 ELSE 1 END FROM ` + t + `
	WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM claim)`
	s.completeSQL = `UPDATE ` + t + ` SET done_at = now(), token = NULL, lease_until = NULL
		WHERE key = $1 AND token = $2`
	// Complete of a claim that is no longer ours records the callback all
	// the same; the caller reports the lost lease.
	s.takeOverSQL = `INSERT INTO ` + t + ` AS d (key, transaction_id, stage, status, done_at)
		VALUES ($1, $2, $3, $4, now())
		ON CONFLICT (key) DO UPDATE SET done_at = now(), token = NULL, lease_until = NULL
		WHERE d.done_at IS NULL`
	s.releaseSQL = `DELETE FROM ` + t + ` WHERE key = $1 AND token = $2`
	s.latestSQL = `SELECT status FROM ` + t + `
		WHERE transaction_id = $1 AND stage > 0 AND done_at IS NOT NULL
		ORDER BY stage DESC, done_at LIMIT 1`
	s.pruneSQL = `DELETE FROM ` + t + ` WHERE coalesce(done_at, lease_until) < now() - $1 * interval '1 millisecond'`
}

// Claim implements callback.Store. It does not wait for a
// claim held elsewhere: it reports callback.Busy, and the handler answers 503
// so that the gateway delivers again later. A claim this process holds is
// never taken over by this process, even past its lease: its holder is
// alive.
func (s *Store) Claim(ctx context.Context, key callback.Key) (callback.Claim, error) {
	k, token := key.String(), dedupstore.New()
	if s.tokens.Holds(k) {
		return callback.Busy, nil
	}
	state, err := dedupstore.Abandon(ctx, func() (int, error) {
		var state int
		err := s.pool.QueryRow(ctx, s.claimSQL, k, int64(key.Transaction), key.Stage(), string(key.Status), token, s.cfg.Lease.Milliseconds()).Scan(&state)
		return state, err
	})
	switch {
	case errors.Is(err, pgx.ErrNoRows), serializationFailure(err):
		// Under repeatable read or serializable (the database's default
		// isolation), meeting a row another replica committed since this
		// statement began is a serialization failure: that replica holds
		// or completed the claim.
		return callback.Busy, nil
	case err != nil:
		return callback.Busy, fmt.Errorf("pgdedup: claim: %w", err)
	case state == 0:
		s.tokens.Hold(k, token)
		return callback.Acquired, nil
	case state == 1:
		return callback.Processed, nil
	}
	return callback.Busy, nil
}

// serializationFailure reports whether err is PostgreSQL's
// serialization_failure (SQLSTATE 40001).
func serializationFailure(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "40001"
}

// Complete implements callback.Store: the callback's row is
// marked processed, which also makes its status the latest of its
// transaction unless a later stage was processed. It returns an error
// matching ErrLeaseLost when another replica took the claim over. An
// error means the callback may not be recorded; a failure of the hourly
// prune is not one (it is logged, and tried again on the next Complete).
func (s *Store) Complete(ctx context.Context, key callback.Key) error {
	k := key.String()
	token := s.tokens.Take(k)
	lost, err := dedupstore.Abandon(ctx, func() (bool, error) {
		tag, err := s.pool.Exec(ctx, s.completeSQL, k, token)
		if err != nil || tag.RowsAffected() > 0 {
			return false, err
		}
		_, err = s.pool.Exec(ctx, s.takeOverSQL, k, int64(key.Transaction), key.Stage(), string(key.Status))
		return true, err
	})
	switch {
	case err != nil:
		return fmt.Errorf("pgdedup: complete: %w", err)
	case lost:
		return fmt.Errorf("pgdedup: callback %s: %w", key.ID, ErrLeaseLost)
	}
	s.pruneIfDue(ctx)
	return nil
}

// pruneIfDue runs Prune if it has not succeeded for pruneEvery. A failure
// is logged rather than returned: the callback it follows is recorded,
// and the handler would otherwise report it as not recorded.
func (s *Store) pruneIfDue(ctx context.Context) {
	last := s.lastPrune.Load()
	if time.Since(time.Unix(0, last)) <= pruneEvery || !s.lastPrune.CompareAndSwap(last, time.Now().UnixNano()) {
		return
	}
	if _, err := s.Prune(ctx); err != nil {
		s.lastPrune.Store(last) // due again at the next Complete
		s.logger.LogAttrs(ctx, slog.LevelError, "pgdedup: prune of old rows failed; the callback is recorded, the prune is tried again at the next Complete",
			slog.String("table", s.table), slog.Any("error", err))
	}
}

// Release implements callback.Store: the claim's row is
// deleted if it is still this replica's, so that the next delivery is
// processed.
func (s *Store) Release(ctx context.Context, key callback.Key) error {
	k := key.String()
	token := s.tokens.Take(k)
	_, err := dedupstore.Abandon(ctx, func() (pgconn.CommandTag, error) { return s.pool.Exec(ctx, s.releaseSQL, k, token) })
	if err != nil {
		return fmt.Errorf("pgdedup: release: %w", err)
	}
	return nil
}

// LatestStatus implements callback.OrderStore: the status of the
// processed callback of the latest stage for transaction (the first
// processed, among several of that stage).
func (s *Store) LatestStatus(ctx context.Context, transaction callback.ID) (callback.Status, error) {
	st, err := dedupstore.Abandon(ctx, func() (string, error) {
		var st string
		return st, s.pool.QueryRow(ctx, s.latestSQL, int64(transaction)).Scan(&st)
	})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("pgdedup: latest status: %w", err)
	}
	return callback.Status(st), nil
}

// Lease implements callback.LeasedStore: the callback handler bounds
// each call by a quarter of it.
func (s *Store) Lease() time.Duration { return s.cfg.Lease }

// Prune deletes the rows of callbacks processed longer ago than the
// retention, and of claims whose lease ended that long ago, and returns how
// many it deleted.
func (s *Store) Prune(ctx context.Context) (int64, error) {
	tag, err := dedupstore.Abandon(ctx, func() (pgconn.CommandTag, error) {
		return s.pool.Exec(ctx, s.pruneSQL, s.cfg.Retention.Milliseconds())
	})
	if err != nil {
		return 0, fmt.Errorf("pgdedup: prune: %w", err)
	}
	return tag.RowsAffected(), nil
}
