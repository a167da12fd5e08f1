package paygatetest

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
)

// withCallbacks starts a server on a frozen clock whose project calls back
// a receiver answering 200, and makes n completed payments, one callback
// each.
func withCallbacks(t *testing.T, n int) *Server {
	rcv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(rcv.Close)
	s := NewServer(WithClock(NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))), WithCallbackURL(rcv.URL))
	t.Cleanup(s.Close)
	s.mu.Lock()
	p := s.st.projects[s.ProjectKey]
	for range n {
		tx := s.st.newTxn(p, paygate.TypePayment, s.clock.Now())
		tx.price, tx.currency, tx.method = decimal.NewFromInt(10), "EUR", "card"
		s.transition(tx, paygate.StatusCompleted)
	}
	s.mu.Unlock()
	s.deliveries.wg.Wait() // the first attempts are made
	return s
}

// A redelivery costs the same whatever the number of callbacks in the log:
// it neither copies nor scans the log.
func TestRedeliver_AllocatesIndependentlyOfTheLogSize(t *testing.T) {
	redeliveryAllocs := func(n int) float64 {
		s := withCallbacks(t, n)
		p := s.project(s.ProjectKey)
		return testing.AllocsPerRun(20, func() {
			_, err := s.controlRedeliver(p, nil, "1")
			require.Nil(t, err)
			s.deliveries.wg.Wait() // the attempt is made and recorded
		})
	}
	small, large := redeliveryAllocs(100), redeliveryAllocs(10000)
	t.Logf("allocations per redelivery: %.0f with 100 callbacks, %.0f with 10,000", small, large)
	assert.Less(t, large, small*1.5+50, "a redelivery at 10,000 callbacks allocates no more than at 100")
}
