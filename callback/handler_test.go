package callback

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate-go/internal/signing"
	"github.com/paygate/paygate-go/internal/testkit/deadline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewCallbackHandler_NilDedupStoreIsAnError(t *testing.T) {
	fn := func(context.Context, *Callback) error { return nil }
	_, err := NewHandler([]string{testSecret}, fn, WithStore(nil))
	require.Error(t, err, "a nil store must not turn de-duplication off silently")
	assert.Contains(t, err.Error(), "WithoutDedup")

	var unset *MemoryStore // a store variable never assigned
	_, err = NewHandler([]string{testSecret}, fn, WithStore(unset))
	assert.Error(t, err, "a nil pointer is no store either")
}

// leasedStore is a MemoryStore that reports a lease, and records
// the deadline of each call and stalls the calls named in stall until
// their context ends, as a store behind a stalled connection does.
type leasedStore struct {
	*MemoryStore
	lease     time.Duration
	stall     map[string]bool
	deadlines chan time.Duration // time left on each call's context
}

func newLeasedStore(lease time.Duration, stall ...string) *leasedStore {
	s := &leasedStore{MemoryStore: NewMemoryStore(0), lease: lease, stall: map[string]bool{}, deadlines: make(chan time.Duration, 8)}
	for _, m := range stall {
		s.stall[m] = true
	}
	return s
}

func (s *leasedStore) Lease() time.Duration { return s.lease }

// enter records ctx's deadline and, for a stalled method, waits for it.
func (s *leasedStore) enter(ctx context.Context, method string) error {
	if d, ok := ctx.Deadline(); ok {
		s.deadlines <- time.Until(d)
	} else {
		s.deadlines <- -1
	}
	if s.stall[method] {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

func (s *leasedStore) Claim(ctx context.Context, k Key) (Claim, error) {
	if err := s.enter(ctx, "Claim"); err != nil {
		return Busy, err
	}
	return s.MemoryStore.Claim(ctx, k)
}

func (s *leasedStore) Complete(ctx context.Context, k Key) error {
	if err := s.enter(ctx, "Complete"); err != nil {
		return err
	}
	return s.MemoryStore.Complete(ctx, k)
}

func TestCallbackHandler_EachStoreCallHasAQuarterOfTheLease(t *testing.T) {
	const lease = 8 * time.Second
	store := newLeasedStore(lease)
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error { return nil }, WithStore(store))
	w := deadline.Serve(t, h, newTestCallbackSigner(testSecret, FormExtended).Request("/cb", Completed, nil))
	require.Equal(t, http.StatusOK, w.Code)
	for _, call := range []string{"Claim", "Complete"} {
		left := deadline.Receive(t, call+"'s deadline", store.deadlines)
		assert.Greater(t, left, time.Duration(0), "%s has a deadline", call)
		assert.LessOrEqual(t, left, lease/4, "%s's deadline is at most a quarter of the lease", call)
	}
}

func TestCallbackHandler_StalledStoreIsAbandonedAtTheDeadline(t *testing.T) {
	for _, stalled := range []string{"Claim", "Complete"} {
		t.Run(stalled, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			var logs strings.Builder
			store := newLeasedStore(time.Hour, stalled)
			h := newTestCallbackHandler(t, func(context.Context, *Callback) error { calls.Add(1); return nil },
				WithStore(store), WithStoreTimeout(20*time.Millisecond), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			s := newTestCallbackSigner(testSecret, FormExtended)
			// serve fails the test unless the handler answers: it must not
			// wait for the store past the timeout (an hour's lease here).
			w := deadline.Serve(t, h, s.Request("/cb", Completed, nil))
			assert.Equal(t, http.StatusInternalServerError, w.Code, "the gateway must deliver again")
			out := logs.String()
			assert.Contains(t, out, "level=ERROR")
			assert.Contains(t, out, "id="+testCallbackID.String())
			assert.Contains(t, out, "callback_status=completed")
			assert.Contains(t, out, context.DeadlineExceeded.Error())
			assert.NotContains(t, out, s.Values(Completed, nil).Get(signing.Param), "never the body")
			if stalled == "Complete" {
				assert.Contains(t, out, "recording it failed")
				assert.Equal(t, int32(1), calls.Load())
			} else {
				assert.Zero(t, calls.Load())
			}
		})
	}
}

// recordedStore is a MemoryStore whose first Complete records the
// callback but fails, as one whose answer was lost on the way back.
type recordedStore struct {
	*MemoryStore
	failed atomic.Bool
}

func (s *recordedStore) Complete(ctx context.Context, k Key) error {
	err := s.MemoryStore.Complete(ctx, k)
	if s.failed.CompareAndSwap(false, true) {
		return errors.New("connection reset after the commit")
	}
	return err
}

func TestCallbackHandler_CompleteFailureIsDeliveredAgainAndThenAcknowledged(t *testing.T) {
	var calls atomic.Int32
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error { calls.Add(1); return nil },
		WithStore(&recordedStore{MemoryStore: NewMemoryStore(0)}))
	s := newTestCallbackSigner(testSecret, FormExtended)
	assert.Equal(t, http.StatusInternalServerError, deadline.Serve(t, h, s.Request("/cb", Completed, nil)).Code,
		"not known to be recorded: the gateway must deliver again")
	assert.Equal(t, http.StatusOK, deadline.Serve(t, h, s.Request("/cb", Completed, nil)).Code)
	assert.Equal(t, int32(1), calls.Load(), "the record was written: the next delivery is acknowledged without fn")
}

func TestNewCallbackHandler_DedupTimeoutMustFitTheLease(t *testing.T) {
	fn := func(context.Context, *Callback) error { return nil }
	store := newLeasedStore(time.Second)
	for _, d := range []time.Duration{0, -time.Second, time.Second, time.Minute} {
		_, err := NewHandler([]string{testSecret}, fn, WithStore(store), WithStoreTimeout(d))
		assert.Error(t, err, "timeout %v with a lease of 1s", d)
	}
	_, err := NewHandler([]string{testSecret}, fn, WithStore(store), WithStoreTimeout(999*time.Millisecond))
	assert.NoError(t, err)
	_, err = NewHandler([]string{testSecret}, fn, WithStoreTimeout(time.Hour))
	assert.NoError(t, err, "the memory store has no lease to fit")
}
