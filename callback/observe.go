package callback

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"
)

// Observer learns what a [Handler] did with each delivery, for tracing and
// metrics; give it with [WithObserver]. It works as paygate.Observer does
// for the client's calls (and paygateotel's observer is both): a
// per-delivery [Trace] carries what the observer keeps between start and
// end, and a handler without an observer pays one nil check.
//
// It receives the request's method, path (never its query), route and
// host, the headers it names (see [HeaderObserver]), the callback's
// status, the verdict, the HTTP status answered, the duration and, once
// the signature verified, the transaction id and the merchant's order id.
// It never receives the body, the signature, the keys, a credential
// header, or anything of a delivery that failed verification beyond why
// it was refused. It must be safe for concurrent use.
type Observer interface {
	// StartCallback is called as a delivery arrives. The context it
	// returns is the one the handler's Func receives (so a span
	// it holds is the parent of the work done for the callback); return
	// ctx to keep it. A nil Trace asks for nothing more.
	StartCallback(ctx context.Context, delivery Delivery) (context.Context, Trace)
}

// HeaderObserver is an Observer that reads some of a delivery's request
// headers, to continue a trace that the sender (the gateway, a proxy in
// front of the handler) started: the handler puts the headers that
// DeliveryHeaders names into [Delivery.Header]. Authorization,
// Proxy-Authorization and Cookie are never given, named or not: they are
// credentials.
type HeaderObserver interface {
	Observer
	// DeliveryHeaders names the headers, in any case (traceparent,
	// tracestate: a propagator's Fields). It is asked at every delivery,
	// so that a list that changes (a global propagator set after the
	// handler was made) is followed.
	DeliveryHeaders() []string
}

// Trace receives the end of one delivery.
type Trace interface {
	// End reports how the delivery ended; it is always called, once.
	End(Result)
}

// VerifiedTrace is a Trace that also hears of a delivery once its
// signature verified, before the de-duplication store and the Func see
// it: the context Verified returns is theirs (return ctx to keep it). An
// observer that decides by the callback's status (to leave out the spans
// of one status, say) can start its span there, dated from the arrival. A
// refused delivery is never Verified: End follows StartCallback directly.
type VerifiedTrace interface {
	Trace
	Verified(ctx context.Context, delivery VerifiedDelivery) context.Context
}

// Delivery describes a delivery as it arrives.
type Delivery struct {
	// Method is the request's HTTP method (the gateway POSTs).
	Method string
	// Path is the request's URL path, never its query. It is what the
	// sender asked for: anything a shop puts in its callback URL's path
	// is in it.
	Path string
	// Route is the path of the http.ServeMux pattern that routed the
	// request ("/paygate/callback" for "POST /paygate/callback", from
	// http.Request.Pattern), or empty when none did.
	Route string
	// Host is the host the request was sent to (its Host header), with
	// the port when it named one.
	Host string
	// TLS reports a request received over TLS (by this server: a proxy
	// in front of it may have received it otherwise).
	TLS bool
	// Header holds the request's headers that a [HeaderObserver] named,
	// those present; nil otherwise. It is the observer's to read, not to
	// change.
	Header http.Header
}

// VerifiedDelivery describes a delivery whose signature verified; see
// [VerifiedTrace].
type VerifiedDelivery struct {
	// Status is the callback's status.
	Status Status
	// TransactionID and OrderID are the callback's.
	TransactionID ID
	OrderID       string
}

// Result describes what the handler did with a delivery.
type Result struct {
	// Verdict classifies it; see [Verdict].
	Verdict Verdict
	// Refusal says why a delivery was refused; empty otherwise.
	Refusal Refusal
	// Status is the callback's status, once verified; empty otherwise.
	Status Status
	// HTTPStatus is the status the handler answered.
	HTTPStatus int
	// Duration is the whole delivery: reading, verification, the store
	// and the Func.
	Duration time.Duration
	// TransactionID and OrderID are the verified callback's, or zero.
	TransactionID ID
	OrderID       string
}

// Verdict classifies what the handler did with a delivery, with
// few enough values to be a metric's attribute.
type Verdict string

const (
	// VerdictProcessed: the Func ran and returned nil.
	VerdictProcessed Verdict = "processed"
	// VerdictStale: processed, with [Callback.Stale] set: a later status
	// of the same transaction had been processed first.
	VerdictStale Verdict = "stale"
	// VerdictDuplicate: already processed; acknowledged again without
	// running the Func.
	VerdictDuplicate Verdict = "duplicate"
	// VerdictRefused: not verified or not readable; see [Refusal].
	VerdictRefused Verdict = "refused"
	// VerdictFailed: the Func or the de-duplication store
	// failed; answered 500, so the gateway delivers again.
	VerdictFailed Verdict = "failed"
	// VerdictBusy: the same callback was in progress elsewhere; answered
	// 503 with Retry-After, so the gateway delivers again.
	VerdictBusy Verdict = "busy"
)

