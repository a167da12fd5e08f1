package paygate

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// retryAfterServer answers 503 with the Retry-After header first, then the
// status fixture, and records when each request arrived.
func retryAfterServer(t *testing.T, retryAfter func() string) (*httptest.Server, func() []time.Time) {
	var mu sync.Mutex
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		n := len(arrivals)
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Retry-After", retryAfter())
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, statusBody)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []time.Time {
		mu.Lock()
		defer mu.Unlock()
		return append([]time.Time(nil), arrivals...)
	}
}

func retryClient(t *testing.T, url string, p RetryPolicy, opts ...Option) *Client {
	t.Helper()
	c, err := NewClient(testProject, testSecret, append([]Option{WithBaseURL(url), WithRetryPolicy(p)}, opts...)...)
	require.NoError(t, err)
	return c
}

func TestRetry_RetryAfterInSecondsIsWaitedAtLeast(t *testing.T) {
	waits := fakeWaits(t)
	srv, arrivals := retryAfterServer(t, func() string { return "1" })
	c := retryClient(t, srv.URL, RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Second})
	_, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 1})
	require.NoError(t, err)
	require.Len(t, arrivals(), 2)
	require.Equal(t, []time.Duration{time.Second}, waits(), "the jittered backoff (at most 1ms) gave way to Retry-After")
}

func TestRetry_RetryAfterAsHTTPDateIsWaitedUntil(t *testing.T) {
	waits := fakeWaits(t)
	var notBefore, answered time.Time
	srv, arrivals := retryAfterServer(t, func() string {
		// HTTP dates have whole seconds: 2s ahead, truncated, is 1-2s away.
		answered = time.Now()
		notBefore = answered.Add(2 * time.Second).Truncate(time.Second)
		return notBefore.UTC().Format(http.TimeFormat)
	})
	c := retryClient(t, srv.URL, RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Second})
	_, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 1})
	require.NoError(t, err)
	require.Len(t, arrivals(), 2)
	got := waits()
	require.Len(t, got, 1)
	// The wait is counted from when the client read the date, a moment
	// after the server wrote it.
	require.LessOrEqual(t, got[0], notBefore.Sub(answered), "waited %v for a date %v after the answer", got[0], notBefore.Sub(answered))
	require.Greater(t, got[0], notBefore.Sub(answered)-time.Second, "waited %v for a date %v after the answer", got[0], notBefore.Sub(answered))
}

func TestRetry_RetryAfterBeyondMaxDelayEndsTheRetries(t *testing.T) {
	srv, arrivals := retryAfterServer(t, func() string { return "3600" })
	c := retryClient(t, srv.URL, RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Second})
	start := time.Now()
	_, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 1})
	require.Less(t, time.Since(start), 5*time.Second)
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr, "the 503 is returned rather than retried sooner than asked")
	require.Equal(t, http.StatusServiceUnavailable, apiErr.HTTPStatus)
	require.Equal(t, 1, apiErr.Attempts)
	require.Len(t, arrivals(), 1)
}

func TestRetry_CancellationInterruptsTheWaitAtOnce(t *testing.T) {
	srv, arrivals := retryAfterServer(t, func() string { return "20" })
	waiting := make(chan struct{})
	c := retryClient(t, srv.URL, RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 30 * time.Second},
		WithLogger(slog.New(logHook(func(r slog.Record) {
			if r.Message != "paygate retry" {
				return
			}
			select {
			case <-waiting: // a second retry: the first wait was not cut, as the test then reports
			default:
				close(waiting)
			}
		}))))
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled atomic.Int64
	go func() {
		<-waiting // the retry is logged as the 20s wait begins
		cancelled.Store(time.Now().UnixNano())
		cancel()
	}()
	_, err := c.Transactions.Status(ctx, &TransactionStatusParams{ID: 1})
	returned := time.Now()
	require.ErrorIs(t, err, context.Canceled)
	require.Less(t, returned.Sub(time.Unix(0, cancelled.Load())), 100*time.Millisecond, "the wait ends when the context does")
	var netErr *NetworkError
	require.ErrorAs(t, err, &netErr)
	require.Equal(t, 1, netErr.Attempts)
	require.Len(t, arrivals(), 1)
}

// logHook is a slog.Handler that passes every record to its function, so
// that a test acts on, or counts, what the client logs as it happens.
type logHook func(slog.Record)

func (h logHook) Enabled(context.Context, slog.Level) bool      { return true }
func (h logHook) Handle(_ context.Context, r slog.Record) error { h(r); return nil }
func (h logHook) WithAttrs([]slog.Attr) slog.Handler            { return h }
func (h logHook) WithGroup(string) slog.Handler                 { return h }

func TestRetry_CallerDeadlineShorterThanTheWaitReturnsAtOnce(t *testing.T) {
	srv, arrivals := retryAfterServer(t, func() string { return "2" })
	c := retryClient(t, srv.URL, RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err := c.Transactions.Status(ctx, &TransactionStatusParams{ID: 1})
	require.Less(t, time.Since(start), 500*time.Millisecond, "no wait that the deadline would cut anyway")
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, http.StatusServiceUnavailable, apiErr.HTTPStatus)
	require.Len(t, arrivals(), 1)
}

