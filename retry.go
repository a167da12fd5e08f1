package paygate

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// RetryPolicy says how often and how patiently a failed request is sent
// again. Only requests that cannot charge twice are retried:
//
//   - GET requests, on network errors and on HTTP 429, 502, 503 and 504;
//   - POST requests only when the connection to the gateway could not even
//     be opened (DNS failure, connection refused), so the request provably
//     never left.
//
// A POST that may have reached the gateway is never sent again; its error
// matches [ErrOutcomeUnknown]. Waits grow exponentially from BaseDelay up to
// MaxDelay with full jitter, a Retry-After header (seconds or HTTP date) is
// honoured as the least wait, and cancelling the context ends a wait at once.
// A request is never sent sooner than Retry-After asks: when it asks for
// more than MaxDelay, or for more than the context's deadline leaves, the
// retries end and the answer (429, 503, ...) is returned.
type RetryPolicy struct {
	// MaxAttempts is the most times one request is sent, the first included.
	// 1 disables retries; 0 means the default.
	MaxAttempts int
	// BaseDelay is the ceiling of the first wait; 0 means the default.
	BaseDelay time.Duration
	// MaxDelay caps every wait; a Retry-After beyond it ends the retries.
	// 0 means the default.
	MaxDelay time.Duration
}

// DefaultRetryPolicy is the policy of a new client: 3 attempts, waits of up
// to 250ms, 500ms, ... capped at 10s.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 3, BaseDelay: 250 * time.Millisecond, MaxDelay: 10 * time.Second}

// NoRetries is a policy that sends every request once.
var NoRetries = RetryPolicy{MaxAttempts: 1}

func (p RetryPolicy) normalized() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultRetryPolicy.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultRetryPolicy.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultRetryPolicy.MaxDelay
	}
	return p
}

// backoff returns the wait before attempt n+1: a random duration up to
// BaseDelay*2^(n-1), capped at MaxDelay, and at least retryAfter. It
// reports false when retryAfter is beyond MaxDelay: no retry then.
func (p RetryPolicy) backoff(n int, retryAfter time.Duration) (time.Duration, bool) {
	if retryAfter > p.MaxDelay {
		return 0, false
	}
	ceiling := p.MaxDelay
	if shift := n - 1; shift < 62 && p.BaseDelay <= p.MaxDelay>>shift {
		ceiling = p.BaseDelay << shift
	}
	// The draw is from [0, ceiling]; at the largest Duration the bound
	// would overflow, and a wait one nanosecond short of it is the same.
	return max(jitter(min(ceiling, math.MaxInt64-1)+1), retryAfter), true
}

func retryableStatus(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retryAfter reads a Retry-After header given in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil || errors.Is(err, strconv.ErrRange) {
		if secs < 0 {
			return 0
		}
		// An out-of-range number of seconds is still "later than any cap".
		return time.Duration(min(secs, 24*3600)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// jitter draws a wait in [0, n), and sleep spends one. They are variables
// so that tests can choose the waits and watch them without spending them.
var (
	jitter = rand.N[time.Duration]
	sleep  = sleepContext
)

// sleepContext waits for d or until ctx ends, whichever is first.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
