package callback

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/internal/callbackform"
	"github.com/paygate/paygate-go/internal/signing"
)

// A key NewVerifier refuses is refused by NewHandler too: a handler that
// came back would panic on the first callback.
func TestNewHandler_RefusesTheKeysNewVerifierRefuses(t *testing.T) {
	fn := func(context.Context, *Callback) error { return nil }
	for name, keys := range map[string][]string{
		"an empty key":          {""},
		"an empty key of two":   {testSecret, ""},
		"no key":                nil,
		"an empty list of keys": {},
	} {
		t.Run(name, func(t *testing.T) {
			_, verr := NewVerifier(keys)
			require.Error(t, verr)
			h, err := NewHandler(keys, fn)
			require.Error(t, err)
			assert.Nil(t, h)
			assert.Equal(t, verr.Error(), err.Error(), "the verifier's reason is the handler's")
		})
	}
}

// contractStore is a third party's Store that checks the contract the
// handler must keep with it: each claim it grants ends with exactly one
// of Complete and Release, and nothing is called for a key it holds no
// claim of. claim is what Claim answers; completeErr and releaseErr are
// what Complete and Release return.
type contractStore struct {
	claim                   Claim
	completeErr, releaseErr error

	mu         sync.Mutex
	held       map[Key]bool
	calls      []string // "Claim", "Complete", "Release" in order
	violations []string
}

func newContractStore(claim Claim) *contractStore {
	return &contractStore{claim: claim, held: map[Key]bool{}}
}

func (s *contractStore) Claim(_ context.Context, k Key) (Claim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, "Claim")
	if s.claim == Acquired {
		s.held[k] = true
	}
	return s.claim, nil
}

func (s *contractStore) Complete(_ context.Context, k Key) error {
	return s.end("Complete", k, s.completeErr)
}

func (s *contractStore) Release(_ context.Context, k Key) error {
	return s.end("Release", k, s.releaseErr)
}

func (s *contractStore) end(call string, k Key, err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call)
	if !s.held[k] {
		s.violations = append(s.violations, call+" of a key without a claim (the claim already ended, or none was granted)")
	}
	delete(s.held, k)
	return err
}

// check fails t unless every claim granted ended exactly once, and returns
// the calls made.
func (s *contractStore) check(t *testing.T) []string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.Empty(t, s.violations, "the Store contract: Complete or Release, once, per claim")
	assert.Empty(t, s.held, "a claim left neither completed nor released")
	return s.calls
}

func TestCallbackHandler_EachClaimEndsInCompleteOrRelease(t *testing.T) {
	s := newTestCallbackSigner(testSecret, FormExtended)
	for _, tc := range []struct {
		name      string
		fn        Func
		store     func() *contractStore
		status    int
		wantCalls []string
	}{
		{"processed", func(context.Context, *Callback) error { return nil },
			func() *contractStore { return newContractStore(Acquired) }, http.StatusOK, []string{"Claim", "Complete"}},
		{"fn failed", func(context.Context, *Callback) error { return errors.New("database down") },
			func() *contractStore { return newContractStore(Acquired) }, http.StatusInternalServerError, []string{"Claim", "Release"}},
		{"processed, not recorded", func(context.Context, *Callback) error { return nil },
			func() *contractStore {
				st := newContractStore(Acquired)
				st.completeErr = errors.New("connection reset")
				return st
			}, http.StatusInternalServerError, []string{"Claim", "Complete"}},
		{"processed already", func(context.Context, *Callback) error { t.Error("fn ran for a processed callback"); return nil },
			func() *contractStore { return newContractStore(Processed) }, http.StatusOK, []string{"Claim"}},
		{"busy", func(context.Context, *Callback) error { t.Error("fn ran for a busy callback"); return nil },
			func() *contractStore { return newContractStore(Busy) }, http.StatusServiceUnavailable, []string{"Claim"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := tc.store()
			h := newTestCallbackHandler(t, tc.fn, WithStore(store))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, callbackRequest(callbackform.Encode(s.Values(Completed, nil))))
			assert.Equal(t, tc.status, w.Code)
			if tc.status == http.StatusOK {
				assert.Equal(t, "OK", w.Body.String())
				assert.Equal(t, "text/plain; charset=utf-8", w.Header().Get("Content-Type"), "the acknowledgement says what it is")
			}
			assert.Equal(t, tc.wantCalls, store.check(t))
		})
	}
	t.Run("fn panicked", func(t *testing.T) {
		store := newContractStore(Acquired)
		h := newTestCallbackHandler(t, func(context.Context, *Callback) error { panic("fn's bug") }, WithStore(store))
		assert.Panics(t, func() {
			h.ServeHTTP(httptest.NewRecorder(), callbackRequest(callbackform.Encode(s.Values(Completed, nil))))
		})
		assert.Equal(t, []string{"Claim", "Release"}, store.check(t))
	})
}

