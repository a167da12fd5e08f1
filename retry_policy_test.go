package paygate

import (
	"context"
	"math"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeWaits makes every jittered wait its ceiling (the longest that full
// jitter allows) and records the waits instead of spending them, until the
// test ends. It returns the waits so far.
func fakeWaits(t *testing.T) func() []time.Duration {
	var mu sync.Mutex
	var waits []time.Duration
	oldJitter, oldSleep := jitter, sleep
	jitter = func(n time.Duration) time.Duration { return n - 1 }
	sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
		return ctx.Err()
	}
	t.Cleanup(func() { jitter, sleep = oldJitter, oldSleep })
	return func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return append([]time.Duration(nil), waits...)
	}
}

// unavailable answers every GET transaction/status with 503, as a gateway
// behind an overloaded proxy does, and counts the requests.
func unavailable(t *testing.T, opts ...Option) (*Client, *httpmock.MockTransport) {
	t.Helper()
	mock := httpmock.NewMockTransport()
	mock.RegisterResponder(http.MethodGet, testBaseURL+"/v1/transaction/status",
		httpmock.NewStringResponder(http.StatusServiceUnavailable, "<html><body>503 Service Unavailable</body></html>"))
	c, err := NewClient(testProject, testSecret, append([]Option{WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock})}, opts...)...)
	require.NoError(t, err)
	return c, mock
}

func TestRetryPolicy_DefaultValues(t *testing.T) {
	assert.Equal(t, RetryPolicy{MaxAttempts: 3, BaseDelay: 250 * time.Millisecond, MaxDelay: 10 * time.Second}, DefaultRetryPolicy)
	assert.Equal(t, RetryPolicy{MaxAttempts: 1}, NoRetries)
}

// Each policy on a GET the gateway keeps answering 503: how often it is
// sent, and the longest wait before each retry (BaseDelay doubling per
// attempt up to MaxDelay; zero fields take the default's).
func TestRetryPolicy_AttemptsAndWaitsOnA503GET(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name      string
		opts      []Option
		call      []CallOption
		wantWaits []time.Duration
	}{
		{"a new client uses DefaultRetryPolicy", nil, nil, []time.Duration{250 * ms, 500 * ms}},
		{"DefaultRetryPolicy", []Option{WithRetryPolicy(DefaultRetryPolicy)}, nil, []time.Duration{250 * ms, 500 * ms}},
		{"the zero RetryPolicy is the default", []Option{WithRetryPolicy(RetryPolicy{})}, nil, []time.Duration{250 * ms, 500 * ms}},
		{"negative fields are the default", []Option{WithRetryPolicy(RetryPolicy{MaxAttempts: -1, BaseDelay: -ms, MaxDelay: -ms})}, nil, []time.Duration{250 * ms, 500 * ms}},
		{"NoRetries sends once", []Option{WithRetryPolicy(NoRetries)}, nil, nil},
		{"MaxAttempts 1 sends once", []Option{WithRetryPolicy(RetryPolicy{MaxAttempts: 1, BaseDelay: ms})}, nil, nil},
		{"MaxAttempts alone keeps the default delays", []Option{WithRetryPolicy(RetryPolicy{MaxAttempts: 2})}, nil, []time.Duration{250 * ms}},
		{"waits double up to MaxDelay", []Option{WithRetryPolicy(RetryPolicy{MaxAttempts: 7, BaseDelay: 100 * ms, MaxDelay: time.Second})}, nil,
			[]time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second}},
		{"the default MaxDelay caps at 10s", []Option{WithRetryPolicy(RetryPolicy{MaxAttempts: 4, BaseDelay: 3 * time.Second})}, nil,
			[]time.Duration{3 * time.Second, 6 * time.Second, 10 * time.Second}},
		{"a doubled wait just under MaxDelay is not rounded up to it", []Option{WithRetryPolicy(RetryPolicy{MaxAttempts: 4, BaseDelay: 3, MaxDelay: 7})}, nil,
			[]time.Duration{3, 6, 7}},
		{"a BaseDelay of 1ns is kept", []Option{WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: 1, MaxDelay: time.Second})}, nil,
			[]time.Duration{1, 2}},
		{"a MaxDelay of 1ns is kept", []Option{WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: 1, MaxDelay: 1})}, nil,
			[]time.Duration{1, 1}},
		{"a call's policy replaces the client's", []Option{WithRetryPolicy(NoRetries)}, []CallOption{WithCallRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: 40 * ms})},
			[]time.Duration{40 * ms, 80 * ms}},
		{"a call's NoRetries replaces the client's retries", nil, []CallOption{WithCallRetryPolicy(NoRetries)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			waits := fakeWaits(t)
			c, mock := unavailable(t, tt.opts...)
			_, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 1}, tt.call...)

			var apiErr *Error
			require.ErrorAs(t, err, &apiErr, "the last 503 is returned")
			assert.Equal(t, http.StatusServiceUnavailable, apiErr.HTTPStatus)
			wantAttempts := len(tt.wantWaits) + 1
			assert.Equal(t, wantAttempts, apiErr.Attempts)
			assert.Equal(t, wantAttempts, mock.GetTotalCallCount())
			assert.Equal(t, tt.wantWaits, waits())
		})
	}
}

