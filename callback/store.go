package callback

import (
	"context"
	"encoding/hex"
	"time"
)

// DefaultCapacity is how many processed callbacks the handler's
// default MemoryStore remembers.
const DefaultCapacity = 10000

// DefaultStoreTimeout is the deadline of each call the handler makes to a
// de-duplication store that is no [LeasedStore] (the default
// MemoryStore among them), unless WithStoreTimeout sets another.
const DefaultStoreTimeout = 15 * time.Second

// Key identifies one callback for de-duplication, and places it in the
// life of its transaction for ordering. Build it with [Callback.Key].
//
// The identity of a callback is Digest, the SHA-256 of the string the
// signature covers: the gateway signs values, not field names, so a
// callback whose values were swapped between fields (id and reference_id on
// a refund_completed, say) still verifies, and must not count as a new
// callback. A redelivery carries the same values, so the same Digest. ID,
// Status and Transaction are kept beside it for ordering and for logs; they
// play no part in the identity when Digest is set.
type Key struct {
	// ID is the callback's transaction id, as sent.
	ID ID
	// Status is the callback's status.
	Status Status
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

// Key returns the callback's de-duplication key: see [Key].
func (c *Callback) Key() Key {
	k := Key{ID: c.ID, Status: c.Status, Transaction: c.ID, Digest: c.raw.digest()}
	if c.Status.follows() && c.ReferenceID != 0 {
		k.Transaction = c.ReferenceID
	}
	return k
}

// String returns the key for an external store: the 64 lowercase hex digits
// of Digest, or "<id>/<status>" for a key without a Digest. It is never
// empty, and two callbacks whose signed strings differ give different
// strings.
func (k Key) String() string {
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
func (k Key) Stage() int { return k.Status.stage() }

// identity is the part of k that tells callbacks apart: the Digest, or ID
// and Status for a key built without one.
func (k Key) identity() Key {
	if k.Digest == ([32]byte{}) {
		return Key{ID: k.ID, Status: k.Status}
	}
	return Key{Digest: k.Digest}
}

// staleAfter reports whether a callback of key's status is older than
// latest, the latest status processed for the same transaction.
func (k Key) staleAfter(latest Status) bool {
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

// Claim is what a Store says about a callback about to be
// processed.
type Claim int

const (
	// Acquired means the caller now holds the callback and must end
	// the claim with Complete or Release.
	Acquired Claim = iota
	// Processed means the callback was processed before: acknowledge
	// it without processing it again.
	Processed
	// Busy means another delivery of the callback is being processed
	// and the store cannot wait for it; the handler answers 503 so that the
	// gateway delivers again later.
	Busy
)

// Store records which callbacks were processed, so that a
// repeated delivery is acknowledged without running the Func again.
// A callback is claimed before processing, completed only after it was
// processed successfully, and released when processing failed, so a failed
// callback is retried and two concurrent deliveries never both run.
// Implementations must be safe for concurrent use, and return when the
// context of a call ends: the handler gives each call a deadline (see
// WithStoreTimeout), and a call that waits on a stalled connection beyond it
// holds the delivery. A store shared by several processes (a database table
// with a unique key on Key.String, for example) makes de-duplication
// hold across them. Stores that also keep order implement
// [OrderStore].
type Store interface {
	// Claim reserves key for processing, or reports that it was processed
	// already or is in progress. It may wait for a claim in progress to
	// end, until ctx is done.
	Claim(ctx context.Context, key Key) (Claim, error)
	// Complete records key as processed and ends the claim.
	Complete(ctx context.Context, key Key) error
	// Release ends the claim without recording key as processed.
	Release(ctx context.Context, key Key) error
}

// OrderStore is a Store that also keeps, per
// transaction (Key.Transaction), the latest status processed: Complete
// records key.Status unless a status of a later stage (Key.Stage) was
// recorded for the same transaction before. The gateway may deliver a
// transaction's callbacks out of order; with such a store the handler marks
// a callback older than what was processed as [Callback.Stale].
//
// It is a separate interface so that stores written for Store
// alone keep working (without ordering). MemoryStore and the stores
// of the dedup/redisdedup and dedup/pgdedup modules implement it.
type OrderStore interface {
	Store
	// LatestStatus returns the latest status recorded for transaction, or
	// "" when none is.
	LatestStatus(ctx context.Context, transaction ID) (Status, error)
}

// LeasedStore is a Store whose claims end by themselves
// after a lease, as those of a store shared by several processes must (a
// process may die holding one). The handler bounds each call to it by a
// quarter of the lease (see [WithStoreTimeout]), so that a stalled store
// never holds a delivery until the lease ends, when another process would
// take the callback over. The stores of dedup/redisdedup and dedup/pgdedup
// implement it.
type LeasedStore interface {
	Store
	// Lease returns how long a claim lasts when its holder neither
	// completes nor releases it.
	Lease() time.Duration
}
