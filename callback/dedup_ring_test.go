package callback

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/paygate/paygate-go/internal/signing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storeProbe completes and probes keys of a MemoryStore.
type storeProbe struct {
	t *testing.T
	s *MemoryStore
}

func (p storeProbe) complete(k Key) {
	p.t.Helper()
	c, err := p.s.Claim(context.Background(), k)
	require.NoError(p.t, err)
	require.Equal(p.t, Acquired, c, "%v", k)
	require.NoError(p.t, p.s.Complete(context.Background(), k))
}

// remembered reports whether the store would acknowledge k as processed,
// leaving the store as it was.
func (p storeProbe) remembered(k Key) bool {
	p.t.Helper()
	c, err := p.s.Claim(context.Background(), k)
	require.NoError(p.t, err)
	if c == Acquired {
		require.NoError(p.t, p.s.Release(context.Background(), k))
	}
	return c == Processed
}

func completedKey(id ID) Key {
	return Key{ID: id, Status: Completed, Transaction: id}
}

// After the ring has wrapped several times the store still remembers
// exactly the newest callbacks and has forgotten exactly the older ones:
// a ring that stopped advancing would evict the newest instead, and the
// gateway's ordinary redelivery would be processed twice.
func TestMemoryDedupStore_RingAfterSeveralWraps(t *testing.T) {
	for _, capacity := range []ID{1, 2, 3} {
		total := capacity*4 + 2
		p := storeProbe{t, NewMemoryStore(int(capacity))}
		for n := ID(1); n <= total; n++ {
			p.complete(completedKey(n))
			for id := ID(1); id <= n; id++ {
				want := id+capacity > n
				require.Equal(t, want, p.remembered(completedKey(id)), "capacity %d, after %d callbacks, callback %d", capacity, n, id)
			}
			require.Equal(t, int(min(n, capacity)), p.s.remembered())
		}
	}
}

// A capacity below 1 is DefaultCapacity, which the README gives as
// 10 000, and the store works: it remembers that many and then forgets the
// oldest.
func TestMemoryDedupStore_CapacityBelowOneIsTheDefault(t *testing.T) {
	const documented = 10000
	require.Equal(t, documented, DefaultCapacity)
	for _, capacity := range []int{0, -1} {
		p := storeProbe{t, NewMemoryStore(capacity)}
		for id := ID(1); id <= documented; id++ {
			p.complete(completedKey(id))
		}
		assert.Equal(t, documented, p.s.remembered())
		assert.True(t, p.remembered(completedKey(1)))
		p.complete(completedKey(documented + 1))
		assert.Equal(t, documented, p.s.remembered())
		assert.False(t, p.remembered(completedKey(1)), "the oldest is forgotten")
		assert.True(t, p.remembered(completedKey(2)))
		assert.True(t, p.remembered(completedKey(documented+1)))
	}
}

func TestMemoryDedupStore_CompletingTwiceTakesOneSlot(t *testing.T) {
	p := storeProbe{t, NewMemoryStore(2)}
	p.complete(completedKey(1))
	require.NoError(t, p.s.Complete(context.Background(), completedKey(1)), "a second Complete of the same key")
	p.complete(completedKey(2))
	assert.Equal(t, 2, p.s.remembered())
	assert.True(t, p.remembered(completedKey(1)), "the repeated Complete did not push 1 out")
	assert.True(t, p.remembered(completedKey(2)))
}

// A key with a Digest is identified by it alone: ID and Status are for
// ordering and logs.
func TestMemoryDedupStore_DigestIsTheIdentity(t *testing.T) {
	p := storeProbe{t, NewMemoryStore(10)}
	k := completedKey(1)
	k.Digest[0] = 1
	p.complete(k)
	moved := Key{ID: 2, Status: RefundCompleted, Transaction: 3, Digest: k.Digest}
	assert.True(t, p.remembered(moved))
	assert.False(t, p.remembered(completedKey(1)), "the same id and status with other values is another callback")
	other := k
	other.Digest[31] = 1
	assert.False(t, p.remembered(other))
}

// The latest status per transaction: a later stage replaces an earlier
// one, never the reverse nor one of the same stage; keys without a
// transaction or with an unknown status are not recorded; the ring of
// transactions forgets the oldest after several wraps.
func TestMemoryDedupStore_LatestStatusPerTransaction(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore(2)
	p := storeProbe{t, s}
	latest := func(id ID) Status {
		t.Helper()
		st, err := s.LatestStatus(ctx, id)
		require.NoError(t, err)
		return st
	}
	p.complete(Key{ID: 1, Status: Processing, Transaction: 1})
	assert.Equal(t, Processing, latest(1))
	p.complete(Key{ID: 1, Status: Completed, Transaction: 1})
	assert.Equal(t, Completed, latest(1))
	p.complete(Key{ID: 1, Status: Failed, Transaction: 1})
	assert.Equal(t, Completed, latest(1), "a status of the same stage does not replace it")
	p.complete(Key{ID: 2, Status: RefundCompleted, Transaction: 1})
	assert.Equal(t, RefundCompleted, latest(1))
	p.complete(Key{ID: 5, Status: "unheard_of", Transaction: 5})
	assert.Equal(t, Status(""), latest(5), "an unknown status is not recorded")
	p.complete(Key{ID: 6, Status: Completed})
	assert.Equal(t, Status(""), latest(0), "a key without a transaction is not recorded")

	// Transaction 1 took one slot of two, however often it changed.
	p.complete(completedKey(10))
	assert.Equal(t, RefundCompleted, latest(1))
	for id := ID(11); id <= 16; id++ {
		p.complete(completedKey(id))
		assert.Equal(t, Completed, latest(id))
		assert.Equal(t, Completed, latest(id-1), "the previous transaction is kept")
		assert.Equal(t, Status(""), latest(id-2), "the one before is forgotten")
	}
	assert.Equal(t, Status(""), latest(1))
}

