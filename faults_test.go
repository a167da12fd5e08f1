package paygate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
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
	// choose, when set, picks the fault of each new connection (conn true:
	// faultResetBeforeRead or faultNone) and of each request instead of
	// mode; injected counts the faults it picked.
	choose   func(conn bool) fault
	injected [faultErrorObject200 + 1]atomic.Int64

	mu       sync.Mutex
	accepted int            // connections reset before anything was read
	received map[string]int // "METHOD path order" -> requests read whole
}

// newFaultServer starts a fault server answering ok(r) when it behaves; a
// nil ok answers the gateway's own fixture for the request's path. The
// setups run before the server starts.
func newFaultServer(t testing.TB, ok func(*http.Request) string, setups ...func(*faultServer)) *faultServer {
	if ok == nil {
		ok = fixtureFor(t)
	}
	fs := &faultServer{ok: ok, received: map[string]int{}, lateness: 300 * time.Millisecond}
	for _, setup := range setups {
		setup(fs)
	}
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

// total returns how many whole requests the server read for method and
// path (below /v1/), whatever their order id.
func (fs *faultServer) total(method, path string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := 0
	for k, c := range fs.received {
		if strings.HasPrefix(k, method+" /v1/"+path+" ") {
			n += c
		}
	}
	return n
}

// forget clears the counts of requests and resets.
func (fs *faultServer) forget() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	clear(fs.received)
	fs.accepted = 0
}

// fault returns the fault for a new connection (conn) or a request.
func (fs *faultServer) fault(conn bool) fault {
	if fs.choose == nil {
		return fault(fs.mode.Load())
	}
	f := fs.choose(conn)
	if f != faultNone {
		fs.injected[f].Add(1)
	}
	return f
}

