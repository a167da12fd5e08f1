package paygatetest

import (
	"slices"

	"github.com/paygate/paygate-go"
)

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
func WithRetention(n int) Option {
	return func(c *config) {
		if n >= 1 {
			c.retention = n
		}
	}
}

// makeRoom drops the oldest transactions in a final state, other than
// keep, until one more fits within the retention. It is called before a
// transaction is made, so that every transaction it sees is complete.
// Dropped ones leave holes in s.order, skipped by a head that moves over
// them; see compactOrder. Each transaction costs O(1), plus a pass over the
// in-flight ones older than every final one.
func (st *state) makeRoom(keep *txn) {
	if excess := len(st.txns) + 1 - st.retention; excess > 0 {
		st.indexOrders()
		for i := st.head; i < len(st.order) && excess > 0; i++ {
			if t := st.order[i]; t != nil && t != keep && !t.inFlight() {
				st.drop(t)
				st.order[i] = nil
				st.holes++
				excess--
			}
		}
		for st.head < len(st.order) && st.order[st.head] == nil {
			st.head++
		}
	}
	st.compactOrder()
	st.rebuildIndexes()
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

// compactOrder removes the holes of s.order when it is full and an eighth
// of it or more are holes, instead of letting append grow it: once the
// bound is reached, the slice keeps its size. A compaction costs O(len) and
// removes len/8 holes or more, so O(1) per dropped transaction.
func (st *state) compactOrder() {
	if !worthCompacting(len(st.order), cap(st.order), st.holes) {
		return
	}
	st.indexOrders() // positions move
	st.order = slices.DeleteFunc(st.order, func(t *txn) bool { return t == nil })
	st.head, st.holes, st.indexed = 0, 0, len(st.order)
}

// drop forgets t and everything indexed by it: its id, its place among
// the transactions of its order id, its 3-D Secure merchant data and its
// callbacks.
func (st *state) drop(t *txn) {
	st.dropped++
	delete(st.txns, t.id)
	if t.orderID != "" {
		st.unlinkOrder(t)
	}
	if md := t.extra().md; md != "" && st.byMD[md] == t {
		delete(st.byMD, md)
	}
	st.log.forget(t)
}

// worthCompacting reports whether a slice of length n and capacity c with
// holes holes should be compacted rather than grown by the next append;
// see compactOrder.
func worthCompacting(n, c, holes int) bool {
	return n == c && holes > 0 && holes >= n/8
}

// unlinkOrder takes t out of the index by order id: the entry moves to the
// one before t when t is the newest, otherwise the one after t links past
// it. The chains are short: the transactions of one order.
func (st *state) unlinkOrder(t *txn) {
	k := orderKey{t.project, t.orderID}
	newest := st.orders[k]
	switch {
	case newest == t && t.prevOrder == nil:
		delete(st.orders, k)
	case newest == t:
		st.orders[k] = t.prevOrder
	default:
		for n := newest; n != nil; n = n.prevOrder {
			if n.prevOrder == t {
				n.prevOrder = t.prevOrder
				break
			}
		}
	}
	t.prevOrder = nil
}

// inFlight reports whether t may still change by itself or through the
// payer, or has a callback still being sent: such a transaction is never
// dropped.
func (t *txn) inFlight() bool {
	switch t.status {
	case paygate.StatusOpened, paygate.StatusAuthenticating, paygate.StatusProcessing, paygate.StatusWaitingApproval:
		return true
	}
	return t.sending.Load() > 0
}
