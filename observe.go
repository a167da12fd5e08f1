package paygate

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"syscall"
	"time"
)

// Observer learns what each call to the gateway did, for tracing and
// metrics (see the module github.com/paygate/paygate-go/paygateotel for
// OpenTelemetry). Give one to the client with [WithObserver]; the callback
// side has the package callback's Observer.
//
// It is an interface whose StartCall returns a per-call [CallTrace], rather
// than a struct of hooks like net/http/httptrace's: what an observer keeps
// between the start and the end of a call (a span, a start time) lives in
// the value it returns, so nothing is looked up in a context or a map, and
// a call that is not observed costs one nil check. Each event is a struct,
// so that fields can be added without breaking an implementation.
//
// What an observer receives is chosen to be safe to export: the
// operation, HTTP statuses, error classes, the gateway's code, counts and
// durations, and (in [CallResult]) the merchant's order id and the
// transaction id a request named. It never receives card data, card
// tokens, PaRes or MD, keys, signatures, query strings or bodies, nor the
// call's error (whose text can quote what the gateway said).
//
// Its methods are called from the goroutine that makes the call, and from
// many calls at once: an Observer must be safe for concurrent use.
type Observer interface {
	// StartCall is called once per call, before its parameters are
	// validated. The context it returns is the one the call's HTTP
	// requests are made with (so a span it holds is the parent of the
	// spans of an instrumented transport); return ctx to keep it. A nil
	// CallTrace asks for nothing more about this call.
	StartCall(ctx context.Context, call CallInfo) (context.Context, CallTrace)
}

// CallTrace receives the events of one call, in order: one Attempt per HTTP
// exchange, then End. A call refused before anything was sent has no
// Attempt.
type CallTrace interface {
	// Attempt reports one HTTP exchange and whether it will be retried.
	Attempt(AttemptInfo)
	// End reports how the call ended; it is always called, once.
	End(CallResult)
}

// OperationOther is the operation of a raw call ([Client.Call]) to an
// endpoint the SDK does not know: its path may hold ids, and an observer's
// operation must never.
const OperationOther = "other"

// CallInfo names a call as it starts.
type CallInfo struct {
	// Operation is the gateway method as the API documentation names it,
	// for example "card/process" or "transactions/{id}" (the template,
	// never an id), or [OperationOther].
	Operation string
	// Method is the HTTP method, GET or POST.
	Method string
	// ServerAddress is the gateway's host, without port or credentials.
	ServerAddress string
	// ServerPort is the gateway's port, explicit or implied by the scheme.
	ServerPort int
}

// AttemptInfo describes one HTTP exchange of a call.
type AttemptInfo struct {
	// Attempt counts the exchanges of the call, from 1.
	Attempt int
	// HTTPStatus is the answer's status, or 0 when none arrived.
	HTTPStatus int
	// ErrorClass says why the exchange failed; empty when a whole answer
	// was read (whatever its status).
	ErrorClass ErrorClass
	// Duration is the time from sending the request to the end of reading
	// the answer.
	Duration time.Duration
	// Retry reports that the request will be sent again after Wait. A POST
	// that may have reached the gateway is never retried.
	Retry bool
	// Wait is the pause before the next attempt when Retry is set.
	Wait time.Duration
}

// CallResult describes how a call ended.
type CallResult struct {
	// Outcome classifies the ending; see [CallOutcome].
	Outcome CallOutcome
	// GatewayCode is the gateway's five-digit error code, or 0.
	GatewayCode ErrorCode
	// HTTPStatus is the status of the last answer, or 0 when none arrived.
	HTTPStatus int
	// Attempts is how many times the request was sent (0 when it was
	// refused before sending); Attempts-1 of them were retries.
	Attempts int
	// Duration is the whole call: validation, attempts and waits.
	Duration time.Duration
	// OrderID is the merchant's order id the request carried, if any.
	OrderID string
	// TransactionID is the transaction the request named (a reversal, a
	// look-up by id), if any; not the id of a payment the call created.
	TransactionID ID
}

// CallOutcome classifies how a call ended, with few enough values to be a
// metric's attribute. (What settling an unknown outcome found is an
// [Outcome].)
type CallOutcome string

const (
	// CallSucceeded: the gateway did what was asked. A charge waiting
	// for 3-D Secure or still processing succeeded as a call.
	CallSucceeded CallOutcome = "succeeded"
	// CallDeclined: the gateway answered without an error object but
	// refused: a failed payment (a declined card, a failed 3-D Secure
	// step), or success false (see [DeclinedError]).
	CallDeclined CallOutcome = "declined"
	// CallRefused: the SDK refused the call before sending anything
	// (a [*ValidationError], [ErrBasicForm]).
	CallRefused CallOutcome = "refused"
	// CallGatewayError: the gateway answered with an error (a code in
	// GatewayCode, or an HTTP failure without one) or with an answer that
	// could not be read, and nothing was charged.
	CallGatewayError CallOutcome = "gateway_error"
	// CallNetworkError: no usable answer, for a request that cannot
	// have charged (a GET, or a POST that provably never left): trying
	// again is safe. It is told apart from a gateway error so that an
	// alert can tell "the gateway says no" from "the gateway is
	// unreachable".
	CallNetworkError CallOutcome = "network_error"
	// CallOutcomeUnknown: a request that may have charged got no usable
	// answer ([ErrOutcomeUnknown]): settle it before anything else.
	CallOutcomeUnknown CallOutcome = "unknown"
)