// fixtureFor returns an ok function answering each request with the answer
// fixture of the endpointCases row that serves its method and path: the row
// is the one place an endpoint's fixture is named. A request no row serves
// fails the test naming it, rather than a misleading gateway error.
func fixtureFor(t testing.TB) func(*http.Request) string {
	cases := endpointCases()
	bodies := map[endpointName]string{}
	for name, ec := range cases {
		if ec.answer.fixture != "" { // else TestEndpointCases_OneRowPerEndpoint names the row
			bodies[name] = string(fixture(t, ec.answer.fixture))
		}
	}
	return func(r *http.Request) string {
		if row, ok := endpointFor(r.Method, strings.TrimPrefix(r.URL.Path, "/v1/")); ok {
			for name, body := range bodies {
				if row.template == endpoints[name].path && row.method == endpoints[name].method {
					return body
				}
			}
		}
		t.Errorf("fault server: no row of endpointCases has an answer fixture for %s %s", r.Method, r.URL.Path)
		return `{"error":{"code":40400,"message":"no endpointCases row serves this method"}}`
	}
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
	f := fs.fault(false)
	if f == faultResetBeforeRead {
		f = faultNone // decided per connection, in Accept
	}
	switch f {
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
		if err != nil || l.fs.fault(true) != faultResetBeforeRead {
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
	}, func(fs *faultServer) {
		fs.lateness = 5 * time.Second // cut short by the client going away
	})
	c := faultClient(t, fs, time.Second)
	for f := faultNone; f <= faultErrorObject200; f++ {
		want := faultExpectations[f]
		t.Run(faultNames[f], func(t *testing.T) {
			fs.resets()
			fs.set(f)
			defer fs.set(faultNone)
			c.httpClient.CloseIdleConnections() // each fault meets a fresh connection

			getOrder, postOrder := "GET "+faultNames[f], "POST "+faultNames[f]
			getKey, postKey := "GET /v1/transaction/status "+getOrder, "POST /v1/card/process "+postOrder
			_, err := c.Transactions.Status(context.Background(), &TransactionStatusParams{OrderID: getOrder})
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

// endpointCall is one call of one service method, as a merchant makes it.
type endpointCall struct {
	name   string
	method string // of the requests it sends
	path   string // below /v1/, as counted by the server
	// order is the order id the call carries, "" when it has none.
	call func(ctx context.Context, c *Client, order string) error
	// carriesOrder reports whether the request carries the order id.
	carriesOrder bool
}

// TestFaults_EveryEndpointUnderEveryFault calls every service method under
// every fault and checks how many requests the server received and which
// error the merchant got: GETs are retried (3 attempts here) on network
// errors, 429, 502, 503 and 504; every POST that reached the server was
// received exactly once and, unless the gateway gave a definite answer,
// ends as ErrOutcomeUnknown carrying its order id.
func TestFaults_EveryEndpointUnderEveryFault(t *testing.T) {
	for _, ec := range everyEndpointCall() {
		t.Run(ec.name, func(t *testing.T) {
			t.Parallel()
			fs := newFaultServer(t, nil, func(fs *faultServer) {
				fs.lateness = 5 * time.Second // cut short by the client going away
			})
			c := faultClient(t, fs, time.Second)
			for f := faultNone; f <= faultErrorObject200; f++ {
				want := faultExpectations[f]
				order := "ord-" + strings.ReplaceAll(faultNames[f], " ", "-")
				fs.forget()
				fs.set(f)
				c.httpClient.CloseIdleConnections() // each fault meets a fresh connection
				err := ec.call(context.Background(), c, order)
				fs.set(faultNone)
				got := classify(err)
				received := fs.total(ec.method, ec.path)

				if ec.method == http.MethodGet {
					wantOutcome := want.getOutcome
					if (ec.name == "Transactions.Reconcile" || ec.name == "Transactions.Settle") && f == faultErrorObject200 {
						wantOutcome = outcomeOK // 40403: the gateway recorded nothing
					}
					require.Equal(t, wantOutcome, got, "%s: error %v", faultNames[f], err)
					require.Equal(t, want.getReceived, received+fs.resets(), "%s: attempts", faultNames[f])
					requireAttempts(t, err, want.getReceived)
					continue
				}
				require.Equal(t, want.postOutcome, got, "%s: error %v", faultNames[f], err)
				if f == faultResetBeforeRead {
					require.Zero(t, received, "%s: the server read nothing", faultNames[f])
					require.Equal(t, 1, fs.resets(), "%s: one connection, never a second", faultNames[f])
				} else {
					require.Equal(t, 1, received, "%s: a POST is received once", faultNames[f])
				}
				requireAttempts(t, err, 1)
				if got == outcomeUnknown {
					var ou *OutcomeUnknownError
					require.ErrorAs(t, err, &ou)
					if ec.carriesOrder {
						require.Equal(t, order, ou.OrderID, "%s: the order id to reconcile with", faultNames[f])
					} else {
						require.Empty(t, ou.OrderID)
					}
				}
			}
		})
	}
}

// requireAttempts checks the number of attempts the error reports, when it
// is of a kind that carries one.
func requireAttempts(t *testing.T, err error, want int) {
	t.Helper()
	var apiErr *Error
	var netErr *NetworkError
	var ou *OutcomeUnknownError
	switch {
	case errors.As(err, &ou):
		require.Equal(t, want, ou.Attempts, "attempts on %v", err)
	case errors.As(err, &netErr):
		require.Equal(t, want, netErr.Attempts, "attempts on %v", err)
	case errors.As(err, &apiErr):
		if apiErr.Code == 0 { // a definite gateway answer comes at once
			require.Equal(t, want, apiErr.Attempts, "attempts on %v", err)
		}
	}
}

// TestFaults_TenThousandRandomCallsNeverDuplicateAPost makes 10,000 calls
// from concurrent workers against a server that misbehaves at random, and
// requires that no POST was ever received twice, that every POST the server
// received either succeeded, got a definite answer, or reported
// ErrOutcomeUnknown with its order id, and that only POSTs the server never
// saw were reported as plain network errors.
func TestFaults_TenThousandRandomCallsNeverDuplicateAPost(t *testing.T) {
	const calls, workers = 10000, 32
	var rngMu sync.Mutex
	rng := rand.New(rand.NewPCG(6, 10000)) // fixed seed: the faults drawn are the same each run
	choose := func(conn bool) fault {
		rngMu.Lock()
		defer rngMu.Unlock()
		if conn {
			if rng.IntN(100) < 5 {
				return faultResetBeforeRead
			}
			return faultNone
		}
		if rng.IntN(100) < 70 {
			return faultNone
		}
		return faultResetAfterRead + fault(rng.IntN(int(faultErrorObject200-faultResetAfterRead)+1))
	}
	fs := newFaultServer(t, nil, func(fs *faultServer) {
		fs.lateness = time.Second // cut short by the client going away
		fs.choose = choose
	})
	c := faultClient(t, fs, 80*time.Millisecond)

	var mix []endpointCall
	for _, ec := range everyEndpointCall() {
		// POSTs are counted by their order id, so only those carrying one
		// take part; every GET does.
		if ec.method == http.MethodGet || ec.carriesOrder {
			mix = append(mix, ec)
		}
	}
	type result struct {
		ec    endpointCall
		order string
		err   error
	}
	results := make([]result, calls)
	next := atomic.Int64{}
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= calls {
					return
				}
				ec := mix[i%len(mix)]
				order := fmt.Sprintf("r-%05d", i)
				results[i] = result{ec, order, ec.call(context.Background(), c, order)}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	fs.Close() // waits for the handlers still running, so the counts are final

	outcomes := map[outcome]int{}
	posts := 0
	for _, r := range results {
		got := classify(r.err)
		outcomes[got]++
		require.NotEqual(t, outcome(-1), got, "%s: unclassified error %v", r.ec.name, r.err)
		if r.ec.method != http.MethodPost {
			continue
		}
		posts++
		received := fs.count("POST /v1/" + r.ec.path + " " + r.order)
		require.LessOrEqual(t, received, 1, "%s %s received twice", r.ec.name, r.order)
		switch got {
		case outcomeOK, outcomeGatewayError:
		case outcomeUnknown:
			var ou *OutcomeUnknownError
			require.ErrorAs(t, r.err, &ou)
			require.Equal(t, r.order, ou.OrderID)
			// Attempts above 1 happen when a reset before reading lands
			// during the connect ("connect: connection reset by peer"): a
			// dial error, nothing left. The server count above is the proof
			// that the request itself went out once.
			require.GreaterOrEqual(t, ou.Attempts, 1)
		case outcomeHTTPError:
			var apiErr *Error
			require.ErrorAs(t, r.err, &apiErr)
			require.Equal(t, http.StatusTooManyRequests, apiErr.HTTPStatus, "%s %s: only a 429 refuses a POST definitely", r.ec.name, r.order)
		case outcomeNetworkError, outcomeDeadline:
			require.Zero(t, received, "%s %s: reported as never sent, but the server read it: %v", r.ec.name, r.order, r.err)
		default:
			t.Fatalf("%s %s: a POST ended as %v", r.ec.name, r.order, r.err)
		}
	}
	injected := map[string]int64{}
	for f := faultResetBeforeRead; f <= faultErrorObject200; f++ {
		injected[faultNames[f]] = fs.injected[f].Load()
		require.Positive(t, injected[faultNames[f]], "fault %q was never injected", faultNames[f])
	}
	t.Logf("%d calls (%d POSTs) in %v; faults injected: %v; outcomes (ok, unknown, gateway, http, network, response, deadline): %d %d %d %d %d %d %d",
		calls, posts, elapsed.Round(time.Millisecond), injected, outcomes[outcomeOK], outcomes[outcomeUnknown],
		outcomes[outcomeGatewayError], outcomes[outcomeHTTPError], outcomes[outcomeNetworkError],
		outcomes[outcomeResponseError], outcomes[outcomeDeadline])
}
