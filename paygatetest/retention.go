package paygatetest

import "container/heap"

// DefaultRetention is how many transactions a server keeps by default; see
// WithRetention.
const DefaultRetention = 100000

// WithRetention sets how many transactions the server keeps (default
// DefaultRetention), so that a sandbox serving for weeks holds bounded
// memory. Beyond n, the oldest transactions in a final state are dropped
// with their callbacks; a transaction still in flight (opened,
// authenticating, processing, waiting for approval, or with a callback
// not yet done) is never dropped, and counts towards n. A dropped
// transaction is answered as one never made: 40403. n below 1 leaves the
// default.
//
// What is in flight is bounded by n too: at most a tenth of n (at least
// 100) callbacks wait to be sent, the oldest given up beyond (see
// Delivery.GivenUp), and one clock move makes at most as many automatic
// recurring payments, fewer when callbacks already wait. So the transactions kept stay within n plus that
// allowance, plus those whose status is not final yet.
func WithRetention(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.retention = n
		}
	}
}

// inFlightAllowance is how many callbacks may wait to be sent (queued,
// being sent or waiting for a retry) under a retention of n transactions,
// past which the oldest are given up, and how many automatic payments one
// clock move makes at most: a tenth of n, at least minInFlightAllowance.
// So a transaction kept only because its callback waits is one of those
// few, and the transactions kept stay within n plus it, plus those whose
// status is not final yet, whatever a receiver or a clock move does.
func inFlightAllowance(n int) int { return max(n/10, minInFlightAllowance) }

// minInFlightAllowance is the fewest callbacks that may wait whatever the
// retention: a test's small retention still lets a burst of callbacks
// wait for a slow receiver.
const minInFlightAllowance = 100

// makeRoom drops the oldest transactions in a final state, other than
// keep, until one more fits within the retention. It is called before a
// transaction is made, so that every transaction it sees is complete.
// Dropped ones leave holes in st.order, skipped by a head that moves over
// them; see compactOrder.
//
// A transaction in flight is never dropped, and may stay in flight for
// days (its callback retried while the merchant's endpoint is down). So
// that each one is looked at once, not at every transaction made, the
// look moves on (st.scan) and marks it pinned; when it leaves flight it is
// queued (deliveryLog.released) and dropped from there, oldest first,
// before anything newer. Each transaction costs O(log n).
func (st *state) makeRoom(keep *txn) {
	if excess := len(st.txns) + 1 - st.retention; excess > 0 {
		st.indexOrders()
		excess = st.dropReleased(keep, excess)
		st.dropScanned(keep, excess)
		for st.head < len(st.order) && st.order[st.head] == nil {
			st.head++
		}
		st.scan = max(st.scan, st.head)
	}
	st.compactOrder()
	st.rebuildIndexes()
}

// dropReleased drops up to excess of the pinned transactions that left
// flight, oldest first, and returns how many more must go. They are older
// than every transaction not looked at yet.
func (st *state) dropReleased(keep *txn, excess int) int {
	st.log.mu.Lock() // t.pinned is read under it by callbacks finishing
	for _, t := range st.log.released {
		if t.pinned && st.txns[t.id] == t && !t.inFlight() {
			t.pinned = false
			heap.Push(&st.droppable, t)
		}
	}
	clear(st.log.released)
	st.log.released = st.log.released[:0]
	st.log.mu.Unlock()
	var kept *txn
	for excess > 0 && st.droppable.Len() > 0 {
		t := heap.Pop(&st.droppable).(*txn)
		switch {
		case st.txns[t.id] != t: // dropped since, with its project
		case t == keep:
			kept = t
		case st.log.pin(t): // in flight again (a chargeback's callback, a redelivery)
		default:
			st.dropAt(t)
			excess--
		}
	}
	if kept != nil {
		heap.Push(&st.droppable, kept)
	}
	return excess
}

// dropScanned drops up to excess transactions not looked at yet, oldest
// first, pinning those in flight.
func (st *state) dropScanned(keep *txn, excess int) {
	for ; st.scan < len(st.order) && excess > 0; st.scan++ {
		switch t := st.order[st.scan]; {
		case t == nil:
		case t == keep:
			// Passed over now, dropped in its turn later.
			if !st.log.pin(t) {
				heap.Push(&st.droppable, t)
			}
		case t.inFlight() && st.log.pin(t):
		default:
			st.dropAt(t)
			excess--
		}
	}
}

// dropAt drops t and leaves a hole where it was in st.order.
func (st *state) dropAt(t *txn) {
	st.drop(t)
	st.order[t.pos] = nil
	st.holes++
}

// appendOrder adds t, the newest transaction, at the end of st.order, and
// counts it.
func (st *state) appendOrder(t *txn) {
	t.pos = len(st.order)
	st.order = append(st.order, t)
	st.kept.add(t.project)
}

// projectCounts counts what the server keeps by project key, forgetting a
// project whose count falls to zero.
type projectCounts map[string]int

func (c projectCounts) add(p *Project) { c[p.Key]++ }

func (c projectCounts) remove(p *Project) {
	if c[p.Key]--; c[p.Key] <= 0 {
		delete(c, p.Key)
	}
}

// txnHeap orders transactions oldest first (ids grow with time).
type txnHeap []*txn

func (h txnHeap) Len() int           { return len(h) }
func (h txnHeap) Less(i, j int) bool { return h[i].id < h[j].id }
func (h txnHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *txnHeap) Push(x any)        { *h = append(*h, x.(*txn)) }
func (h *txnHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return t
}

// rebuildIndexes makes the maps by id and by order id anew once half as
// many transactions as they hold were dropped from them. A Go map does not
// shrink, and under the steady churn of a full sandbox (one key in, one
// out) its deleted slots make it double: rebuilt this often, it keeps the
// size its entries need. A rebuild costs O(n) for n/2 drops.
func (st *state) rebuildIndexes() {
	if st.dropped < max(len(st.txns)/2, minRebuild) {
		return
	}
	st.dropped = 0
	txns := make(map[int64]*txn, len(st.txns))
	for id, t := range st.txns {
		txns[id] = t
	}
	st.txns = txns
	orders := make(map[orderKey]*txn, len(st.orders))
	for k, t := range st.orders {
		orders[k] = t
	}
	st.orders = orders
}

// minRebuild is the fewest drops worth a rebuild: below it the maps are
// small whatever they waste.
const minRebuild = 1024

// compactOrder removes the holes of st.order when it is full and an eighth
// of it or more are holes, instead of letting append grow it: once the
// bound is reached, the slice keeps its size. A compaction costs O(len) and
// removes len/8 holes or more, so O(1) per dropped transaction.
func (st *state) compactOrder() {
	if !worthCompacting(len(st.order), cap(st.order), st.holes) {
		return
	}
	st.indexOrders() // positions move
	n, scan := 0, 0
	for i, t := range st.order {
		if t != nil {
			scan += btoi(i < st.scan)
			t.pos, st.order[n] = n, t
			n++
		}
	}
	clear(st.order[n:])
	st.order = st.order[:n]
	st.head, st.holes, st.indexed, st.scan = 0, 0, n, scan
}

// worthCompacting reports whether a slice of length n and capacity c with
// holes holes should be compacted rather than grown by the next append;
// see compactOrder.
func worthCompacting(n, c, holes int) bool {
	return n == c && holes > 0 && holes >= n/8
}