// ErrorClass classifies the failure of one HTTP exchange, with few enough
// values to be a metric's attribute.
type ErrorClass string

const (
	// ErrorClassTimeout: a deadline passed (the call's, the response
	// header timeout's, a dial timeout).
	ErrorClassTimeout ErrorClass = "timeout"
	// ErrorClassCanceled: the caller's context was cancelled.
	ErrorClassCanceled ErrorClass = "canceled"
	// ErrorClassDNS: the gateway's name did not resolve.
	ErrorClassDNS ErrorClass = "dns"
	// ErrorClassConnect: no connection could be opened.
	ErrorClassConnect ErrorClass = "connect"
	// ErrorClassTLS: the TLS handshake failed.
	ErrorClassTLS ErrorClass = "tls"
	// ErrorClassConnectionLost: the connection was reset or closed before
	// the whole answer arrived.
	ErrorClassConnectionLost ErrorClass = "connection_lost"
	// ErrorClassBodyTooLarge: the answer exceeded the size limit (see
	// WithMaxResponseBytes).
	ErrorClassBodyTooLarge ErrorClass = "body_too_large"
	// ErrorClassOther: any other failure.
	ErrorClassOther ErrorClass = "other"
)

// WithObserver sets the observer told about every call (see [Observer]).
// Without one, observing costs nothing.
func WithObserver(o Observer) Option {
	return func(c *Client) error {
		c.observer = o
		return nil
	}
}

// declinedAnswer is implemented by answers that can say "received and
// refused" without an error object, so that the observer can tell a
// decline from a success.
type declinedAnswer interface {
	declined() bool
}

// callObservation is what the pipeline keeps of an observed call.
type callObservation struct {
	trace         CallTrace
	attempts      int
	status        int
	orderID       string
	transactionID ID
}

// observed runs the call through run, telling c's observer.
func (c *Client) observed(ctx context.Context, ep endpoint, params, out any, opts []CallOption) error {
	began := time.Now()
	ctx, trace := c.observer.StartCall(ctx, CallInfo{
		Operation: ep.operation(), Method: ep.method,
		ServerAddress: c.serverHost, ServerPort: c.serverPort,
	})
	if trace == nil {
		return c.run(ctx, ep, params, out, opts, nil)
	}
	obs := &callObservation{trace: trace}
	err := c.run(ctx, ep, params, out, opts, obs)
	trace.End(CallResult{
		Outcome: outcomeOf(out, err), GatewayCode: gatewayCode(err), HTTPStatus: obs.status,
		Attempts: obs.attempts, Duration: time.Since(began), OrderID: obs.orderID, TransactionID: obs.transactionID,
	})
	return err
}

// attempted reports one exchange to the observer, if any.
func (o *callObservation) attempted(n int, x reply, began time.Time, retry bool, wait time.Duration) {
	if o == nil {
		return
	}
	o.attempts, o.status = n, x.status
	info := AttemptInfo{Attempt: n, HTTPStatus: x.status, Duration: time.Since(began), Retry: retry}
	if retry {
		info.Wait = wait
	}
	if x.err != nil {
		info.ErrorClass = errorClassOf(x.err)
	}
	o.trace.Attempt(info)
}

// now returns the time when the call is observed, and saves the clock
// read otherwise.
func (o *callObservation) now() time.Time {
	if o == nil {
		return time.Time{}
	}
	return time.Now()
}

// outcomeOf classifies what run returned.
func outcomeOf(out any, err error) CallOutcome {
	if err != nil {
		return errorOutcome(err)
	}
	if d, ok := out.(declinedAnswer); ok && d.declined() {
		return CallDeclined
	}
	return CallSucceeded
}

// errorOutcome classifies an error run returned: every error it returns
// after sending is one of the types below, so anything else was refused
// before sending. (Its own function, so that a call that succeeded does
// not allocate the targets of errors.As.)
func errorOutcome(err error) CallOutcome {
	var apiErr *Error
	var respErr *ResponseError
	var netErr *NetworkError
	switch {
	case errors.Is(err, ErrOutcomeUnknown):
		return CallOutcomeUnknown
	case errors.As(err, &apiErr), errors.As(err, &respErr):
		return CallGatewayError
	case errors.As(err, &netErr):
		return CallNetworkError
	}
	return CallRefused
}

// gatewayCode returns the gateway's code err carries, or 0.
func gatewayCode(err error) ErrorCode {
	var apiErr *Error
	if err != nil && errors.As(err, &apiErr) {
		return apiErr.Code
	}
	return 0
}

// errorClassOf classifies a failed exchange's error.
func errorClassOf(err error) ErrorClass {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var netErr net.Error
	var tlsErr *tls.RecordHeaderError
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.Is(err, context.Canceled):
		return ErrorClassCanceled
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return ErrorClassTimeout
	case errors.As(err, &dnsErr):
		return ErrorClassDNS
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return ErrorClassConnect
	case errors.As(err, &tlsErr), errors.As(err, &certErr):
		return ErrorClassTLS
	case errors.Is(err, errBodyTooLarge):
		return ErrorClassBodyTooLarge
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return ErrorClassConnectionLost
	}
	return ErrorClassOther
}

func (p *Payment) declined() bool { return p.Failed() }

func (r *successResponse) declined() bool { return r.Success != nil && !*r.Success }

func (r *payoutTypesResponse) declined() bool { return r.Success != nil && !*r.Success }

func (r *payoutResponse) declined() bool { return r.Success != nil && !*r.Success }