// A busy answer is told to the observer as what it is: the callback (its
// status and ids) and the 503 answered, as the gateway saw it.
func TestObserver_BusyReportsTheCallbackAnd503(t *testing.T) {
	s := newTestCallbackSigner(testSecret, FormExtended)
	o := &fakeObserver{}
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error {
		t.Error("fn ran for a callback in progress elsewhere")
		return nil
	}, WithStore(newContractStore(Busy)), WithObserver(o))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, callbackRequest(callbackform.Encode(s.Values(Completed, map[string][]string{"order_id": {"ord-7"}}))))
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Equal(t, "5", w.Header().Get("Retry-After"))
	r := o.last(t)
	assert.Equal(t, Result{
		Verdict: VerdictBusy, Status: Completed, HTTPStatus: http.StatusServiceUnavailable,
		Duration: r.Duration, TransactionID: testCallbackID, OrderID: "ord-7",
	}, r)
}

// A claim that could not be released is logged: until its lease ends no
// delivery of the callback runs fn, and the operator must know why.
func TestCallbackHandler_AFailedReleaseIsLogged(t *testing.T) {
	s := newTestCallbackSigner(testSecret, FormExtended)
	store := newContractStore(Acquired)
	store.releaseErr = errors.New("release: connection refused")
	var logs strings.Builder
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error { return errors.New("database down") },
		WithStore(store), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	values := s.Values(Completed, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, callbackRequest(callbackform.Encode(values)))
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	var released string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "claim not released") {
			released = line
		}
	}
	require.NotEmpty(t, released, "the failed Release is logged: %s", logs.String())
	assert.Contains(t, released, "level=ERROR")
	assert.Contains(t, released, "release: connection refused")
	assert.Contains(t, released, "id="+testCallbackID.String())
	assert.Contains(t, released, "callback_status=completed")
	assert.NotContains(t, logs.String(), values.Get(signing.Param), "never the body")
	assert.NotContains(t, logs.String(), testSecret)
}

// A handler prints as its kind and number of keys, whatever the verb,
// never a key and never nothing.
func TestCallbackHandler_PrintsItsKindNeverAKey(t *testing.T) {
	h, err := NewHandler([]string{testSecret, "sk_previous_91c2"}, func(context.Context, *Callback) error { return nil })
	require.NoError(t, err)
	const want = "callback.Handler{keys: 2}"
	assert.Equal(t, want, h.String())
	assert.Equal(t, want, h.GoString())
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d", "%q"} {
		assert.Equal(t, want, fmt.Sprintf(verb, h), verb)
	}
	var logs strings.Builder
	slog.New(slog.NewTextHandler(&logs, nil)).Info("handler", "h", h)
	assert.Contains(t, logs.String(), want)
	assert.NotContains(t, logs.String(), testSecret)
}

// The default store timeout is a quarter of a leased store's lease, and any
// timeout above zero is one: the bounds NewHandler checks are exact.
func TestNewHandler_StoreTimeoutBoundsAreExact(t *testing.T) {
	fn := func(context.Context, *Callback) error { return nil }
	h, err := NewHandler([]string{testSecret}, fn, WithStore(newLeasedStore(8*time.Second)))
	require.NoError(t, err)
	assert.Equal(t, 2*time.Second, h.dedupTimeout, "a quarter of the lease")
	h, err = NewHandler([]string{testSecret}, fn)
	require.NoError(t, err)
	assert.Equal(t, DefaultStoreTimeout, h.dedupTimeout, "a store without a lease")
	_, err = NewHandler([]string{testSecret}, fn, WithStoreTimeout(time.Nanosecond))
	assert.NoError(t, err, "the shortest timeout above zero")
}
