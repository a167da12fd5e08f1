package paygate

import (
	"context"
	"encoding/hex"
	"sync"
	"time"
)

// DefaultDedupCapacity is how many processed callbacks the handler's
// default MemoryDedupStore remembers.
const DefaultDedupCapacity = 10000

// DefaultDedupTimeout is the deadline of each call the handler makes to a
// de-duplication store that is no [LeasedDedupStore] (the default
// MemoryDedupStore among them), unless WithDedupTimeout sets another.
const DefaultDedupTimeout = 15 * time.Second

// DedupKey identifies one callback for de-duplication, and places it in the
// life of its transaction for ordering. Build it with [Callback.DedupKey].
//
// The identity of a callback is Digest, the SHA-256 of the string the
// signature covers: the gateway signs values, not field names, so a
// callback whose values were swapped between fields (id and reference_id on
// a refund_completed, say) still verifies, and must not count as a new
// callback. A redelivery carries the same values, so the same Digest. ID,
// Status and Transaction are kept beside it for ordering and for logs; they
// play no part in the identity when Digest is set.
type DedupKey struct {
	// ID is the callback's transaction id, as sent.
	ID ID
	// Status is the callback's status.
	Status CallbackStatus
	// Transaction is the transaction whose life Status belongs to: the
	// reference_id of a refund_completed, chargeback_completed,
	// retrieval_completed or penalty_completed callback (the transaction
	// refunded, charged back, ...), ID otherwise. Stores that keep order
	// group statuses by it.
	Transaction ID
	// Digest is the SHA-256 of the string the signature covers (the
	// values, signature excluded, sorted and joined with "|"), so
	// independent of which field carried which value. A key built by hand with only ID and Status has none and
	// is identified by ID and Status, as before.
	Digest [32]byte
}

// DedupKey returns the callback's de-duplication key: see [DedupKey].
func (c *Callback) DedupKey() DedupKey {
	k := DedupKey{ID: c.ID, Status: c.Status, Transaction: c.ID, Digest: c.raw.digest()}
	if c.Status.follows() && c.ReferenceID != 0 {
		k.Transaction = c.ReferenceID
	}
	return k
}

// String returns the key for an external store: the 64 lowercase hex digits
// of Digest, or "<id>/<status>" for a key without a Digest. It is never
// empty, and two callbacks whose signed strings differ give different
// strings.
func (k DedupKey) String() string {
	if k.Digest == ([32]byte{}) {
		return k.ID.String() + "/" + string(k.Status)
	}
	return hex.EncodeToString(k.Digest[:])
}

// Stage is the position of Status in the life of a transaction, for
// ordering: 1 in progress (processing, waiting_approval), 2 settled
// (completed, failed, verified, payout_*), 3 undone (reversed,
// refund_completed, chargeback_completed), 4 after a dispute or a penalty
// (retrieval_completed, penalty_completed). A status the spec does not
// list is 0: it is never stale and never makes another callback stale.
func (k DedupKey) Stage() int { return k.Status.stage() }

// identity is the part of k that tells callbacks apart: the Digest, or ID
// and Status for a key built without one.
func (k DedupKey) identity() DedupKey {
	if k.Digest == ([32]byte{}) {
		return DedupKey{ID: k.ID, Status: k.Status}
	}
	return DedupKey{Digest: k.Digest}
}

func (s CallbackStatus) stage() int {
	switch s {
	case CallbackProcessing, CallbackWaitingApproval:
		return 1
	case CallbackCompleted, CallbackFailed, CallbackVerified,
		CallbackPayoutCompleted, CallbackPayoutFailed, CallbackPayoutCancelled, CallbackPayoutAbandoned:
		return 2
	case CallbackReversed, CallbackRefundCompleted, CallbackChargebackCompleted:
		return 3
	case CallbackRetrievalCompleted, CallbackPenaltyCompleted:
		return 4
	}
	return 0
}

// follows reports whether a callback of status s is sent for a new
// transaction that acts on its reference_id. Other callbacks may carry a
// reference_id too (a recurring charge names the charge that started it)
// and are ordered on their own id.
func (s CallbackStatus) follows() bool {
	switch s {
	case CallbackRefundCompleted, CallbackChargebackCompleted, CallbackRetrievalCompleted, CallbackPenaltyCompleted:
		return true
	}
	return false
}

