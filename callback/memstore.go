package callback

import (
	"context"
	"sync"
)

// MemoryStore is an in-process Store. It remembers up to
// its capacity of processed callbacks and then forgets the oldest, so its
// memory stays bounded; the gateway repeats a callback within a short time
// of the first delivery, so the oldest are the least likely to come again.
// Claims in progress are not counted against the capacity. Its Claim waits
// for a concurrent delivery of the same callback to finish: if that one
// succeeded the waiter sees Processed, otherwise it takes the claim.
// It is a OrderStore too, remembering the latest status of up to
// capacity transactions the same way. What it remembers is lost on
// restart, and it is not shared between processes: for several replicas
// use a shared store (dedup/redisdedup, dedup/pgdedup).
type MemoryStore struct {
	mu       sync.Mutex
	inflight map[Key]chan struct{} // closed when the claim ends
	done     map[Key]struct{}
	order    ring[Key] // done keys, oldest first
	latest   map[ID]Status
	txns     ring[ID] // keys of latest, oldest first
}

// NewMemoryStore returns a store remembering up to capacity processed
// callbacks; capacity below 1 means DefaultCapacity.
func NewMemoryStore(capacity int) *MemoryStore {
	if capacity < 1 {
		capacity = DefaultCapacity
	}
	return &MemoryStore{
		inflight: make(map[Key]chan struct{}),
		done:     make(map[Key]struct{}),
		order:    newRing[Key](capacity),
		latest:   make(map[ID]Status),
		txns:     newRing[ID](capacity),
	}
}

// Claim implements Store, waiting while the same key is in
// progress.
func (s *MemoryStore) Claim(ctx context.Context, key Key) (Claim, error) {
	key = key.identity()
	for {
		s.mu.Lock()
		if _, ok := s.done[key]; ok {
			s.mu.Unlock()
			return Processed, nil
		}
		wait, busy := s.inflight[key]
		if !busy {
			s.inflight[key] = make(chan struct{})
			s.mu.Unlock()
			return Acquired, nil
		}
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return Busy, ctx.Err()
		}
	}
}

// Complete implements Store, and records key.Status as the
// latest of key.Transaction unless a later stage was recorded.
func (s *MemoryStore) Complete(_ context.Context, key Key) error {
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

// Release implements Store.
func (s *MemoryStore) Release(_ context.Context, key Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endClaim(key.identity())
	return nil
}

// LatestStatus implements OrderStore.
func (s *MemoryStore) LatestStatus(_ context.Context, transaction ID) (Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latest[transaction], nil
}

// remembered returns how many processed callbacks the store remembers. It
// is not exported: the store bounds itself, and no other store can answer
// it cheaply, so only the tests of that bound need it.
func (s *MemoryStore) remembered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.done)
}

func (s *MemoryStore) endClaim(key Key) {
	if ch, ok := s.inflight[key]; ok {
		close(ch)
		delete(s.inflight, key)
	}
}

func (s *MemoryStore) recordLatest(key Key) {
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
