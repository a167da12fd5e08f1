package paygatetest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withCallbacks starts a server on a frozen clock whose project calls back
// a receiver answering 200, and makes n completed payments, one callback
// each.
func withCallbacks(t *testing.T, n int) *Server {
	rcv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(rcv.Close)
	s := NewServer(WithClock(NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))), WithCallbackURL(rcv.URL))
	t.Cleanup(s.Close)
	completePayments(s, n)
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

// A retry's timer runs on the monotonic clock, the retry's time is read on
// the wall clock: when the wall clock lags (set back, or slowed by NTP)
// the timer fires before the retry is due by the sandbox's clock. The
// retry then waits the difference, instead of never being sent.
func TestRetry_ComesWhenTheWallClockLagsTheTimer(t *testing.T) {
	var lag atomic.Int64 // nanoseconds the wall clock is behind
	clock := &Clock{wall: func() time.Time { return time.Now().Add(-time.Duration(lag.Load())) }}
	var calls atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(rcv.Close)
	s := NewServer(WithClock(clock), WithCallbackURL(rcv.URL), WithCallbackRetry(2, 200*time.Millisecond))
	t.Cleanup(s.Close)

	completePayments(s, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := s.WaitForDelivery(ctx, func(d Delivery) bool { return d.Attempts == 1 })
	require.NoError(t, err, "the first attempt, refused")
	lag.Store(int64(150 * time.Millisecond)) // the retry's timer fires 150 ms early by the wall clock

	d, err := s.WaitForDelivery(ctx, func(d Delivery) bool { return d.Delivered })
	require.NoError(t, err, "the retry is sent once it is due: %+v", s.Deliveries())
	assert.Equal(t, 2, d.Attempts)
}
