package paygate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
)

// CallbackFunc processes one verified callback: fulfil the order, record a
// refund, and so on. Return nil only once the callback is durably handled;
// an error makes the handler answer 500 so that the gateway delivers the
// callback again.
type CallbackFunc func(ctx context.Context, cb *Callback) error

// CallbackHandler is an http.Handler for the endpoint the gateway POSTs
// callbacks to. It answers:
//
//   - 200 with body "OK" when fn returned nil, or when the callback (the
//     same set of signed values: see [DedupKey]) was already processed;
//   - 403 for a missing or wrong signature, an empty body included;
//   - 400 for a correctly signed callback that cannot be read: see
//     [CallbackVerifier.ParseValues] (a field sent twice is one such);
//   - 405 for a method other than POST;
//   - 413 for a body over MaxCallbackBytes (64 KiB);
//   - 500 when fn failed or the de-duplication store failed, so that the
//     gateway delivers again (a panic in fn releases the claim and goes on
//     to net/http, which drops the connection: delivered again too);
//   - 503 with Retry-After when the de-duplication store reports the same
//     callback in progress elsewhere and cannot wait for it.
//
// Nothing of a callback that failed verification reaches fn, and answers
// never echo what was received. When the store keeps order (a
// [CallbackOrderStore], as the default MemoryDedupStore does), fn sees
// [Callback.Stale] set on a callback older than one already processed for
// the same transaction.
type CallbackHandler struct {
	verifier *CallbackVerifier
	fn       CallbackFunc
	dedup    CallbackDedupStore
	logger   *slog.Logger
	observer CallbackObserver
}

// CallbackHandlerOption configures NewCallbackHandler.
type CallbackHandlerOption func(*CallbackHandler)

// WithDedupStore sets where the handler records processed callbacks. The
// default is a [MemoryDedupStore] of DefaultDedupCapacity entries, which
// forgets on restart and is not shared between processes; when the
// endpoint runs on several replicas, pass a shared store: the modules
// github.com/paygate/paygate-go/dedup/redisdedup and .../dedup/pgdedup
// provide one on Redis and on PostgreSQL. nil turns de-duplication (and
// Callback.Stale) off, for a fn that is idempotent by itself.
func WithDedupStore(s CallbackDedupStore) CallbackHandlerOption {
	return func(h *CallbackHandler) { h.dedup = s }
}

// WithCallbackLogger logs rejected callbacks at warn level and failures of
// fn or of the store at error level: the reason and the transaction id
// when verified, never the body or a key. By default nothing is logged.
func WithCallbackLogger(l *slog.Logger) CallbackHandlerOption {
	return func(h *CallbackHandler) { h.logger = l }
}

// NewCallbackHandler returns a handler that verifies callbacks with any of
// privateKeys (more than one during a key rotation) and passes each one
// once to fn.
func NewCallbackHandler(privateKeys []string, fn CallbackFunc, opts ...CallbackHandlerOption) (*CallbackHandler, error) {
	v, err := NewCallbackVerifier(privateKeys)
	if err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, errors.New("paygate: nil CallbackFunc")
	}
	h := &CallbackHandler{verifier: v, fn: fn, dedup: NewMemoryDedupStore(DefaultDedupCapacity)}
	for _, o := range opts {
		o(h)
	}
	return h, nil
}

// ServeHTTP verifies, de-duplicates and processes one callback delivery.
func (h *CallbackHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.observer != nil {
		h.serveObserved(w, r)
		return
	}
	h.serve(w, r)
}