// Stages as Key.Stage documents them, and what is stale after what.
func TestDedupKey_StagesAndStaleness(t *testing.T) {
	stages := map[Status]int{
		Processing: 1, WaitingApproval: 1,
		Completed: 2, Failed: 2, Verified: 2,
		PayoutCompleted: 2, PayoutFailed: 2, PayoutCancelled: 2, PayoutAbandoned: 2,
		Reversed: 3, RefundCompleted: 3, ChargebackCompleted: 3,
		RetrievalCompleted: 4, PenaltyCompleted: 4,
		"unheard_of": 0, "": 0,
	}
	for status, stage := range stages {
		assert.Equal(t, stage, Key{Status: status}.Stage(), status)
	}
	for _, tt := range []struct {
		key, latest Status
		stale       bool
	}{
		{Completed, "", false},
		{Completed, Processing, false},
		{Completed, Completed, false},
		{Completed, Failed, false},
		{Completed, RefundCompleted, true},
		{Processing, Completed, true},
		{RefundCompleted, PenaltyCompleted, true},
		{PenaltyCompleted, RefundCompleted, false},
		{"unheard_of", PenaltyCompleted, false},
		{Processing, "unheard_of", false},
	} {
		assert.Equal(t, tt.stale, Key{Status: tt.key}.staleAfter(tt.latest), "%s after %s", tt.key, tt.latest)
	}
}

// Refund, chargeback, retrieval and penalty callbacks belong to the life of
// the transaction they act on; every other callback to its own, even with
// a reference_id.
func TestDedupKey_TransactionOfEachStatus(t *testing.T) {
	s := newTestCallbackSigner(testSecret, FormExtended)
	for _, status := range []Status{RefundCompleted, ChargebackCompleted, RetrievalCompleted, PenaltyCompleted} {
		k := keyOf(t, s.Values(status, url.Values{"id": {"9007199254740999"}, "reference_id": {testCallbackID.String()}}))
		assert.Equal(t, testCallbackID, k.Transaction, status)
		assert.Equal(t, ID(9007199254740999), k.ID, status)
	}
	for _, status := range []Status{Completed, Reversed, Processing, PayoutCompleted} {
		k := keyOf(t, s.Values(status, url.Values{"id": {"9007199254740999"}, "reference_id": {testCallbackID.String()}}))
		assert.Equal(t, ID(9007199254740999), k.Transaction, status)
	}
	k := keyOf(t, s.Values(RefundCompleted, url.Values{"id": {"9007199254740999"}, "reference_id": {""}}))
	assert.Equal(t, ID(9007199254740999), k.Transaction, "a refund without reference_id is ordered on its own id")
}

// The key of the refund fixture, pinned: the SHA-256 of exactly the string
// its signature covers (its values without the signature, sorted as byte
// strings, joined with "|"), computed independently of this package. A store with a unique key on Key.String depends on it
// staying the same across versions.
func TestDedupKey_StringOfTheRefundFixture(t *testing.T) {
	v, err := url.ParseQuery(strings.TrimSpace(callbackFixture(t, "extended_refund_completed.txt")))
	require.NoError(t, err)
	k := keyOf(t, v)
	const want = "5d594f39dc4fd341faa9ed6f066d05fa1e6506081a30b75a3f7cc2886cb0aac0"
	assert.Equal(t, want, k.String())
	assert.Equal(t, Key{ID: 9007199254740994, Status: RefundCompleted, Transaction: 9007199254740993, Digest: k.Digest}, k)

	v.Set(signing.Param, strings.Repeat("0", 64))
	assert.Equal(t, want, Key{Digest: valuesDigest(v)}.String(), "the signature plays no part")
	v.Set("reason", "")
	withEmpty := valuesDigest(v)
	assert.NotEqual(t, want, Key{Digest: withEmpty}.String())
	v.Del("reason")
	assert.NotEqual(t, withEmpty, valuesDigest(v), "an empty value counts")
	assert.NotEqual(t, valuesDigest(url.Values{"a": {"ab"}}), valuesDigest(url.Values{"a": {"a"}, "b": {"b"}}))
	assert.Equal(t, valuesDigest(url.Values{"a": {"x"}, "b": {"y"}}), valuesDigest(url.Values{"a": {"y"}, "b": {"x"}}))
}