// The jitter draws from the whole range [0, ceiling]: a wait of zero is
// allowed, and Retry-After still sets the least wait.
func TestRetryPolicy_JitterRangeAndRetryAfterFloor(t *testing.T) {
	var asked []time.Duration
	oldJitter := jitter
	t.Cleanup(func() { jitter = oldJitter })
	jitter = func(n time.Duration) time.Duration { asked = append(asked, n); return 0 }

	p := RetryPolicy{MaxAttempts: 5, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for n, ceiling := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 5: time.Second} {
		asked = nil
		wait, ok := p.backoff(n, 0)
		assert.True(t, ok)
		assert.Zero(t, wait)
		assert.Equal(t, []time.Duration{ceiling + 1}, asked, "attempt %d draws from [0, %v]", n, ceiling)
	}
	wait, ok := p.backoff(1, 700*time.Millisecond)
	assert.True(t, ok)
	assert.Equal(t, 700*time.Millisecond, wait)
	wait, ok = p.backoff(1, time.Second)
	assert.True(t, ok, "a Retry-After of exactly MaxDelay is waited")
	assert.Equal(t, time.Second, wait)
	_, ok = p.backoff(1, time.Second+1)
	assert.False(t, ok)
}

// The largest durations a policy can hold are waited (capped), never a
// panic: rand.N panics for a bound that overflowed to a negative.
func TestRetryPolicy_ExtremeDelaysNeverPanic(t *testing.T) {
	for _, p := range []RetryPolicy{
		{MaxAttempts: 3, BaseDelay: math.MaxInt64, MaxDelay: math.MaxInt64},
		{MaxAttempts: 3, BaseDelay: 1, MaxDelay: math.MaxInt64},
		{MaxAttempts: 3, BaseDelay: math.MaxInt64, MaxDelay: time.Second},
	} {
		p = p.normalized()
		for n := 1; n <= 70; n++ {
			var wait time.Duration
			var ok bool
			require.NotPanics(t, func() { wait, ok = p.backoff(n, 0) }, "%+v attempt %d", p, n)
			require.True(t, ok)
			require.GreaterOrEqual(t, wait, time.Duration(0))
			require.LessOrEqual(t, wait, p.MaxDelay)
		}
	}
}

func TestRetryAfter_Forms(t *testing.T) {
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"1", time.Second},
		{"120", 2 * time.Minute},
		{"-1", 0},
		{"86400", 24 * time.Hour},
		{"86401", 24 * time.Hour},
		{"-99999999999999999999", 0},
		{"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-90 * time.Second).Format(http.TimeFormat), 0},
		{now.Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.header != "" {
			h.Set("Retry-After", tt.header)
		}
		assert.Equal(t, tt.want, retryAfter(h, now), "Retry-After: %q", tt.header)
	}
}

func TestRetryableStatus_OnlyOverloadAndProxyFailures(t *testing.T) {
	for status := 100; status < 600; status++ {
		want := status == 429 || status == 502 || status == 503 || status == 504
		assert.Equal(t, want, retryableStatus(status), "HTTP %d", status)
	}
}

func TestSleepContext_EndsWithTheContext(t *testing.T) {
	assert.NoError(t, sleepContext(context.Background(), time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, sleepContext(ctx, time.Hour), context.Canceled)
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, sleepContext(ctx, time.Hour), context.DeadlineExceeded)
}
