package paygate

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fault is a way for the gateway (or what stands in front of it) to
// misbehave.
type fault int

const (
	faultNone                  fault = iota
	faultResetBeforeRead             // RST as soon as the connection is accepted
	faultResetAfterRead              // read the whole request, then RST
	faultCloseWithoutAnswer          // read the whole request, then close cleanly
	faultAnswerAfterDeadline         // answer correctly, but too late
	faultBadGatewayHTML              // 502 with a proxy's HTML page
	faultUnavailableRetryAfter       // 503 with Retry-After: 0
	faultTooManyRequests             // 429
	faultTruncatedJSON               // 200 with half a body
	faultErrorObject200              // 200 carrying a gateway error object
)

var faultNames = map[fault]string{
	faultNone: "none", faultResetBeforeRead: "reset before read", faultResetAfterRead: "reset after read",
	faultCloseWithoutAnswer: "close without answer", faultAnswerAfterDeadline: "answer after deadline",
	faultBadGatewayHTML: "502 HTML", faultUnavailableRetryAfter: "503 Retry-After", faultTooManyRequests: "429",
	faultTruncatedJSON: "truncated JSON", faultErrorObject200: "200 with error object",
}

// faultServer is a loopback gateway that misbehaves on purpose and counts
// what it received.
type faultServer struct {
	*httptest.Server
	mode     atomic.Int64 // fault for the next requests
	lateness time.Duration
	ok       func(*http.Request) string // the good body for a request

	mu       sync.Mutex
	accepted int            // connections reset before anything was read
	received map[string]int // "METHOD path order" -> requests read whole
}

func newFaultServer(t testing.TB, ok func(*http.Request) string) *faultServer {
	fs := &faultServer{ok: ok, received: map[string]int{}, lateness: 300 * time.Millisecond}
	fs.Server = httptest.NewUnstartedServer(http.HandlerFunc(fs.serve))
	fs.Server.Listener = &faultListener{Listener: fs.Server.Listener, fs: fs}
	fs.Start()
	t.Cleanup(fs.Close)
	return fs
}

func (fs *faultServer) set(f fault) { fs.mode.Store(int64(f)) }

// count returns how many whole requests the server read for key.
func (fs *faultServer) count(key string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.received[key]
}

// resets returns how many connections the server reset before reading
// anything, and starts counting again.
func (fs *faultServer) resets() int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := fs.accepted
	fs.accepted = 0
	return n
}

func requestKey(r *http.Request) string {
	order := r.FormValue("order_id")
	if order == "" {
		order = r.FormValue("orderId")
	}
	return r.Method + " " + r.URL.Path + " " + order
}

func (fs *faultServer) serve(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	fs.mu.Lock()
	fs.received[requestKey(r)]++
	fs.mu.Unlock()
	switch fault(fs.mode.Load()) {
	case faultResetAfterRead:
		resetConn(w, true)
	case faultCloseWithoutAnswer:
		resetConn(w, false)
	case faultAnswerAfterDeadline:
		select {
		case <-time.After(fs.lateness):
		case <-r.Context().Done():
		}
		io.WriteString(w, fs.ok(r))
	case faultBadGatewayHTML:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
	case faultUnavailableRetryAfter:
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusServiceUnavailable)
	case faultTooManyRequests:
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, "slow down")
	case faultTruncatedJSON:
		body := fs.ok(r)
		io.WriteString(w, body[:len(body)/2])
	case faultErrorObject200:
		io.WriteString(w, `{"error":{"code":40403,"message":"Transaction does not exist"}}`)
	default:
		io.WriteString(w, fs.ok(r))
	}
}

// resetConn hijacks the connection and closes it, with an RST when rst is
// true (SO_LINGER 0), else with a clean FIN.
func resetConn(w http.ResponseWriter, rst bool) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok && rst {
		tcp.SetLinger(0)
	}
	conn.Close()
}

type faultListener struct {
	net.Listener
	fs *faultServer
}

func (l *faultListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil || fault(l.fs.mode.Load()) != faultResetBeforeRead {
			return conn, err
		}
		l.fs.mu.Lock()
		l.fs.accepted++
		l.fs.mu.Unlock()
		// Reset a moment later, once the client has connected and written
		// its request: an RST during connect would be a dial error, which
		// rightly counts as nothing sent.
		go func() {
			time.Sleep(20 * time.Millisecond)
			if tcp, ok := conn.(*net.TCPConn); ok {
				tcp.SetLinger(0)
			}
			conn.Close()
		}()
	}
}

// faultClient is a client of fs that retries fast and gives each call
// timeout.
func faultClient(t testing.TB, fs *faultServer, timeout time.Duration) *Client {
	c, err := NewClient(testProject, testSecret, WithBaseURL(fs.URL), WithTimeout(timeout),
		WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}))
	require.NoError(t, err)
	return c
}

