package callback

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"time"
)

// Func processes one verified callback: fulfil the order, record a
// refund, and so on. Return nil only once the callback is durably handled;
// an error makes the handler answer 500 so that the gateway delivers the
// callback again.
type Func func(ctx context.Context, cb *Callback) error

// Handler is an http.Handler for the endpoint the gateway POSTs
// callbacks to. It answers:
//
//   - 200 with body "OK" when fn returned nil, or when the callback (the
//     same set of signed values: see [Key]) was already processed;
//   - 403 for a missing or wrong signature, an empty body included;
//   - 400 for a correctly signed callback that cannot be read: see
//     [Verifier.ParseValues] (a field sent twice is one such);
//   - 405 for a method other than POST;
//   - 413 for a body over MaxBytes (64 KiB);
//   - 500 when fn failed or the de-duplication store failed or did not
//     answer within the store timeout (see [WithStoreTimeout]), so that the
//     gateway delivers again (a panic in fn releases the claim and goes on
//     to net/http, which drops the connection: delivered again too); this
//     includes a callback fn processed but the store could not record;
//   - 503 with Retry-After when the de-duplication store reports the same
//     callback in progress elsewhere and cannot wait for it.
//
// Nothing of a callback that failed verification reaches fn, and answers
// never echo what was received. When the store keeps order (a
// [OrderStore], as the default MemoryStore does), fn sees
// [Callback.Stale] set on a callback older than one already processed for
// the same transaction.
type Handler struct {
	verifier        *Verifier
	fn              Func
	dedup           Store
	dedupOff        bool
	dedupTimeout    time.Duration // of each store call
	dedupTimeoutSet bool
	logger          *slog.Logger
	observer        Observer
}

// Option configures NewHandler.
type Option func(*Handler)

// WithStore sets where the handler records processed callbacks. The
// default is a [MemoryStore] of DefaultCapacity entries, which
// forgets on restart and is not shared between processes; when the
// endpoint runs on several replicas, pass a shared store: the modules
// github.com/paygate/paygate-go/dedup/redisdedup and .../dedup/pgdedup
// provide one on Redis and on PostgreSQL. A nil store is an error from
// NewHandler, so that a store left unset by mistake cannot turn
// de-duplication off: [WithoutDedup] says so explicitly.
func WithStore(s Store) Option {
	return func(h *Handler) { h.dedup, h.dedupOff = s, false }
}

// WithoutDedup turns de-duplication (and Callback.Stale) off: every
// delivery runs fn, for a fn that is idempotent by itself.
func WithoutDedup() Option {
	return func(h *Handler) { h.dedup, h.dedupOff = nil, true }
}

// WithStoreTimeout sets the deadline of each call the handler makes to its
// de-duplication store (Claim, LatestStatus, Complete, Release), so that a
// stalled store makes the handler answer 500 in bounded time instead of
// holding the delivery until the claim's lease ends and another replica
// runs fn again. The default is a quarter of the store's lease for a
// [LeasedStore] (15 s for the shared stores' default lease of 60 s),
// DefaultStoreTimeout otherwise. NewHandler refuses a timeout of
// zero or less, or one not shorter than the store's lease: a call still
// running when its claim lapsed could record a callback another replica
// is processing.
func WithStoreTimeout(d time.Duration) Option {
	return func(h *Handler) { h.dedupTimeout = d; h.dedupTimeoutSet = true }
}

// WithLogger logs rejected callbacks at warn level and failures of
// fn or of the store at error level: the reason and the transaction id
// when verified, never the body or a key. By default nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(h *Handler) { h.logger = l }
}

// NewHandler returns a handler that verifies callbacks with any of
// privateKeys (more than one during a key rotation) and passes each one
// once to fn.
func NewHandler(privateKeys []string, fn Func, opts ...Option) (*Handler, error) {
	v, err := NewVerifier(privateKeys)
	if err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, errors.New("paygate: nil callback.Func")
	}
	h := &Handler{verifier: v, fn: fn, dedup: NewMemoryStore(DefaultCapacity)}
	for _, o := range opts {
		o(h)
	}
	if err := h.checkDedup(); err != nil {
		return nil, err
	}
	return h, nil
}

// checkDedup refuses a nil store and a store timeout that does not fit the
// store's lease, and sets the default timeout.
func (h *Handler) checkDedup() error {
	if h.dedupOff {
		return nil
	}
	if isNil(h.dedup) {
		return errors.New("paygate: callback.WithStore(nil): pass a store, or callback.WithoutDedup to turn de-duplication off")
	}
	leased, ok := h.dedup.(LeasedStore)
	if !h.dedupTimeoutSet {
		h.dedupTimeout = DefaultStoreTimeout
		if ok {
			h.dedupTimeout = leased.Lease() / 4
		}
	}
	switch {
	case h.dedupTimeout <= 0:
		return fmt.Errorf("paygate: de-duplication store timeout %v: want more than zero", h.dedupTimeout)
	case ok && h.dedupTimeout >= leased.Lease():
		return fmt.Errorf("paygate: de-duplication store timeout %v: want less than the store's lease of %v", h.dedupTimeout, leased.Lease())
	}
	return nil
}

// ServeHTTP verifies, de-duplicates and processes one callback delivery.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.observer != nil {
		h.serveObserved(w, r)
		return
	}
	h.serve(w, r, nil)
}