// serve is ServeHTTP; it returns the callback (nil when refused), the
// status answered and the error behind any answer but 200.
func (h *CallbackHandler) serve(w http.ResponseWriter, r *http.Request) (*Callback, int, error) {
	cb, err := h.verifier.ParseRequest(r)
	if err != nil {
		code := callbackErrorStatus(err)
		if code == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", http.MethodPost)
		}
		h.log(r.Context(), slog.LevelWarn, "paygate callback rejected", nil, err, slog.Int("status", code))
		http.Error(w, http.StatusText(code), code)
		return nil, code, err
	}
	if err := h.process(r.Context(), cb); err != nil {
		if errors.Is(err, errDedupBusy) {
			w.Header().Set("Retry-After", "5")
			http.Error(w, http.StatusText(http.StatusServiceUnavailable), http.StatusServiceUnavailable)
			return cb, http.StatusServiceUnavailable, err
		}
		h.log(r.Context(), slog.LevelError, "paygate callback not processed", cb, err)
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return cb, http.StatusInternalServerError, err
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "OK")
	return cb, http.StatusOK, nil
}

// String describes the handler without its keys.
func (h *CallbackHandler) String() string {
	return fmt.Sprintf("paygate.CallbackHandler{keys: %d}", len(h.verifier.signers))
}

// GoString is String, so that %#v never prints a private key.
func (h *CallbackHandler) GoString() string { return h.String() }

// Format prints String for every verb, so that %v, %+v and %#v never print
// a private key.
func (h *CallbackHandler) Format(f fmt.State, _ rune) { io.WriteString(f, h.String()) }

var errDedupBusy = errors.New("paygate: the same callback is being processed")

// process runs fn once per callback (see DedupKey): a claim is taken
// before fn runs, marked done only when fn returned nil, and released
// otherwise so that a later delivery runs fn again.
func (h *CallbackHandler) process(ctx context.Context, cb *Callback) error {
	if h.dedup == nil {
		return h.call(ctx, cb)
	}
	key := cb.DedupKey()
	claim, err := h.dedup.Claim(ctx, key)
	if err != nil {
		return fmt.Errorf("de-duplication store: %w", err)
	}
	switch claim {
	case DedupProcessed:
		return nil
	case DedupBusy:
		return errDedupBusy
	}
	done := false
	defer func() {
		if !done {
			// fn failed or panicked: let a later delivery try again. The
			// store must hear of it even if the request's context ended.
			if rerr := h.dedup.Release(context.WithoutCancel(ctx), key); rerr != nil {
				h.log(ctx, slog.LevelError, "paygate callback claim not released", cb, rerr)
			}
		}
	}()
	if order, ok := h.dedup.(CallbackOrderStore); ok {
		latest, err := order.LatestStatus(ctx, key.Transaction)
		if err != nil {
			return fmt.Errorf("de-duplication store: %w", err)
		}
		cb.Stale = key.staleAfter(latest)
	}
	if err := h.call(ctx, cb); err != nil {
		return err
	}
	done = true
	if err := h.dedup.Complete(context.WithoutCancel(ctx), key); err != nil {
		// fn succeeded: acknowledge, or the gateway would deliver again
		// and fn would run twice.
		h.log(ctx, slog.LevelError, "paygate callback processed but not recorded", cb, err)
	}
	return nil
}

func (h *CallbackHandler) call(ctx context.Context, cb *Callback) error {
	cb.passed = true
	if err := h.fn(ctx, cb); err != nil {
		return fmt.Errorf("callback function: %w", err)
	}
	return nil
}

func (h *CallbackHandler) log(ctx context.Context, level slog.Level, msg string, cb *Callback, err error, extra ...slog.Attr) {
	if h.logger == nil || !h.logger.Enabled(ctx, level) {
		return
	}
	attrs := extra
	if cb != nil {
		attrs = append(attrs, slog.String("id", cb.ID.String()), slog.String("callback_status", string(cb.Status)))
	}
	attrs = append(attrs, slog.String("error", err.Error()))
	h.logger.LogAttrs(ctx, level, msg, attrs...)
}

// callbackErrorStatus maps a ParseRequest error to the HTTP status the
// handler answers with.
func callbackErrorStatus(err error) int {
	switch {
	case errors.Is(err, ErrCallbackMethod):
		return http.StatusMethodNotAllowed
	case errors.Is(err, ErrCallbackTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrSignatureMissing), errors.Is(err, ErrSignatureInvalid):
		return http.StatusForbidden
	default:
		return http.StatusBadRequest
	}
}