// outcome is how a call ended, as the merchant sees it.
type outcome int

const (
	outcomeOK outcome = iota
	outcomeUnknown
	outcomeGatewayError  // *Error with a code: a definite answer
	outcomeHTTPError     // *Error without a code
	outcomeNetworkError  // *NetworkError
	outcomeResponseError // *ResponseError
	outcomeDeadline      // deadline exceeded, nothing sent that could charge
)

func classify(err error) outcome {
	var apiErr *Error
	var netErr *NetworkError
	var respErr *ResponseError
	switch {
	case err == nil:
		return outcomeOK
	case errors.Is(err, ErrOutcomeUnknown):
		return outcomeUnknown
	case errors.As(err, &apiErr) && apiErr.Code != 0:
		return outcomeGatewayError
	case errors.As(err, &apiErr):
		return outcomeHTTPError
	case errors.As(err, &respErr):
		return outcomeResponseError
	case errors.Is(err, context.DeadlineExceeded):
		return outcomeDeadline
	case errors.As(err, &netErr):
		return outcomeNetworkError
	}
	return -1
}

// The rule under test, per kind of request: a GET is retried on network
// errors, 429, 502, 503 and 504 (3 attempts here); a POST that reached the
// gateway is received once and ends as an unknown outcome, unless the
// gateway gave a definite answer.
var faultExpectations = map[fault]struct {
	getReceived int
	getOutcome  outcome
	postOutcome outcome
}{
	faultNone:                  {1, outcomeOK, outcomeOK},
	faultResetBeforeRead:       {3, outcomeNetworkError, outcomeUnknown},
	faultResetAfterRead:        {3, outcomeNetworkError, outcomeUnknown},
	faultCloseWithoutAnswer:    {3, outcomeNetworkError, outcomeUnknown},
	faultAnswerAfterDeadline:   {1, outcomeDeadline, outcomeUnknown},
	faultBadGatewayHTML:        {3, outcomeHTTPError, outcomeUnknown},
	faultUnavailableRetryAfter: {3, outcomeHTTPError, outcomeUnknown},
	faultTooManyRequests:       {3, outcomeHTTPError, outcomeHTTPError},
	faultTruncatedJSON:         {1, outcomeResponseError, outcomeUnknown},
	faultErrorObject200:        {1, outcomeGatewayError, outcomeGatewayError},
}

const statusBody = `{"id":1000000000000000001,"order_id":"ORD-1","price":"10.00","fee":"0.2900","currency":"EUR","type":"payment","status":"completed","original_status":"completed"}`

// TestFaults_GetRetriedPostNeverTwice drives one GET and one POST through
// every fault and checks what the server received and what the merchant got.
func TestFaults_GetRetriedPostNeverTwice(t *testing.T) {
	fs := newFaultServer(t, func(r *http.Request) string {
		if r.Method == http.MethodPost {
			return `{"success":true,"id":1000000000000000002,"status":"completed"}`
		}
		return statusBody
	})
	c := faultClient(t, fs, 150*time.Millisecond)
	for f := faultNone; f <= faultErrorObject200; f++ {
		want := faultExpectations[f]
		t.Run(faultNames[f], func(t *testing.T) {
			fs.resets()
			fs.set(f)
			defer fs.set(faultNone)
			c.httpClient.CloseIdleConnections() // each fault meets a fresh connection

			getOrder, postOrder := "GET "+faultNames[f], "POST "+faultNames[f]
			getKey, postKey := "GET /v1/transaction/status "+getOrder, "POST /v1/card/process "+postOrder
			_, err := c.Transactions.Status(context.Background(), &StatusParams{OrderID: getOrder})
			require.Equal(t, want.getOutcome, classify(err), "GET error: %v", err)
			require.Equal(t, want.getReceived, fs.count(getKey)+fs.resets(), "GET attempts")

			c.httpClient.CloseIdleConnections()
			err = postProcess(c, &pipelineParams{User: "1", OrderID: postOrder}, &Payment{})
			require.Equal(t, want.postOutcome, classify(err), "POST error: %v", err)
			if f == faultResetBeforeRead {
				require.Zero(t, fs.count(postKey), "the server read nothing")
			} else {
				require.Equal(t, 1, fs.count(postKey), "a POST is received once")
			}
			if want.postOutcome == outcomeUnknown {
				var ou *OutcomeUnknownError
				require.ErrorAs(t, err, &ou)
				require.Equal(t, postOrder, ou.OrderID)
				require.Equal(t, 1, ou.Attempts, "the SDK sent it once")
			}
		})
	}
}