// serve is ServeHTTP; it returns the callback (nil when refused), the
// status answered and the error behind any answer but 200. A trace that
// is a VerifiedTrace hears of the verified callback first.
func (h *Handler) serve(w http.ResponseWriter, r *http.Request, trace Trace) (*Callback, int, error) {
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
	ctx := r.Context()
	if v, ok := trace.(VerifiedTrace); ok {
		ctx = v.Verified(ctx, VerifiedDelivery{Status: cb.Status, TransactionID: cb.ID, OrderID: cb.OrderID})
	}
	if err := h.process(ctx, cb); err != nil {
		if errors.Is(err, errDedupBusy) {
			w.Header().Set("Retry-After", "5")
			http.Error(w, http.StatusText(http.StatusServiceUnavailable), http.StatusServiceUnavailable)
			return cb, http.StatusServiceUnavailable, err
		}
		msg := "paygate callback not processed"
		if errors.Is(err, errNotRecorded) {
			msg = "paygate callback processed, but recording it failed"
		}
		h.log(ctx, slog.LevelError, msg, cb, err)
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return cb, http.StatusInternalServerError, err
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "OK")
	return cb, http.StatusOK, nil
}

// String describes the handler without its keys.
func (h *Handler) String() string {
	return fmt.Sprintf("callback.Handler{keys: %d}", len(h.verifier.signers))
}

// GoString is String, so that %#v never prints a private key.
func (h *Handler) GoString() string { return h.String() }

// Format prints String for every verb, so that %v, %+v and %#v never print
// a private key.
func (h *Handler) Format(f fmt.State, _ rune) { io.WriteString(f, h.String()) }

var errDedupBusy = errors.New("paygate: the same callback is being processed")

// isNil reports whether s is nil, or a nil pointer (or map, ...) in the
// interface: a store variable left unset by mistake, which would panic on
// the first callback.
func isNil(s Store) bool {
	if s == nil {
		return true
	}
	switch v := reflect.ValueOf(s); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// process runs fn once per callback (see Key): a claim is taken
// before fn runs, marked done only when fn returned nil, and released
// otherwise so that a later delivery runs fn again. Each store call has
// its own deadline, dedupTimeout.
func (h *Handler) process(ctx context.Context, cb *Callback) error {
	if h.dedup == nil {
		return h.call(ctx, cb)
	}
	key := cb.Key()
	claim, err := storeCall(ctx, h.dedupTimeout, func(ctx context.Context) (Claim, error) {
		return h.dedup.Claim(ctx, key)
	})
	if err != nil {
		return fmt.Errorf("de-duplication store: %w", err)
	}
	switch claim {
	case Processed:
		return nil
	case Busy:
		return errDedupBusy
	}
	// The store must hear how the claim ended even if the request's
	// context ended meanwhile.
	detached := context.WithoutCancel(ctx)
	done := false
	defer func() {
		if !done {
			// fn failed or panicked: let a later delivery try again.
			if rerr := storeErr(detached, h.dedupTimeout, func(ctx context.Context) error { return h.dedup.Release(ctx, key) }); rerr != nil {
				h.log(ctx, slog.LevelError, "paygate callback claim not released", cb, rerr)
			}
		}
	}()
	if order, ok := h.dedup.(OrderStore); ok {
		latest, err := storeCall(ctx, h.dedupTimeout, func(ctx context.Context) (Status, error) {
			return order.LatestStatus(ctx, key.Transaction)
		})
		if err != nil {
			return fmt.Errorf("de-duplication store: %w", err)
		}
		cb.Stale = key.staleAfter(latest)
	}
	if err := h.call(ctx, cb); err != nil {
		return err
	}
	done = true
	if err := storeErr(detached, h.dedupTimeout, func(ctx context.Context) error { return h.dedup.Complete(ctx, key) }); err != nil {
		// Not acknowledged, so that the gateway delivers again: if the
		// record was written after all, that delivery is acknowledged
		// without fn; if not, the claim stays until its lease ends and
		// fn runs again then (the exception the stores document).
		return fmt.Errorf("%w: %w", errNotRecorded, err)
	}
	return nil
}

// errNotRecorded marks a callback fn processed but the store did not
// record.
var errNotRecorded = errors.New("callback processed but not recorded by the de-duplication store")

// storeCall runs one store call with its own deadline of timeout.
func storeCall[T any](ctx context.Context, timeout time.Duration, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return f(ctx)
}

// storeErr is storeCall for a call that returns only an error.
func storeErr(ctx context.Context, timeout time.Duration, f func(context.Context) error) error {
	_, err := storeCall(ctx, timeout, func(ctx context.Context) (struct{}, error) { return struct{}{}, f(ctx) })
	return err
}

func (h *Handler) call(ctx context.Context, cb *Callback) error {
	cb.passed = true
	if err := h.fn(ctx, cb); err != nil {
		return fmt.Errorf("callback function: %w", err)
	}
	return nil
}

func (h *Handler) log(ctx context.Context, level slog.Level, msg string, cb *Callback, err error, extra ...slog.Attr) {
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
	case errors.Is(err, ErrMethod):
		return http.StatusMethodNotAllowed
	case errors.Is(err, ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrSignatureMissing), errors.Is(err, ErrSignatureInvalid):
		return http.StatusForbidden
	default:
		return http.StatusBadRequest
	}
}