// staleAfter reports whether a callback of key's status is older than
// latest, the latest status processed for the same transaction.
func (k DedupKey) staleAfter(latest CallbackStatus) bool {
	s := k.Stage()
	return s > 0 && latest.stage() > s
}

// valuesDigest hashes what the signature covers: the values sorted and
// joined with "|". Values re-split at a "|" (two fields merged into one, or
// one split in two) keep the signature valid, so they must keep the digest
// too: a length-prefixed encoding would tell them apart and let such a
// callback be processed again.
func valuesDigest(v map[string][]string) [32]byte {
	return fieldsOf(v).digest()
}

// DedupClaim is what a CallbackDedupStore says about a callback about to be
// processed.
type DedupClaim int

const (
	// DedupAcquired means the caller now holds the callback and must end
	// the claim with Complete or Release.
	DedupAcquired DedupClaim = iota
	// DedupProcessed means the callback was processed before: acknowledge
	// it without processing it again.
	DedupProcessed
	// DedupBusy means another delivery of the callback is being processed
	// and the store cannot wait for it; the handler answers 503 so that the
	// gateway delivers again later.
	DedupBusy
)

// CallbackDedupStore records which callbacks were processed, so that a
// repeated delivery is acknowledged without running the CallbackFunc again.
// A callback is claimed before processing, completed only after it was
// processed successfully, and released when processing failed, so a failed
// callback is retried and two concurrent deliveries never both run.
// Implementations must be safe for concurrent use, and return when the
// context of a call ends: the handler gives each call a deadline (see
// WithDedupTimeout), and a call that waits on a stalled connection beyond it
// holds the delivery. A store shared by several processes (a database table
// with a unique key on DedupKey.String, for example) makes de-duplication
// hold across them. Stores that also keep order implement
// [CallbackOrderStore].
type CallbackDedupStore interface {
	// Claim reserves key for processing, or reports that it was processed
	// already or is in progress. It may wait for a claim in progress to
	// end, until ctx is done.
	Claim(ctx context.Context, key DedupKey) (DedupClaim, error)
	// Complete records key as processed and ends the claim.
	Complete(ctx context.Context, key DedupKey) error
	// Release ends the claim without recording key as processed.
	Release(ctx context.Context, key DedupKey) error
}

// CallbackOrderStore is a CallbackDedupStore that also keeps, per
// transaction (DedupKey.Transaction), the latest status processed: Complete
// records key.Status unless a status of a later stage (DedupKey.Stage) was
// recorded for the same transaction before. The gateway may deliver a
// transaction's callbacks out of order; with such a store the handler marks
// a callback older than what was processed as [Callback.Stale].
//
// It is a separate interface so that stores written for CallbackDedupStore
// alone keep working (without ordering). MemoryDedupStore and the stores
// of the dedup/redisdedup and dedup/pgdedup modules implement it.
type CallbackOrderStore interface {
	CallbackDedupStore
	// LatestStatus returns the latest status recorded for transaction, or
	// "" when none is.
	LatestStatus(ctx context.Context, transaction ID) (CallbackStatus, error)
}

// LeasedDedupStore is a CallbackDedupStore whose claims end by themselves
// after a lease, as those of a store shared by several processes must (a
// process may die holding one). The handler bounds each call to it by a
// quarter of the lease (see [WithDedupTimeout]), so that a stalled store
// never holds a delivery until the lease ends, when another process would
// take the callback over. The stores of dedup/redisdedup and dedup/pgdedup
// implement it.
type LeasedDedupStore interface {
	CallbackDedupStore
	// Lease returns how long a claim lasts when its holder neither
	// completes nor releases it.
	Lease() time.Duration
}

