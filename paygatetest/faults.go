package paygatetest

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Fault is a failure InjectFault makes the next calls of a method suffer.
type Fault string

// The faults. The "after-commit" ones process the call (the charge is
// made, the callback sent) and lose the answer, which is what makes a
// client's outcome unknown; the others answer without processing.
const (
	// FaultResetAfterCommit processes the call, then closes the connection
	// without answering.
	FaultResetAfterCommit Fault = "reset-after-commit"
	// FaultTimeoutAfterCommit processes the call, then holds the connection
	// without answering until the client gives up (at most
	// MaxFaultHold), and closes it.
	FaultTimeoutAfterCommit Fault = "timeout-after-commit"
	// FaultStatus500 answers HTTP 500 with the error object (code 50000).
	FaultStatus500 Fault = "status-500"
	// FaultStatus503 answers HTTP 503 with Retry-After: 1 and the error
	// object (code 50300).
	FaultStatus503 Fault = "status-503"
	// FaultStatus429 answers HTTP 429 with the error object (code 42900).
	FaultStatus429 Fault = "status-429"
	// FaultHTML502 answers HTTP 502 with an HTML page, as a proxy in front
	// of the gateway does.
	FaultHTML502 Fault = "html-502"
)

// Faults lists every fault.
var Faults = []Fault{
	FaultResetAfterCommit, FaultTimeoutAfterCommit, FaultStatus500, FaultStatus503, FaultStatus429, FaultHTML502,
}

// MaxFaultCount is the most calls one InjectFault can affect.
const MaxFaultCount = 1000

// MaxFaultHold is the longest FaultTimeoutAfterCommit holds a connection.
const MaxFaultHold = 2 * time.Minute

// ErrInvalidFault reports an InjectFault argument that is out of bounds.
var ErrInvalidFault = errors.New("paygatetest: invalid fault")

// InjectFault makes the next count calls of method (an API path after
// /v1/, such as "card/process", or "transactions/{id}") suffer fault f,
// whoever makes them. It replaces what was pending for the method; count 0
// removes it. The error matches ErrInvalidFault for an unknown method or
// fault, or a count outside 0..MaxFaultCount. (The control plane's faults
// are those of the calls of one project.)
func (s *Server) InjectFault(method string, f Fault, count int) error {
	return s.InjectProjectFault("", method, f, count)
}

// InjectProjectFault is InjectFault for the calls that name the project
// with public key key only (the other projects' calls go on as before), or
// for every call when key is "".
func (s *Server) InjectProjectFault(key, method string, f Fault, count int) error {
	method = strings.TrimPrefix(strings.TrimPrefix(method, "/"), "v1/")
	if _, ok := routes[method]; !ok {
		return fmt.Errorf("%w: unknown method %q", ErrInvalidFault, method)
	}
	if _, ok := faultAnswers[f]; !ok && f != FaultResetAfterCommit && f != FaultTimeoutAfterCommit {
		return fmt.Errorf("%w: unknown fault %q", ErrInvalidFault, f)
	}
	if count < 0 || count > MaxFaultCount {
		return fmt.Errorf("%w: count must be 0 to %d", ErrInvalidFault, MaxFaultCount)
	}
	s.faults.set(faultTarget{key, method}, f, count)
	return nil
}

// faultTable holds the faults waiting for their calls.
type faultTable struct {
	mu      sync.Mutex
	pending map[faultTarget]faultPlan
}

// faultTarget is the calls a fault waits for: of a method, by the project
// with public key project ("": by anyone).
type faultTarget struct{ project, method string }

type faultPlan struct {
	fault Fault
	left  int
}

func (ft *faultTable) set(target faultTarget, f Fault, count int) {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if count == 0 {
		delete(ft.pending, target)
		return
	}
	if ft.pending == nil {
		ft.pending = make(map[faultTarget]faultPlan)
	}
	ft.pending[target] = faultPlan{fault: f, left: count}
}

// take returns the fault the next call of method by project suffers, if
// any (the project's own first, then one for anyone), and counts it.
func (ft *faultTable) take(project, method string) (Fault, bool) {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	target := faultTarget{project, method}
	p, ok := ft.pending[target]
	if !ok {
		target.project = ""
		if p, ok = ft.pending[target]; !ok {
			return "", false
		}
	}
	if p.left--; p.left == 0 {
		delete(ft.pending, target)
	} else {
		ft.pending[target] = p
	}
	return p.fault, true
}

// resetProject removes the faults waiting for project's calls.
func (ft *faultTable) resetProject(project string) {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	for target := range ft.pending {
		if target.project == project {
			delete(ft.pending, target)
		}
	}
}

func (ft *faultTable) reset() {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	ft.pending = nil
}

// faultAnswer is what a fault that does not process the call answers.
type faultAnswer struct {
	status     int
	retryAfter string
	html       bool
	code       int
	message    string
}

var faultAnswers = map[Fault]faultAnswer{
	FaultStatus500: {status: http.StatusInternalServerError, code: 50000, message: "internal server error (injected fault)"},
	FaultStatus503: {status: http.StatusServiceUnavailable, retryAfter: "1", code: 50300, message: "service unavailable (injected fault)"},
	FaultStatus429: {status: http.StatusTooManyRequests, code: 42900, message: "too many requests (injected fault)"},
	FaultHTML502:   {status: http.StatusBadGateway, html: true},
}

const badGatewayPage = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

// serveAPIWithFaults serves an API call, unless a fault is pending for its
// method. method is the decoded path after /v1/.
func (s *Server) serveAPIWithFaults(w http.ResponseWriter, r *http.Request, method string) {
	key, _ := routeOf(method)
	// The parameters are read first: a fault may be for one project's calls.
	params, perr := readParams(w, r)
	f, ok := s.faults.take(params.Get("project"), key)
	if !ok {
		s.serveAPI(w, r, method, params, perr)
		return
	}
	if a, ok := faultAnswers[f]; ok {
		if a.retryAfter != "" {
			w.Header().Set("Retry-After", a.retryAfter)
		}
		if a.html {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(a.status)
			io.WriteString(w, badGatewayPage)
			return
		}
		writeJSON(w, "", a.status, map[string]any{"error": map[string]any{"code": a.code, "message": a.message}})
		return
	}
	// After commit: the call is processed in full, its answer discarded.
	s.serveAPI(&discardWriter{h: http.Header{}}, r, method, params, perr)
	if f == FaultTimeoutAfterCommit {
		hold := time.NewTimer(MaxFaultHold)
		defer hold.Stop()
		select {
		case <-r.Context().Done():
		case <-s.closed:
		case <-hold.C:
		}
	}
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	// A connection that cannot be hijacked (HTTP/2) is reset by panicking
	// with ErrAbortHandler, which net/http turns into a reset stream.
	panic(http.ErrAbortHandler)
}

// discardWriter is a ResponseWriter that forgets what is written.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}
