// Package redisdedup is a callback.Store on Redis, for a
// callback endpoint running on several replicas: each callback is processed
// by one replica at a time and, once processed, never again for the
// retention period, whichever replica receives the next delivery.
//
// A replica claims a callback before processing it: a key set only if
// absent (one Lua script, so atomic), holding a random token and expiring
// after the lease. Complete replaces the claim with a "done" mark that
// expires after the retention; Release deletes the claim only if it still
// holds this replica's token. A replica that dies mid-processing neither
// completes nor releases: its claim expires after the lease, and the next
// delivery is processed by another replica.
//
// Each callback has one key, hash-tagged on the callback's digest
// (prefix + "{" + callback.Key.String() + "}"), and the latest status of each
// transaction has one, hash-tagged on the transaction id; every script
// touches one key, so the store works on a Redis Cluster (pass a
// *redis.ClusterClient) as on one server.
//
// # What it guarantees, and what to configure
//
// The callback handler gives each call a deadline, a quarter of the lease
// (see callback.WithStoreTimeout), and every call returns when it passes,
// even on a stalled connection: go-redis itself would wait for its read
// timeout (3 s by default, for ever if disabled) unless the client was made
// with ContextTimeoutEnabled, which also frees the connection at the
// deadline. Choose a lease longer than the merchant function can run plus
// that quarter.
//
// A callback the function processed but Complete could not record (Redis
// down or stalled) is logged by the handler at error level and answered
// 500, so the gateway delivers it again. Complete is one round trip: when
// only its answer was lost, the callback is recorded and the next delivery
// is acknowledged without running the function. Otherwise the claim blocks
// the callback until the lease ends (answered 503) and the function then
// runs again: the exception a store cannot avoid, as when a replica dies
// between the function and Complete.
//
// Redis keeps its data in memory. Exactly once across a restart of Redis
// needs an append-only file synced on every write:
//
//	appendonly yes
//	appendfsync always
//
// With appendfsync everysec a crash can lose about the last second of
// claims and processed marks; with snapshots only,
// or no persistence, a restart loses them all, and every callback delivered
// after it is processed again. Evicting keys loses them too: set
// maxmemory-policy noeviction, or give Redis memory for the retention's
// callbacks. Replication is asynchronous, so a failover can lose the last
// writes as well. To make such a loss seen, the store keeps a marker key,
// prefix + "store", that never expires, and checks it in the round trip of
// every claim: a process that saw it and finds it gone logs at error level
// that Redis lost its data (WithLogger; callbacks processed before may run
// again); a process that never saw it logs at warn level (a new store, or
// data lost while no replica ran). Do not delete it. On a Cluster it lives
// on one node, whose losses alone it shows.
//
// TestStore_FaultsRunTheFunctionOnceOrAsDocumented shows each case on a
// real server: killed and restarted with and without persistence, flushed,
// killed while the function runs, and stalled.
package redisdedup

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/dedupstore"
)

// Defaults of the options.
const (
	DefaultLease     = dedupstore.DefaultLease
	DefaultRetention = dedupstore.DefaultRetention
	DefaultKeyPrefix = "paygate:dedup:"
)

// ErrLeaseLost is matched (errors.Is) by the error Complete returns when
// the claim expired and another replica took the callback over before
// Complete: the callback was processed twice, so lengthen the lease. It is
// recorded as processed all the same.
var ErrLeaseLost = dedupstore.ErrLeaseLost

// Store is a callback.OrderStore on Redis. It is safe for
// concurrent use; share one per process.
type Store struct {
	rdb    redis.UniversalClient
	cfg    dedupstore.Settings
	prefix string
	tokens dedupstore.Tokens
	logger *slog.Logger
	marked atomic.Bool // the marker key was seen or written by this store
}

var (
	_ callback.OrderStore  = (*Store)(nil)
	_ callback.LeasedStore = (*Store)(nil)
)

// Option configures New.
type Option func(*Store)

