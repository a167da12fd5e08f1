package paygate

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// CallbackObserver learns what a [CallbackHandler] did with each delivery,
// for tracing and metrics; give it with [WithCallbackObserver]. It works as
// [Observer] does for calls (and paygateotel's observer is both): a
// per-delivery [CallbackTrace] carries what the observer keeps between
// start and end, and a handler without an observer pays one nil check.
//
// It receives the callback's status, the verdict, the HTTP status
// answered, the duration and, once the signature verified, the transaction
// id and the merchant's order id. It never receives the body, the
// signature, the keys, or anything of a delivery that failed verification
// beyond why it was refused. It must be safe for concurrent use.
type CallbackObserver interface {
	// StartCallback is called as a delivery arrives. The context it
	// returns is the one the handler's CallbackFunc receives (so a span
	// it holds is the parent of the work done for the callback); return
	// ctx to keep it. A nil CallbackTrace asks for nothing more.
	StartCallback(ctx context.Context, delivery CallbackDelivery) (context.Context, CallbackTrace)
}

// CallbackTrace receives the end of one delivery.
type CallbackTrace interface {
	// End reports how the delivery ended; it is always called, once.
	End(CallbackResult)
}

// CallbackDelivery describes a delivery as it arrives.
type CallbackDelivery struct {
	// Method is the request's HTTP method (the gateway POSTs).
	Method string
}

// CallbackResult describes what the handler did with a delivery.
type CallbackResult struct {
	// Verdict classifies it; see [CallbackVerdict].
	Verdict CallbackVerdict
	// Refusal says why a delivery was refused; empty otherwise.
	Refusal CallbackRefusal
	// Status is the callback's status, once verified; empty otherwise.
	Status CallbackStatus
	// HTTPStatus is the status the handler answered.
	HTTPStatus int
	// Duration is the whole delivery: reading, verification, the store
	// and the CallbackFunc.
	Duration time.Duration
	// TransactionID and OrderID are the verified callback's, or zero.
	TransactionID ID
	OrderID       string
}

// CallbackVerdict classifies what the handler did with a delivery, with
// few enough values to be a metric's attribute.
type CallbackVerdict string

const (
	// VerdictProcessed: the CallbackFunc ran and returned nil.
	VerdictProcessed CallbackVerdict = "processed"
	// VerdictStale: processed, with [Callback.Stale] set: a later status
	// of the same transaction had been processed first.
	VerdictStale CallbackVerdict = "stale"
	// VerdictDuplicate: already processed; acknowledged again without
	// running the CallbackFunc.
	VerdictDuplicate CallbackVerdict = "duplicate"
	// VerdictRefused: not verified or not readable; see [CallbackRefusal].
	VerdictRefused CallbackVerdict = "refused"
	// VerdictFailed: the CallbackFunc or the de-duplication store
	// failed; answered 500, so the gateway delivers again.
	VerdictFailed CallbackVerdict = "failed"
	// VerdictBusy: the same callback was in progress elsewhere; answered
	// 503 with Retry-After, so the gateway delivers again.
	VerdictBusy CallbackVerdict = "busy"
)

// CallbackRefusal says why a delivery was refused.
type CallbackRefusal string

const (
	// RefusedMethod: not a POST (answered 405).
	RefusedMethod CallbackRefusal = "method"
	// RefusedTooLarge: a body over MaxCallbackBytes (413).
	RefusedTooLarge CallbackRefusal = "too_large"
	// RefusedSignatureMissing: an empty body or no signature (403).
	RefusedSignatureMissing CallbackRefusal = "signature_missing"
	// RefusedSignatureInvalid: a signature made with none of the keys, or
	// over other values (403).
	RefusedSignatureInvalid CallbackRefusal = "signature_invalid"
	// RefusedMalformed: a body that is not a form, or a signed callback
	// that cannot be read (400).
	RefusedMalformed CallbackRefusal = "malformed"
)

// WithCallbackObserver sets the observer told about every delivery (see
// [CallbackObserver]).
func WithCallbackObserver(o CallbackObserver) CallbackHandlerOption {
	return func(h *CallbackHandler) { h.observer = o }
}

// serveObserved is ServeHTTP told to h's observer.
func (h *CallbackHandler) serveObserved(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	ctx, trace := h.observer.StartCallback(r.Context(), CallbackDelivery{Method: r.Method})
	if ctx != r.Context() {
		r = r.WithContext(ctx)
	}
	cb, status, err := h.serve(w, r)
	if trace == nil {
		return
	}
	res := CallbackResult{Verdict: callbackVerdict(cb, err), HTTPStatus: status, Duration: time.Since(began)}
	if cb == nil {
		res.Refusal = callbackRefusal(err)
	} else {
		res.Status, res.TransactionID, res.OrderID = cb.Status, cb.ID, cb.OrderID
	}
	trace.End(res)
}

func callbackVerdict(cb *Callback, err error) CallbackVerdict {
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

func callbackRefusal(err error) CallbackRefusal {
	switch {
	case errors.Is(err, ErrCallbackMethod):
		return RefusedMethod
	case errors.Is(err, ErrCallbackTooLarge):
		return RefusedTooLarge
	case errors.Is(err, ErrSignatureMissing):
		return RefusedSignatureMissing
	case errors.Is(err, ErrSignatureInvalid):
		return RefusedSignatureInvalid
	}
	return RefusedMalformed
}
