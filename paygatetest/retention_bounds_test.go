package paygatetest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
)

// Under the churn of a full sandbox, one transaction in and one out, what
// holds the transactions keeps its size: the order, the callback log and
// their holes stay within a small multiple of the retention.
func TestRetention_TheStructuresStayBoundedUnderChurn(t *testing.T) {
	t.Parallel()
	const retention = 100
	s, p := lockedServer(t, retention)
	payments(s, p, 50*retention, func(i int) string { return "o-" + strconv.Itoa(i) })
	assert.Len(t, s.st.txns, retention)
	s.st.indexOrders() // the index catches up on a look-up
	assert.Len(t, s.st.orders, retention, "the order id index forgets the dropped")
	assert.LessOrEqual(t, cap(s.st.order), 2*retention, "the order compacts instead of growing")
	s.deliveries.log.mu.Lock()
	defer s.deliveries.log.mu.Unlock()
	assert.LessOrEqual(t, cap(s.deliveries.log.list), 2*retention, "the log compacts instead of growing")
	assert.Equal(t, retention, len(s.deliveries.log.list)-s.deliveries.log.holes)
	for _, d := range s.deliveries.log.list {
		if d.txn != nil {
			assert.Contains(t, s.st.txns, d.txn.id, "a record names a kept transaction or none")
		}
	}
}

// lockedServer is a sandbox keeping retention transactions, locked until
// the test ends, and its project.
func lockedServer(t *testing.T, retention int, opts ...Option) (*Server, *Project) {
	s := NewServer(append([]Option{WithRetention(retention)}, opts...)...)
	t.Cleanup(s.Close)
	s.mu.Lock()
	t.Cleanup(s.mu.Unlock)
	return s, s.st.projects[s.ProjectKey]
}

// chainOf walks the index by order id from the newest transaction of the
// key to the oldest, and checks that the links the other way agree.
func chainOf(t *testing.T, st *state, p *Project, orderID string) (newestFirst []int64) {
	t.Helper()
	st.indexOrders()
	var later *txn
	for tx := st.orders[orderKey{p, orderID}]; tx != nil; tx = tx.prevOrder {
		assert.Same(t, later, tx.nextOrder, "transaction %d links to the one after it", tx.id)
		newestFirst = append(newestFirst, tx.id)
		later = tx
	}
	return newestFirst
}

// One order id used for every charge (a merchant's test that never
// changes it, or an outsider) is a single chain in the index: dropping its
// oldest, a middle one or the newest keeps it linked both ways.
func TestRetention_OneOrderIDUsedForEveryChargeStaysLinked(t *testing.T) {
	t.Parallel()
	const retention = 50
	s, p := lockedServer(t, retention)
	first := sameOrder(s, p, "same", 10)
	held := first[3]
	s.transition(held, paygate.StatusProcessing) // in flight: kept while those around it go
	sameOrder(s, p, "other", 5)
	sameOrder(s, p, "same", 3*retention)

	var want []int64
	for i := len(s.st.order) - 1; i >= 0; i-- {
		if tx := s.st.order[i]; tx != nil && tx.orderID == "same" {
			want = append(want, tx.id)
		}
	}
	assert.Equal(t, want, chainOf(t, s.st, p, "same"), "the kept transactions of the order, newest first")
	assert.Contains(t, want, held.id, "the one in flight is kept, linked among the newest")
	assert.Empty(t, chainOf(t, s.st, p, "other"), "an order whose transactions were all dropped leaves the index")

	newest := s.st.orders[orderKey{p, "same"}]
	s.st.unlinkOrder(newest)
	assert.Equal(t, want[1:], chainOf(t, s.st, p, "same"), "the newest unlinked")
	assert.Nil(t, newest.prevOrder)
	assert.Nil(t, newest.nextOrder)
}