// WithLease sets the expiry of a claim's key: how long a replica that died
// before completing blocks the callback. Make it longer than the merchant
// function can run, or another replica may run it too. Default
// DefaultLease; zero or less keeps it.
func WithLease(d time.Duration) Option { return func(s *Store) { s.cfg.SetLease(d) } }

// WithRetention sets the expiry of a processed callback's key and of a
// transaction's latest status. Default DefaultRetention; zero or less
// keeps it.
func WithRetention(d time.Duration) Option { return func(s *Store) { s.cfg.SetRetention(d) } }

// WithKeyPrefix sets the prefix of every key the store writes, to share a
// Redis database with other data. Default DefaultKeyPrefix.
func WithKeyPrefix(p string) Option {
	return func(s *Store) { s.prefix = p }
}

// WithLogger sets where the store reports that Redis lost its data (at
// error level). Default slog.Default(); nil keeps it.
func WithLogger(l *slog.Logger) Option {
	return func(s *Store) {
		if l != nil {
			s.logger = l
		}
	}
}

// New returns a store on rdb: a *redis.Client, a *redis.ClusterClient or a
// failover client.
func New(rdb redis.UniversalClient, opts ...Option) *Store {
	s := &Store{rdb: rdb, cfg: dedupstore.Defaults(), prefix: DefaultKeyPrefix, logger: slog.Default()}
	for _, o := range opts {
		o(s)
	}
	return s
}

// done is the value of a processed callback's key; tokens are hex digits.
const done = "done"

// claimScript takes the claim when the key is absent: 0 acquired,
// 1 processed, 2 claimed by someone else.
var claimScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 0
end
if v == ARGV[3] then return 1 end
return 2`)

// completeScript marks the callback done for the retention: 0 when the
// claim was still ours or had lapsed untaken, 1 when another replica had
// claimed or completed it meanwhile (marked done all the same).
var completeScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if v and v ~= ARGV[1] then return 1 end
return 0`)

// releaseScript deletes the claim only if it still holds our token.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)