// silentServer accepts connections and reads requests but never answers,
// until the client goes away.
func silentServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var received atomic.Int64
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received.Add(1)
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // runs first: no handler outlives the test
	return srv, &received
}

func TestTimeouts_ResponseHeaderTimeoutCutsASilentGateway(t *testing.T) {
	srv, received := silentServer(t)
	var postsSent atomic.Int64 // one "paygate request" record per attempt, logged before send returns
	c := retryClient(t, srv.URL, RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond},
		WithResponseHeaderTimeout(100*time.Millisecond), WithTimeout(10*time.Second),
		WithLogger(slog.New(logHook(func(r slog.Record) {
			r.Attrs(func(a slog.Attr) bool {
				if r.Message == "paygate request" && a.Key == "method" && a.Value.String() == http.MethodPost {
					postsSent.Add(1)
				}
				return true
			})
		}))))

	start := time.Now()
	_, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 1})
	require.Less(t, time.Since(start), 2*time.Second)
	var netErr *NetworkError
	require.ErrorAs(t, err, &netErr)
	require.Equal(t, 3, netErr.Attempts, "a GET is retried after each header timeout")
	require.ErrorContains(t, err, "timeout awaiting response headers")
	require.EqualValues(t, 3, received.Load())

	received.Store(0)
	err = postProcess(c, &pipelineParams{User: "1", OrderID: "ord-silent"}, &Payment{})
	var ou *OutcomeUnknownError
	require.ErrorAs(t, err, &ou, "a POST cut after it was written may have been processed")
	require.Equal(t, "ord-silent", ou.OrderID)
	require.Eventually(t, func() bool { return received.Load() == 1 }, time.Second, 5*time.Millisecond)
	require.EqualValues(t, 1, postsSent.Load(), "and is never sent again")
}

func TestTimeouts_CallTimeoutCutsASilentGateway(t *testing.T) {
	srv, received := silentServer(t)
	c := retryClient(t, srv.URL, DefaultRetryPolicy) // default 30s header timeout, 60s call timeout

	start := time.Now()
	_, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{ID: 1}, WithCallTimeout(150*time.Millisecond))
	require.Less(t, time.Since(start), 2*time.Second)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	start = time.Now()
	_, err = c.Cards.Charge(context.Background(), &ChargeParams{User: "1", CardToken: NewCardToken("tok"), Price: decimal.RequireFromString("1"), Currency: "EUR",
		Description: "d", OrderID: "ord-late"}, WithCallTimeout(150*time.Millisecond))
	require.Less(t, time.Since(start), 2*time.Second)
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.EqualValues(t, 2, received.Load())
}

func TestTimeouts_CallerDeadlineBeatsTheClientTimeout(t *testing.T) {
	srv, _ := silentServer(t)
	c := retryClient(t, srv.URL, DefaultRetryPolicy, WithTimeout(time.Minute))
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Balance.Get(ctx, nil, WithCallTimeout(time.Minute))
	require.Less(t, time.Since(start), 2*time.Second)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestTimeouts_Defaults(t *testing.T) {
	c, err := NewClient(testProject, testSecret, WithBaseURL(testBaseURL))
	require.NoError(t, err)
	require.Equal(t, DefaultTimeout, c.timeout)
	require.Equal(t, DefaultResponseHeaderTimeout, c.httpClient.Transport.(*http.Transport).ResponseHeaderTimeout)

	_, err = NewClient(testProject, testSecret, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{}), WithResponseHeaderTimeout(time.Second))
	require.Error(t, err, "the option cannot reach a caller's transport")
	_, err = NewClient(testProject, testSecret, WithBaseURL(testBaseURL), WithResponseHeaderTimeout(0))
	require.Error(t, err)
}

func TestRetry_BackoffIsCappedFullJitter(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 10, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for n := 1; n <= 8; n++ {
		ceiling := min(p.BaseDelay<<(n-1), p.MaxDelay)
		for range 200 {
			wait, ok := p.backoff(n, 0)
			require.True(t, ok)
			require.GreaterOrEqual(t, wait, time.Duration(0))
			require.LessOrEqual(t, wait, ceiling)
		}
	}
	wait, ok := p.backoff(1, 700*time.Millisecond)
	require.True(t, ok)
	require.GreaterOrEqual(t, wait, 700*time.Millisecond)
	_, ok = p.backoff(1, 2*time.Second)
	require.False(t, ok)
}

func TestBackoff_LargeDelaysNeverOverflow(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 64, BaseDelay: 20 * time.Second, MaxDelay: time.Hour}
	for n := 1; n <= 64; n++ {
		wait, ok := p.backoff(n, 0)
		require.True(t, ok)
		require.GreaterOrEqual(t, wait, time.Duration(0))
		require.LessOrEqual(t, wait, time.Hour)
	}
}

func TestRetryAfter_HugeSecondsMeanTheCap(t *testing.T) {
	h := http.Header{"Retry-After": {"99999999999999999999"}}
	require.Equal(t, 24*time.Hour, retryAfter(h, time.Now()))
}
