package paygate

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storeProbe completes and probes keys of a MemoryDedupStore.
type storeProbe struct {
	t *testing.T
	s *MemoryDedupStore
}

func (p storeProbe) complete(k DedupKey) {
	p.t.Helper()
	c, err := p.s.Claim(context.Background(), k)
	require.NoError(p.t, err)
	require.Equal(p.t, DedupAcquired, c, "%v", k)
	require.NoError(p.t, p.s.Complete(context.Background(), k))
}

// remembered reports whether the store would acknowledge k as processed,
// leaving the store as it was.
func (p storeProbe) remembered(k DedupKey) bool {
	p.t.Helper()
	c, err := p.s.Claim(context.Background(), k)
	require.NoError(p.t, err)
	if c == DedupAcquired {
		require.NoError(p.t, p.s.Release(context.Background(), k))
	}
	return c == DedupProcessed
}

func completedKey(id ID) DedupKey {
	return DedupKey{ID: id, Status: CallbackCompleted, Transaction: id}
}

// After the ring has wrapped several times the store still remembers
// exactly the newest callbacks and has forgotten exactly the older ones:
// a ring that stopped advancing would evict the newest instead, and the
// gateway's ordinary redelivery would be processed twice.
func TestMemoryDedupStore_RingAfterSeveralWraps(t *testing.T) {
	for _, capacity := range []ID{1, 2, 3} {
		total := capacity*4 + 2
		p := storeProbe{t, NewMemoryDedupStore(int(capacity))}
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

// A capacity below 1 is DefaultDedupCapacity, which the README gives as
// 10 000, and the store works: it remembers that many and then forgets the
// oldest.
func TestMemoryDedupStore_CapacityBelowOneIsTheDefault(t *testing.T) {
	const documented = 10000
	require.Equal(t, documented, DefaultDedupCapacity)
	for _, capacity := range []int{0, -1} {
		p := storeProbe{t, NewMemoryDedupStore(capacity)}
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
	p := storeProbe{t, NewMemoryDedupStore(2)}
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
	p := storeProbe{t, NewMemoryDedupStore(10)}
	k := completedKey(1)
	k.Digest[0] = 1
	p.complete(k)
	moved := DedupKey{ID: 2, Status: CallbackRefundCompleted, Transaction: 3, Digest: k.Digest}
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
	s := NewMemoryDedupStore(2)
	p := storeProbe{t, s}
	latest := func(id ID) CallbackStatus {
		t.Helper()
		st, err := s.LatestStatus(ctx, id)
		require.NoError(t, err)
		return st
	}
	p.complete(DedupKey{ID: 1, Status: CallbackProcessing, Transaction: 1})
	assert.Equal(t, CallbackProcessing, latest(1))
	p.complete(DedupKey{ID: 1, Status: CallbackCompleted, Transaction: 1})
	assert.Equal(t, CallbackCompleted, latest(1))
	p.complete(DedupKey{ID: 1, Status: CallbackFailed, Transaction: 1})
	assert.Equal(t, CallbackCompleted, latest(1), "a status of the same stage does not replace it")
	p.complete(DedupKey{ID: 2, Status: CallbackRefundCompleted, Transaction: 1})
	assert.Equal(t, CallbackRefundCompleted, latest(1))
	p.complete(DedupKey{ID: 5, Status: "unheard_of", Transaction: 5})
	assert.Equal(t, CallbackStatus(""), latest(5), "an unknown status is not recorded")
	p.complete(DedupKey{ID: 6, Status: CallbackCompleted})
	assert.Equal(t, CallbackStatus(""), latest(0), "a key without a transaction is not recorded")

	// Transaction 1 took one slot of two, however often it changed.
	p.complete(completedKey(10))
	assert.Equal(t, CallbackRefundCompleted, latest(1))
	for id := ID(11); id <= 16; id++ {
		p.complete(completedKey(id))
		assert.Equal(t, CallbackCompleted, latest(id))
		assert.Equal(t, CallbackCompleted, latest(id-1), "the previous transaction is kept")
		assert.Equal(t, CallbackStatus(""), latest(id-2), "the one before is forgotten")
	}
	assert.Equal(t, CallbackStatus(""), latest(1))
}

// Stages as DedupKey.Stage documents them, and what is stale after what.
func TestDedupKey_StagesAndStaleness(t *testing.T) {
	stages := map[CallbackStatus]int{
		CallbackProcessing: 1, CallbackWaitingApproval: 1,
		CallbackCompleted: 2, CallbackFailed: 2, CallbackVerified: 2,
		CallbackPayoutCompleted: 2, CallbackPayoutFailed: 2, CallbackPayoutCancelled: 2, CallbackPayoutAbandoned: 2,
		CallbackReversed: 3, CallbackRefundCompleted: 3, CallbackChargebackCompleted: 3,
		CallbackRetrievalCompleted: 4, CallbackPenaltyCompleted: 4,
		"unheard_of": 0, "": 0,
	}
	for status, stage := range stages {
		assert.Equal(t, stage, DedupKey{Status: status}.Stage(), status)
	}
	for _, tt := range []struct {
		key, latest CallbackStatus
		stale       bool
	}{
		{CallbackCompleted, "", false},
		{CallbackCompleted, CallbackProcessing, false},
		{CallbackCompleted, CallbackCompleted, false},
		{CallbackCompleted, CallbackFailed, false},
		{CallbackCompleted, CallbackRefundCompleted, true},
		{CallbackProcessing, CallbackCompleted, true},
		{CallbackRefundCompleted, CallbackPenaltyCompleted, true},
		{CallbackPenaltyCompleted, CallbackRefundCompleted, false},
		{"unheard_of", CallbackPenaltyCompleted, false},
		{CallbackProcessing, "unheard_of", false},
	} {
		assert.Equal(t, tt.stale, DedupKey{Status: tt.key}.staleAfter(tt.latest), "%s after %s", tt.key, tt.latest)
	}
}

// Refund, chargeback, retrieval and penalty callbacks belong to the life of
// the transaction they act on; every other callback to its own, even with
// a reference_id.
func TestDedupKey_TransactionOfEachStatus(t *testing.T) {
	s := newTestCallbackSigner(testSecret, FormExtended)
	for _, status := range []CallbackStatus{CallbackRefundCompleted, CallbackChargebackCompleted, CallbackRetrievalCompleted, CallbackPenaltyCompleted} {
		k := keyOf(t, s.Values(status, url.Values{"id": {"9007199254740999"}, "reference_id": {testCallbackID.String()}}))
		assert.Equal(t, testCallbackID, k.Transaction, status)
		assert.Equal(t, ID(9007199254740999), k.ID, status)
	}
	for _, status := range []CallbackStatus{CallbackCompleted, CallbackReversed, CallbackProcessing, CallbackPayoutCompleted} {
		k := keyOf(t, s.Values(status, url.Values{"id": {"9007199254740999"}, "reference_id": {testCallbackID.String()}}))
		assert.Equal(t, ID(9007199254740999), k.Transaction, status)
	}
	k := keyOf(t, s.Values(CallbackRefundCompleted, url.Values{"id": {"9007199254740999"}, "reference_id": {""}}))
	assert.Equal(t, ID(9007199254740999), k.Transaction, "a refund without reference_id is ordered on its own id")
}

// The key of the refund fixture, pinned: the SHA-256 of exactly the string
// its signature covers (its values without the signature, sorted as byte
// strings, joined with "|"), computed independently of this package. A store with a unique key on DedupKey.String depends on it
// staying the same across versions.
func TestDedupKey_StringOfTheRefundFixture(t *testing.T) {
	v, err := url.ParseQuery(strings.TrimSpace(callbackFixture(t, "extended_refund_completed.txt")))
	require.NoError(t, err)
	k := keyOf(t, v)
	const want = "5d594f39dc4fd341faa9ed6f066d05fa1e6506081a30b75a3f7cc2886cb0aac0"
	assert.Equal(t, want, k.String())
	assert.Equal(t, DedupKey{ID: 9007199254740994, Status: CallbackRefundCompleted, Transaction: 9007199254740993, Digest: k.Digest}, k)

	v.Set(SignatureParam, strings.Repeat("0", 64))
	assert.Equal(t, want, DedupKey{Digest: valuesDigest(v)}.String(), "the signature plays no part")
	v.Set("reason", "")
	withEmpty := valuesDigest(v)
	assert.NotEqual(t, want, DedupKey{Digest: withEmpty}.String())
	v.Del("reason")
	assert.NotEqual(t, withEmpty, valuesDigest(v), "an empty value counts")
	assert.NotEqual(t, valuesDigest(url.Values{"a": {"ab"}}), valuesDigest(url.Values{"a": {"a"}, "b": {"b"}}))
	assert.Equal(t, valuesDigest(url.Values{"a": {"x"}, "b": {"y"}}), valuesDigest(url.Values{"a": {"y"}, "b": {"x"}}))
}
