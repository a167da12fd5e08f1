package paygate

import (
	"context"
	"sync"
)

// DefaultDedupCapacity is how many processed callbacks the handler's
// default MemoryDedupStore remembers.
const DefaultDedupCapacity = 10000

// DedupKey identifies one callback for de-duplication: the gateway sends
// one callback per status change of a transaction, so a second delivery
// with the same transaction id and status is a repeat.
type DedupKey struct {
	ID     ID
	Status CallbackStatus
}

// String returns "<id>/<status>", a key for an external store.
func (k DedupKey) String() string { return k.ID.String() + "/" + string(k.Status) }

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
// Implementations must be safe for concurrent use; a store shared by
// several processes (a database table with a unique key on
// DedupKey.String, for example) makes de-duplication hold across them.
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

// MemoryDedupStore is an in-process CallbackDedupStore. It remembers up to
// its capacity of processed callbacks and then forgets the oldest, so its
// memory stays bounded; the gateway repeats a callback within a short time
// of the first delivery, so the oldest are the least likely to come again.
// Claims in progress are not counted against the capacity. Its Claim waits
// for a concurrent delivery of the same callback to finish: if that one
// succeeded the waiter sees DedupProcessed, otherwise it takes the claim.
// What it remembers is lost on restart.
type MemoryDedupStore struct {
	mu       sync.Mutex
	inflight map[DedupKey]chan struct{} // closed when the claim ends
	done     map[DedupKey]struct{}
	order    []DedupKey // ring of done keys, oldest at next once full
	next     int
	limit    int
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
		order:    make([]DedupKey, 0, min(capacity, 1024)),
		limit:    capacity,
	}
}

// Claim implements CallbackDedupStore, waiting while the same key is in
// progress.
func (s *MemoryDedupStore) Claim(ctx context.Context, key DedupKey) (DedupClaim, error) {
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

// Complete implements CallbackDedupStore.
func (s *MemoryDedupStore) Complete(_ context.Context, key DedupKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endClaim(key)
	if _, ok := s.done[key]; ok {
		return nil
	}
	s.done[key] = struct{}{}
	if len(s.order) < s.limit {
		s.order = append(s.order, key)
		return nil
	}
	delete(s.done, s.order[s.next])
	s.order[s.next] = key
	s.next = (s.next + 1) % s.limit
	return nil
}

// Release implements CallbackDedupStore.
func (s *MemoryDedupStore) Release(_ context.Context, key DedupKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endClaim(key)
	return nil
}

// Len returns how many processed callbacks the store remembers.
func (s *MemoryDedupStore) Len() int {
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
