package redisdedup_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	paygate "github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/dedup/redisdedup"
	"github.com/paygate/paygate-go/internal/dedupsuite"
	"github.com/paygate/paygate-go/internal/testengine"
)

// stores returns a factory of stores on one fresh redis-server, each with
// its own connection, as replicas have.
func stores(t testing.TB) dedupsuite.Factory {
	addr := testengine.Redis(t)
	return func(t testing.TB, lease time.Duration) paygate.CallbackDedupStore {
		rdb := redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() { _ = rdb.Close() })
		return redisdedup.New(rdb, redisdedup.WithLease(lease), redisdedup.WithKeyPrefix("test:"))
	}
}

func TestStore_ReplicasProcessEachCallbackOnce(t *testing.T) {
	dedupsuite.Replicas(t, stores(t))
}

func TestStore_ClaimOfACrashedReplicaExpiresAfterTheLease(t *testing.T) {
	dedupsuite.Crash(t, stores(t), 300*time.Millisecond)
}

func TestStore_StaleCallbacksAreMarked(t *testing.T) {
	dedupsuite.Ordering(t, stores(t))
}

func TestStore_KeysAreHashTaggedAndExpire(t *testing.T) {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: testengine.Redis(t)})
	t.Cleanup(func() { _ = rdb.Close() })
	s := redisdedup.New(rdb, redisdedup.WithLease(time.Minute), redisdedup.WithRetention(48*time.Hour))
	key := paygate.DedupKey{ID: 11, Status: paygate.CallbackCompleted, Transaction: 11, Digest: [32]byte{1, 2, 3}}
	claimKey := redisdedup.DefaultKeyPrefix + "{" + key.String() + "}"

	if c, err := s.Claim(ctx, key); err != nil || c != paygate.DedupAcquired {
		t.Fatalf("Claim = %v, %v", c, err)
	}
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
	if c, err := s.Claim(ctx, key); err != nil || c != paygate.DedupProcessed {
		t.Fatalf("Claim after Complete = %v, %v; want processed", c, err)
	}
}

func TestStore_ReleaseLeavesAnotherReplicasClaim(t *testing.T) {
	dedupsuite.ReleaseKeepsATakenOverClaim(t, stores(t))
}

func TestStore_CompleteAfterATakeOverReportsTheLostLease(t *testing.T) {
	dedupsuite.CompleteAfterATakeOverReportsTheLostLease(t, stores(t))
}

// BenchmarkClaimComplete measures one callback's claim and completion on
// Redis (one connection, loopback) against the in-process MemoryDedupStore
// in the same run.
func BenchmarkClaimComplete(b *testing.B) {
	b.Run("memory", func(b *testing.B) { dedupsuite.ClaimComplete(b, paygate.NewMemoryDedupStore(0)) })
	b.Run("redis", func(b *testing.B) { dedupsuite.ClaimComplete(b, stores(b)(b, time.Minute)) })
}
