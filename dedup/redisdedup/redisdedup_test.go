package redisdedup_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/dedup/redisdedup"
	"github.com/paygate/paygate-go/internal/testkit/dedupsuite"
	"github.com/paygate/paygate-go/internal/testkit/testengine"
)

// stores returns a factory of stores on one fresh redis-server, each with
// its own connection, as replicas have.
func stores(t testing.TB) dedupsuite.Factory {
	addr := testengine.Redis(t)
	return func(t testing.TB, lease time.Duration) callback.Store {
		return redisdedup.New(connect(t, addr), redisdedup.WithLease(lease), redisdedup.WithKeyPrefix("test:"), redisdedup.WithLogger(quiet))
	}
}

// quiet drops what the stores log: each warns once that it finds no
// record of earlier callbacks, as a new store does.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// connect returns a client of the server at addr, closed when the test
// ends.
func connect(t testing.TB, addr string) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

func TestStore(t *testing.T) {
	dedupsuite.Run(t, stores)
}

func TestStore_KeysAreHashTaggedAndExpire(t *testing.T) {
	ctx := context.Background()
	rdb := connect(t, testengine.Redis(t))
	s := redisdedup.New(rdb, redisdedup.WithLease(time.Minute), redisdedup.WithRetention(48*time.Hour), redisdedup.WithLogger(quiet))
	key := dedupsuite.Key(11)
	claimKey := redisdedup.DefaultKeyPrefix + "{" + key.String() + "}"

	dedupsuite.RequireClaim(t, s, key, callback.Acquired)
	if ttl := rdb.PTTL(ctx, claimKey).Val(); ttl <= 0 || ttl > time.Minute {
		t.Fatalf("claim expires in %v, want the lease of 1m", ttl)
	}
	if err := s.Complete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if ttl := rdb.PTTL(ctx, claimKey).Val(); ttl <= 47*time.Hour || ttl > 48*time.Hour {
		t.Fatalf("processed mark expires in %v, want the retention of 48h", ttl)
	}
	txnKey := redisdedup.DefaultKeyPrefix + "txn:{11}"
	if ttl := rdb.PTTL(ctx, txnKey).Val(); ttl <= 47*time.Hour {
		t.Fatalf("latest status expires in %v, want the retention of 48h", ttl)
	}
	dedupsuite.RequireClaim(t, s, key, callback.Processed)
}

// clusterStores returns a factory of stores on one fresh Redis Cluster,
// each with its own cluster client.
func clusterStores(t testing.TB) dedupsuite.Factory {
	addrs := testengine.RedisCluster(t)
	return func(t testing.TB, lease time.Duration) callback.Store {
		rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
		t.Cleanup(func() { _ = rdb.Close() })
		return redisdedup.New(rdb, redisdedup.WithLease(lease), redisdedup.WithLogger(quiet))
	}
}

func TestStore_OnARedisCluster(t *testing.T) {
	factory := clusterStores(t)
	t.Run("replicas", func(t *testing.T) { dedupsuite.Replicas(t, factory) })
	t.Run("ordering", func(t *testing.T) { dedupsuite.Ordering(t, factory) })
	t.Run("swapped", func(t *testing.T) { dedupsuite.Swapped(t, factory) })
}

// BenchmarkClaimComplete measures one callback's claim and completion on
// Redis (one connection, loopback) against the in-process callback.MemoryStore
// in the same run.
func BenchmarkClaimComplete(b *testing.B) {
	b.Run("memory", func(b *testing.B) { dedupsuite.ClaimComplete(b, callback.NewMemoryStore(0)) })
	b.Run("redis", func(b *testing.B) { dedupsuite.ClaimComplete(b, stores(b)(b, time.Minute)) })
}

func TestNew_DefaultsAreAMinutesLeaseAndThirtyDaysRetention(t *testing.T) {
	ctx := context.Background()
	rdb := connect(t, testengine.Redis(t))
	s := redisdedup.New(rdb, redisdedup.WithLogger(quiet))
	if s.Lease() != time.Minute {
		t.Fatalf("Lease() = %v, want 1m: the handler's store deadline is a quarter of it", s.Lease())
	}
	key := dedupsuite.Key(12)
	mark := redisdedup.DefaultKeyPrefix + "{" + key.String() + "}"
	dedupsuite.RequireClaim(t, s, key, callback.Acquired)
	if ttl := rdb.PTTL(ctx, mark).Val(); ttl <= 59*time.Second || ttl > time.Minute {
		t.Fatalf("claim expires in %v, want 60 s", ttl)
	}
	if err := s.Complete(ctx, key); err != nil {
		t.Fatal(err)
	}
	const month = 30 * 24 * time.Hour
	if ttl := rdb.PTTL(ctx, mark).Val(); ttl <= month-time.Minute || ttl > month {
		t.Fatalf("processed mark expires in %v, want 30 days", ttl)
	}
}