// markScript writes the marker key unless it exists: 1 when it existed, 0
// when it was just written. It never expires.
var markScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
redis.call('SET', KEYS[1], ARGV[1])
return 0`)

// latestScript records a status in the transaction's hash unless one of a
// later or the same stage is there.
var latestScript = redis.NewScript(`
local cur = redis.call('HGET', KEYS[1], 'stage')
if cur and tonumber(cur) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'stage', ARGV[1], 'status', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`)

// Claim implements callback.Store. It does not wait for a
// claim held elsewhere: it reports callback.Busy, and the handler answers 503
// so that the gateway delivers again later. A claim this process holds is
// never taken over by this process, even past its lease: its holder is
// alive. Beside the claim, in the same round trip, it checks the store's
// marker key, whose loss it logs (see the package documentation).
func (s *Store) Claim(ctx context.Context, key callback.Key) (callback.Claim, error) {
	k, token := s.callbackKey(key), dedupstore.New()
	if s.tokens.Holds(k) {
		return callback.Busy, nil
	}
	n, err := dedupstore.Abandon(ctx, func() (int64, error) {
		var claim, mark *redis.Cmd
		_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			// EVAL rather than EVALSHA: a restarted Redis has no scripts,
			// and a retry would find the marker rewritten by this pipeline.
			claim = claimScript.Eval(ctx, p, []string{k}, token, ms(s.cfg.Lease), done)
			mark = markScript.Eval(ctx, p, []string{s.markerKey()}, time.Now().UTC().Format(time.RFC3339))
			return nil
		})
		if err != nil {
			return 0, err
		}
		if existed, err := mark.Int(); err == nil {
			s.checkMarker(ctx, existed == 1)
		}
		return claim.Int64()
	})
	if err != nil {
		return callback.Busy, fmt.Errorf("redisdedup: claim: %w", err)
	}
	switch n {
	case 0:
		s.tokens.Hold(k, token)
		return callback.Acquired, nil
	case 1:
		return callback.Processed, nil
	}
	return callback.Busy, nil
}

// checkMarker logs a marker key found missing: at error level when this
// store had seen it (Redis lost its data since), at warn level on the
// store's first claim (a new store, or data lost while no replica ran).
func (s *Store) checkMarker(ctx context.Context, existed bool) {
	seen := s.marked.Swap(true)
	switch {
	case existed:
	case seen:
		s.logger.LogAttrs(ctx, slog.LevelError, "redisdedup: Redis lost the record of processed callbacks (restarted without persistence, flushed, evicted or failed over): callbacks processed before may be processed again",
			slog.String("marker", s.markerKey()))
	default:
		s.logger.LogAttrs(ctx, slog.LevelWarn, "redisdedup: no record of earlier callbacks: a new store, or Redis lost its data while no replica ran",
			slog.String("marker", s.markerKey()))
	}
}

// Complete implements callback.Store: the callback is
// remembered as processed for the retention, and its status recorded as the
// latest of its transaction unless a later stage was. It returns an error
// matching ErrLeaseLost when another replica took the claim over. Whether
// it succeeds or fails, this process holds the claim no more: after a
// failure the claim lapses with its lease.
func (s *Store) Complete(ctx context.Context, key callback.Key) error {
	k := s.callbackKey(key)
	token := s.tokens.Take(k)
	n, err := dedupstore.Abandon(ctx, func() (int64, error) {
		// One round trip, so that an answer lost on the way back leaves
		// the callback recorded. The latest status goes first: on one
		// server the commands run in order, and a crash in between leaves
		// the callback to be processed again, never a processed status
		// unrecorded (on a Cluster the two keys may be on two nodes).
		var marked *redis.Cmd
		_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			if key.Transaction != 0 && key.Stage() > 0 {
				latestScript.Eval(ctx, p, []string{s.transactionKey(key.Transaction)},
					key.Stage(), string(key.Status), ms(s.cfg.Retention))
			}
			marked = completeScript.Eval(ctx, p, []string{k}, token, done, ms(s.cfg.Retention))
			return nil
		})
		if err != nil {
			return 0, err
		}
		return marked.Int64()
	})
	if err != nil {
		return fmt.Errorf("redisdedup: complete: %w", err)
	}
	if n == 1 {
		return fmt.Errorf("redisdedup: callback %s: %w", key.ID, ErrLeaseLost)
	}
	return nil
}

// Release implements callback.Store: the claim is deleted if it
// is still this replica's, so that the next delivery is processed.
func (s *Store) Release(ctx context.Context, key callback.Key) error {
	k := s.callbackKey(key)
	token := s.tokens.Take(k)
	_, err := dedupstore.Abandon(ctx, func() (any, error) {
		return nil, releaseScript.Run(ctx, s.rdb, []string{k}, token).Err()
	})
	if err != nil {
		return fmt.Errorf("redisdedup: release: %w", err)
	}
	return nil
}

// LatestStatus implements callback.OrderStore.
func (s *Store) LatestStatus(ctx context.Context, transaction callback.ID) (callback.Status, error) {
	st, err := dedupstore.Abandon(ctx, func() (string, error) {
		return s.rdb.HGet(ctx, s.transactionKey(transaction), "status").Result()
	})
	switch {
	case err == redis.Nil:
		return "", nil
	case err != nil:
		return "", fmt.Errorf("redisdedup: latest status: %w", err)
	}
	return callback.Status(st), nil
}

// Lease implements callback.LeasedStore: the callback handler bounds
// each call by a quarter of it.
func (s *Store) Lease() time.Duration { return s.cfg.Lease }

// markerKey is the key whose loss tells that Redis lost the store's data.
func (s *Store) markerKey() string { return s.prefix + "store" }

func (s *Store) callbackKey(key callback.Key) string {
	return s.prefix + "{" + key.String() + "}"
}

func (s *Store) transactionKey(id callback.ID) string {
	return s.prefix + "txn:{" + id.String() + "}"
}

// ms is d in whole milliseconds, at least one, as PX and PEXPIRE take it.
func ms(d time.Duration) string {
	return strconv.FormatInt(max(d.Milliseconds(), 1), 10)
}
