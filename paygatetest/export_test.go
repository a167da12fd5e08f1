package paygatetest

import (
	"net/http"
	"time"
)

// WithServerTimeouts sets the server's timeouts, so that a test of them
// does not wait for the defaults.
func WithServerTimeouts(readHeader, read, write, idle time.Duration) Option {
	return func(c *config) {
		c.timeouts = serverTimeouts{readHeader: readHeader, read: read, write: write, idle: idle}
	}
}

// WithTemporaryTokenCap sets how many temporary tokens the server keeps, so
// that a test of the bound does not need 100,000 of them.
func WithTemporaryTokenCap(n int) Option {
	return func(c *config) { c.maxTokens = n }
}

// WithDeliveryLogLimit sets how many callbacks the delivery log keeps.
func WithDeliveryLogLimit(n int) Option {
	return func(c *config) { c.maxDeliveries = n }
}

// InFlightAllowance is how many callbacks may wait, and automatic payments
// one clock move makes, under retention n.
var InFlightAllowance = inFlightAllowance

// RetryJitterDivisor bounds the jitter of a retry: up to
// 1/RetryJitterDivisor of its wait.
const RetryJitterDivisor = retryJitterDivisor

// RouteFlags is what the router knows of one API method.
type RouteFlags struct{ Unsigned, ExtendedOnly, Reads bool }

// Routes returns the router's API methods by their path after /v1/.
func Routes() map[string]RouteFlags {
	out := make(map[string]RouteFlags, len(routes))
	for path, rt := range routes {
		out[path] = RouteFlags{Unsigned: rt.unsigned, ExtendedOnly: rt.extendedOnly, Reads: rt.reads}
	}
	return out
}

// WithConnectionLimit sets how many connections the server holds at once,
// so that a test of the cap does not need 512 of them.
func WithConnectionLimit(n int) Option {
	return func(c *config) { c.maxConns = n }
}

// AllocatedBy returns the bytes the process allocated while f ran.
var AllocatedBy = allocatedBy

// HoldStateWriter stops the state file's writer of s (started with
// WithStateFile) without a last write, so that StateChanged alone reads
// and clears what requests mark; Close writes nothing more.
func (s *Server) HoldStateWriter() {
	p := s.persist
	p.once.Do(func() {
		close(p.stop)
		<-p.done
	})
}

// StateChanged reports whether the state was marked changed, to be
// written, since the last call, and clears the mark.
func (s *Server) StateChanged() bool { return s.persist.dirty.Swap(false) }

// ControlOperations returns every operation of the control plane as
// "METHOD path" (after /sandbox/, with {id} and {event} for the variable
// segments), so that a test can require that it looked at each.
func ControlOperations() []string {
	out := []string{http.MethodPost + " transactions/{id}/{event}"}
	for _, ops := range []map[string]controlOp{controlOps, controlOpsMore} {
		for path, op := range ops {
			out = append(out, op.method+" "+path)
		}
	}
	return out
}
