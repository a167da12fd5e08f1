package paygatetest

import (
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate-go"
)

// Under the churn of a full sandbox, one transaction in and one out, what
// holds the transactions keeps its size: the order, the callback log and
// their holes stay within a small multiple of the retention.
func TestRetention_TheStructuresStayBoundedUnderChurn(t *testing.T) {
	t.Parallel()
	const retention = 100
	s := NewServer(WithRetention(retention))
	t.Cleanup(s.Close)
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.st.projects[s.ProjectKey]
	for i := range 50 * retention {
		tx := s.st.newTxn(p, paygate.TypePayment, s.clock.Now())
		tx.price, tx.currency, tx.method, tx.orderID = decimal.NewFromInt(10), "EUR", "card", "o-"+idString(int64(i))
		s.transition(tx, paygate.StatusCompleted)
	}
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