// MemoryDedupStore is an in-process CallbackDedupStore. It remembers up to
// its capacity of processed callbacks and then forgets the oldest, so its
// memory stays bounded; the gateway repeats a callback within a short time
// of the first delivery, so the oldest are the least likely to come again.
// Claims in progress are not counted against the capacity. Its Claim waits
// for a concurrent delivery of the same callback to finish: if that one
// succeeded the waiter sees DedupProcessed, otherwise it takes the claim.
// It is a CallbackOrderStore too, remembering the latest status of up to
// capacity transactions the same way. What it remembers is lost on
// restart, and it is not shared between processes: for several replicas
// use a shared store (dedup/redisdedup, dedup/pgdedup).
type MemoryDedupStore struct {
	mu       sync.Mutex
	inflight map[DedupKey]chan struct{} // closed when the claim ends
	done     map[DedupKey]struct{}
	order    ring[DedupKey] // done keys, oldest first
	latest   map[ID]CallbackStatus
	txns     ring[ID] // keys of latest, oldest first
}

// NewMemoryDedupStore returns a store remembering up to capacity processed
// callbacks; capacity below 1 means DefaultDedupCapacity.
func NewMemoryDedupStore(capacity int) *MemoryDedupStore {
	if capacity < 1 {
		capacity = DefaultDedupCapacity
	}
	return &MemoryDedupStore{
		inflight: make(map[DedupKey]chan struct{}),
		done:     make(map[DedupKey]struct{}),
		order:    newRing[DedupKey](capacity),
		latest:   make(map[ID]CallbackStatus),
		txns:     newRing[ID](capacity),
	}
}

// Claim implements CallbackDedupStore, waiting while the same key is in
// progress.
func (s *MemoryDedupStore) Claim(ctx context.Context, key DedupKey) (DedupClaim, error) {
	key = key.identity()
	for {
		s.mu.Lock()
		if _, ok := s.done[key]; ok {
			s.mu.Unlock()
			return DedupProcessed, nil
		}
		wait, busy := s.inflight[key]
		if !busy {
			s.inflight[key] = make(chan struct{})
			s.mu.Unlock()
			return DedupAcquired, nil
		}
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return DedupBusy, ctx.Err()
		}
	}
}

// Complete implements CallbackDedupStore, and records key.Status as the
// latest of key.Transaction unless a later stage was recorded.
func (s *MemoryDedupStore) Complete(_ context.Context, key DedupKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordLatest(key)
	id := key.identity()
	s.endClaim(id)
	if _, ok := s.done[id]; ok {
		return nil
	}
	s.done[id] = struct{}{}
	if old, ok := s.order.add(id); ok {
		delete(s.done, old)
	}
	return nil
}

// Release implements CallbackDedupStore.
func (s *MemoryDedupStore) Release(_ context.Context, key DedupKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endClaim(key.identity())
	return nil
}

// LatestStatus implements CallbackOrderStore.
func (s *MemoryDedupStore) LatestStatus(_ context.Context, transaction ID) (CallbackStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latest[transaction], nil
}

// remembered returns how many processed callbacks the store remembers. It
// is not exported: the store bounds itself, and no other store can answer
// it cheaply, so only the tests of that bound need it.
func (s *MemoryDedupStore) remembered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.done)
}

func (s *MemoryDedupStore) endClaim(key DedupKey) {
	if ch, ok := s.inflight[key]; ok {
		close(ch)
		delete(s.inflight, key)
	}
}

func (s *MemoryDedupStore) recordLatest(key DedupKey) {
	if key.Transaction == 0 || key.Stage() == 0 {
		return
	}
	prev, ok := s.latest[key.Transaction]
	if ok && prev.stage() >= key.Stage() {
		return
	}
	s.latest[key.Transaction] = key.Status
	if !ok {
		if old, evicted := s.txns.add(key.Transaction); evicted {
			delete(s.latest, old)
		}
	}
}

// ring remembers the order in which up to limit keys were added.
type ring[K comparable] struct {
	keys  []K // oldest at next once full
	next  int
	limit int
}

func newRing[K comparable](limit int) ring[K] {
	return ring[K]{keys: make([]K, 0, min(limit, 1024)), limit: limit}
}

// add records k and returns the oldest key when it had to make room.
func (r *ring[K]) add(k K) (evicted K, ok bool) {
	if len(r.keys) < r.limit {
		r.keys = append(r.keys, k)
		return evicted, false
	}
	evicted = r.keys[r.next]
	r.keys[r.next] = k
	r.next = (r.next + 1) % r.limit
	return evicted, true
}