// Refusal says why a delivery was refused.
type Refusal string

const (
	// RefusedMethod: not a POST (answered 405).
	RefusedMethod Refusal = "method"
	// RefusedTooLarge: a body over MaxBytes (413).
	RefusedTooLarge Refusal = "too_large"
	// RefusedSignatureMissing: an empty body or no signature (403).
	RefusedSignatureMissing Refusal = "signature_missing"
	// RefusedSignatureInvalid: a signature made with none of the keys, or
	// over other values (403).
	RefusedSignatureInvalid Refusal = "signature_invalid"
	// RefusedMalformed: a body that is not a form, or a signed callback
	// that cannot be read (400).
	RefusedMalformed Refusal = "malformed"
)

// WithObserver sets the observer told about every delivery (see
// [Observer]).
func WithObserver(o Observer) Option {
	return func(h *Handler) { h.observer = o }
}

// serveObserved is ServeHTTP told to h's observer.
func (h *Handler) serveObserved(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	ctx, trace := h.observer.StartCallback(r.Context(), h.delivery(r))
	if ctx != r.Context() {
		r = r.WithContext(ctx)
	}
	cb, status, err := h.serve(w, r, trace)
	if trace == nil {
		return
	}
	res := Result{Verdict: callbackVerdict(cb, err), HTTPStatus: status, Duration: time.Since(began)}
	if cb == nil {
		res.Refusal = callbackRefusal(err)
	} else {
		res.Status, res.TransactionID, res.OrderID = cb.Status, cb.ID, cb.OrderID
	}
	trace.End(res)
}

// delivery describes r to the observer.
func (h *Handler) delivery(r *http.Request) Delivery {
	d := Delivery{Method: r.Method, Path: r.URL.Path, Route: patternPath(r.Pattern), Host: r.Host, TLS: r.TLS != nil}
	if ho, ok := h.observer.(HeaderObserver); ok {
		d.Header = namedHeaders(r.Header, ho.DeliveryHeaders())
	}
	return d
}

// patternPath is the path of a ServeMux pattern, "[METHOD ][HOST]/PATH",
// as otelhttp takes http.route from it.
func patternPath(pattern string) string {
	if i := strings.IndexByte(pattern, '/'); i >= 0 {
		return pattern[i:]
	}
	return ""
}

// namedHeaders returns the headers of names that are present in header,
// but the credentials (see HeaderObserver); nil when none is. A name is
// matched without regard to case, and without canonicalizing it (which
// allocates for the lower-case names propagators give); the values are the
// request's own, not copies.
func namedHeaders(header http.Header, names []string) http.Header {
	var out http.Header
	for _, name := range names {
		key, values := lookupHeader(header, name)
		if len(values) == 0 || credentialHeader(key) {
			continue
		}
		if out == nil {
			out = make(http.Header, len(names))
		}
		out[key] = values
	}
	return out
}

// lookupHeader finds name in header, whose keys net/http has
// canonicalized, and returns its key.
func lookupHeader(header http.Header, name string) (string, []string) {
	if values, ok := header[name]; ok {
		return name, values
	}
	for key, values := range header {
		if strings.EqualFold(key, name) {
			return key, values
		}
	}
	return "", nil
}

// credentialHeader reports the canonical keys of the headers that carry
// credentials, which no observer is given.
func credentialHeader(key string) bool {
	switch key {
	case "Authorization", "Proxy-Authorization", "Cookie":
		return true
	}
	return false
}

func callbackVerdict(cb *Callback, err error) Verdict {
	switch {
	case cb == nil:
		return VerdictRefused
	case errors.Is(err, errDedupBusy):
		return VerdictBusy
	case err != nil:
		return VerdictFailed
	case !cb.passed:
		return VerdictDuplicate
	case cb.Stale:
		return VerdictStale
	}
	return VerdictProcessed
}

func callbackRefusal(err error) Refusal {
	switch {
	case errors.Is(err, ErrMethod):
		return RefusedMethod
	case errors.Is(err, ErrTooLarge):
		return RefusedTooLarge
	case errors.Is(err, ErrSignatureMissing):
		return RefusedSignatureMissing
	case errors.Is(err, ErrSignatureInvalid):
		return RefusedSignatureInvalid
	}
	return RefusedMalformed
}