// A look-up by order id reads the newest transactions of the order, not
// all of them: what it allocates does not grow with how often the order id
// was used. Measured in bytes, the whole process's: a copy of 20,000
// transactions' pointers would be hundreds of KiB, far above what other
// goroutines allocate meanwhile.
func TestLookupByOrderID_AllocatesIndependentlyOfHowOftenTheOrderIDWasUsed(t *testing.T) {
	const runs = 20
	allocated := func(n int) (status, list uint64) {
		s := NewServer()
		t.Cleanup(s.Close)
		s.mu.Lock()
		p := s.st.projects[s.ProjectKey]
		made := sameOrder(s, p, "same", n)
		s.mu.Unlock()
		status = allocatedBy(func() {
			for range runs {
				s.mu.Lock()
				tx, err := s.st.lookupTxn(p, "", "same")
				s.mu.Unlock()
				if err != nil || tx != made[n-1] {
					t.Fatalf("lookup by order id: %v", err)
				}
			}
		}) / runs
		c := &call{project: p, params: url.Values{"orderId": {"same"}, "limit": {"10"}}}
		list = allocatedBy(func() {
			for range runs {
				out, err := s.listTransactions(c)
				if err != nil || out.(map[string]any)["totalCount"] != n {
					t.Fatalf("transactions/list: %v %v", out, err)
				}
			}
		}) / runs
		return status, list
	}
	smallStatus, smallList := allocated(10)
	largeStatus, largeList := allocated(20000)
	t.Logf("bytes allocated by order id, 10 then 20,000 uses: status %d, %d; list %d, %d",
		smallStatus, largeStatus, smallList, largeList)
	const noise = 16 << 10
	assert.LessOrEqual(t, largeStatus, smallStatus+noise, "transaction/status by order id")
	assert.LessOrEqual(t, largeList, smallList+noise, "transactions/list by order id, a page of 10")
}

// A transaction in flight is passed over once and pinned, not looked at
// again at every transaction made; once it leaves flight it is the oldest
// final one, dropped before any newer one.
func TestRetention_InFlightOnesArePinnedThenDroppedOldestFirst(t *testing.T) {
	t.Parallel()
	const retention = 20
	s, p := lockedServer(t, retention, WithProcessingDelay(0))
	processing := make([]*txn, 10)
	for i := range processing {
		processing[i] = cardPayment(s, p, "", paygate.StatusProcessing)
	}
	completed := payments(s, p, 30, func(i int) string { return "o-" + strconv.Itoa(i) })

	kept := func(list []*txn) (out []*txn) {
		for _, tx := range list {
			if s.st.txns[tx.id] == tx {
				out = append(out, tx)
			}
		}
		return out
	}
	assert.Equal(t, processing, kept(processing), "in flight: kept")
	assert.Equal(t, completed[20:], kept(completed), "the newest final ones fill the rest")
	for _, tx := range processing {
		assert.True(t, tx.pinned, "transaction %d was looked at once", tx.id)
	}

	s.transition(processing[7], paygate.StatusCompleted)
	s.transition(processing[3], paygate.StatusCompleted)
	payments(s, p, 2, func(i int) string { return "n-" + strconv.Itoa(i) })
	assert.Equal(t, append(slices.Clone(processing[:3]), processing[4:7]...), kept(processing[:7]),
		"the two that left flight went first, older than every other final one")
	assert.Equal(t, completed[20:], kept(completed), "no newer final one went")

	payments(s, p, 1, func(int) string { return "m" })
	assert.Equal(t, completed[21:], kept(completed), "then the oldest final one not in flight")
	assert.Len(t, kept(processing), 8, "the ones still in flight stay")
}

// Callbacks finishing while charges make room, from several goroutines:
// once every callback is done, no transaction stays pinned for good, and
// the next charges bring the server back to its retention.
func TestRetention_PinnedOnesAreReleasedWhateverTheInterleaving(t *testing.T) {
	const retention = 10
	var calls atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1)%3 == 0 { // a third refused, retried soon after
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(rcv.Close)
	s := NewServer(WithRetention(retention), WithCallbackURL(rcv.URL), WithCallbackRetry(3, 5*time.Millisecond))
	t.Cleanup(s.Close)
	p := s.st.projects[s.ProjectKey]
	charge := func(i int) {
		s.mu.Lock()
		defer s.mu.Unlock()
		cardPayment(s, p, "o-"+strconv.Itoa(i), paygate.StatusCompleted)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				charge(g*1000 + i)
			}
		}()
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := s.WaitForDelivery(ctx, func(Delivery) bool {
		for _, d := range s.Deliveries() {
			if !d.Done {
				return false
			}
		}
		return true
	})
	require.NoError(t, err, "every callback done")
	for i := range retention {
		charge(9000 + i)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.Len(t, s.st.txns, retention, "nothing left pinned")
}
