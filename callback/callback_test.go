package callback

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/internal/callbackform"
	"github.com/paygate/paygate-go/internal/signing"
	"github.com/paygate/paygate-go/internal/testkit/deadline"
	"github.com/paygate/paygate-go/internal/wire"
)

var updateCallbackFixtures = flag.Bool("update-callbacks", false, "re-sign ../testdata/callbacks/*.txt with the test key")

// callbackFixtureNames are the callback bodies in testdata/callbacks, as the
// gateway sends them, signed with testSecret.
var callbackFixtureNames = []string{
	"extended_completed.txt", "extended_refund_completed.txt", "extended_payout_failed.txt",
	"extended_empty_fields.txt", "basic_completed.txt", "basic_reversed.txt",
}

// TestCallbackFixtures_AreSignedWithTestKey keeps the fixtures valid; run
// with -update-callbacks after editing one to sign it again.
func TestCallbackFixtures_AreSignedWithTestKey(t *testing.T) {
	for _, name := range callbackFixtureNames {
		path := filepath.Join("..", "testdata", "callbacks", name)
		if *updateCallbackFixtures {
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			unsigned, _, _ := strings.Cut(string(raw), "&signature=")
			values, err := url.ParseQuery(unsigned)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, []byte(unsigned+"&signature="+sign(values, testSecret)), 0o644))
		}
		values, err := url.ParseQuery(callbackFixture(t, name))
		require.NoError(t, err, name)
		require.NoError(t, signing.New(testSecret).Verify(values), name)
	}
}

func TestParseRequest_FixturesDecodeIntoTypedFields(t *testing.T) {
	d := decimal.RequireFromString
	tests := []struct {
		fixture string
		want    Callback
	}{
		{"extended_completed.txt", Callback{
			Project: "10042", User: "7301", ID: 9007199254740993, OrderID: "order-1001",
			Amount: d("10.00"), Price: d("10.0000"), Deposit: d("0"), Earned: d("9.71"), VATRate: d("0.2"), VATAmount: d("1.6667"),
			Currency: "EUR", Type: TypeTransaction, Status: Completed, Sandbox: true,
			Attrs: map[string]string{"plan": "gold", "realm": "eu-west"}, Form: FormExtended,
		}},
		{"extended_refund_completed.txt", Callback{
			Project: "10042", User: "7301", ID: 9007199254740994, ReferenceID: 9007199254740993, OrderID: "order-1001",
			Amount: d("10"), Price: d("10"), Deposit: d("0"), Earned: d("-10"), VATRate: d("0.2"), VATAmount: d("1.6667"),
			Currency: "EUR", Type: TypeTransaction, Status: RefundCompleted, Reason: "Requested by customer",
			Sandbox: true, Form: FormExtended,
		}},
		{"extended_payout_failed.txt", Callback{
			Project: "10042", User: "7301", ID: 1234567890123456789, OrderID: "payout-77",
			Price: d("250.5"), Currency: "USD", Type: TypeTransaction, Status: PayoutFailed,
			Reason: "Beneficiary account closed", Form: FormExtended,
		}},
		{"extended_empty_fields.txt", Callback{
			Project: "10042", ID: 9007199254740995, Type: TypeTransaction, Status: Processing, Form: FormExtended,
		}},
		{"basic_completed.txt", Callback{
			Project: "10042", User: "7301", ID: 9007199254740993, OrderID: "order-1001",
			Amount: d("10"), Price: d("10"), Earned: d("9.71"), Currency: "EUR", Status: Completed, Sandbox: true, Form: FormBasic,
		}},
		{"basic_reversed.txt", Callback{
			Project: "10042", User: "7301", ID: 9007199254740996, ReferenceID: 9007199254740993, OrderID: "order-1001",
			Amount: d("10"), Price: d("10.5"), Earned: d("-10.5"), Currency: "EUR", Status: Reversed, Form: FormBasic,
		}},
	}
	v := testVerifier(t)
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			cb, err := v.ParseRequest(callbackRequest(callbackFixture(t, tt.fixture)))
			require.NoError(t, err)
			assertCallback(t, tt.want, cb)
			assert.Equal(t, tt.want.Status.Known(), cb.Status.Known())
			assert.Len(t, cb.Values().Get(signing.Param), 64, "raw values keep the signature")
		})
	}
}

func TestParseRequest_IDAbove2To53IsExact(t *testing.T) {
	cb, err := testVerifier(t).ParseRequest(callbackRequest(callbackFixture(t, "extended_completed.txt")))
	require.NoError(t, err)
	assert.Equal(t, int64(9007199254740993), int64(cb.ID))
	assert.Equal(t, "9007199254740993", cb.ID.String())
}

// TestCallbackHandler_StatusCodes drives the handler with every kind of
// delivery the gateway (or anyone else) may send.
func TestCallbackHandler_StatusCodes(t *testing.T) {
	ext := newTestCallbackSigner(testSecret, FormExtended)
	basic := newTestCallbackSigner(testSecret, FormBasic)
	other := newTestCallbackSigner("sk_someone_else", FormExtended)
	// signedOver signs exactly the given fields, whatever they are.
	signedOver := func(v url.Values) string {
		v.Set(signing.Param, sign(v, testSecret))
		return v.Encode()
	}
	tests := []struct {
		name      string
		req       func() *http.Request
		wantCode  int
		wantCalls int
	}{
		{"extended completed", func() *http.Request { return ext.Request("/cb", Completed, nil) }, 200, 1},
		{"basic completed", func() *http.Request { return basic.Request("/cb", Completed, nil) }, 200, 1},
		{"extended fixture", func() *http.Request { return callbackRequest(callbackFixture(t, "extended_completed.txt")) }, 200, 1},
		{"basic fixture", func() *http.Request { return callbackRequest(callbackFixture(t, "basic_reversed.txt")) }, 200, 1},
		{"unknown status is kept", func() *http.Request { return ext.Request("/cb", "on_hold", nil) }, 200, 1},
		{"fields with empty values", func() *http.Request { return callbackRequest(callbackFixture(t, "extended_empty_fields.txt")) }, 200, 1},
		{"missing signature", func() *http.Request {
			v := ext.Values(Completed, nil)
			v.Del(signing.Param)
			return callbackRequest(v.Encode())
		}, 403, 0},
		{"empty signature", func() *http.Request {
			v := ext.Values(Completed, nil)
			v.Set(signing.Param, "")
			return callbackRequest(v.Encode())
		}, 403, 0},
		{"signature of other values", func() *http.Request {
			v := ext.Values(Completed, nil)
			v.Set("price", "10000.0000")
			return callbackRequest(v.Encode())
		}, 403, 0},
		{"signed with another key", func() *http.Request { return other.Request("/cb", Completed, nil) }, 403, 0},
		{"empty body", func() *http.Request { return callbackRequest("") }, 403, 0},
		{"no body", func() *http.Request { return httptest.NewRequest(http.MethodPost, "/cb", nil) }, 403, 0},
		{"signature in the query only", func() *http.Request {
			v := ext.Values(Completed, nil)
			sig := v.Get(signing.Param)
			v.Del(signing.Param)
			r := callbackRequest(v.Encode())
			r.URL.RawQuery = "signature=" + sig
			return r
		}, 403, 0},
		{"GET", func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "/cb?"+ext.Body(Completed, nil), nil)
		}, 405, 0},
		{"PUT", func() *http.Request {
			r := ext.Request("/cb", Completed, nil)
			r.Method = http.MethodPut
			return r
		}, 405, 0},
		{"body of exactly 64 KiB", func() *http.Request { return callbackRequest(bodyOfSize(t, ext, MaxBytes)) }, 200, 1},
		{"body one byte over 64 KiB", func() *http.Request { return callbackRequest(bodyOfSize(t, ext, MaxBytes+1)) }, 413, 0},
		{"body over 64 KiB without Content-Length", func() *http.Request {
			r := callbackRequest(bodyOfSize(t, ext, MaxBytes+1))
			r.ContentLength = -1
			return r
		}, 413, 0},
		{"body over a limit set by middleware", func() *http.Request {
			r := ext.Request("/cb", Completed, nil)
			r.Body = http.MaxBytesReader(nil, r.Body, 100)
			return r
		}, 413, 0},
		{"id missing", func() *http.Request {
			v := ext.Values(Completed, nil)
			v.Del("id")
			return callbackRequest(signedOver(v))
		}, 400, 0},
		{"id empty", func() *http.Request { return ext.Request("/cb", Completed, url.Values{"id": {""}}) }, 200, 1}, // present but empty: valid
		{"id not numeric", func() *http.Request { return ext.Request("/cb", Completed, url.Values{"id": {"12ab"}}) }, 400, 0},
		{"id negative", func() *http.Request { return ext.Request("/cb", Completed, url.Values{"id": {"-5"}}) }, 400, 0},
		{"id zero", func() *http.Request { return ext.Request("/cb", Completed, url.Values{"id": {"0"}}) }, 200, 1}, // 0 is a value
		{"id beyond 64 bits", func() *http.Request {
			return ext.Request("/cb", Completed, url.Values{"id": {"92233720368547758070"}})
		}, 400, 0},
		{"id twice", func() *http.Request {
			return ext.Request("/cb", Completed, url.Values{"id": {"9007199254740993", "1"}})
		}, 400, 0},
		{"status twice", func() *http.Request {
			return ext.Request("/cb", Completed, url.Values{"status": {"failed", "completed"}})
		}, 400, 0},
		{"status empty", func() *http.Request { return ext.Request("/cb", "", nil) }, 200, 1}, // present but empty: valid
		{"status missing", func() *http.Request {
			v := ext.Values(Completed, nil)
			v.Del("status")
			return callbackRequest(signedOver(v))
		}, 400, 0},
		{"reference_id not numeric", func() *http.Request {
			return ext.Request("/cb", RefundCompleted, url.Values{"reference_id": {"x1"}})
		}, 400, 0},
		{"price with an exponent", func() *http.Request { return ext.Request("/cb", Completed, url.Values{"price": {"1e3"}}) }, 400, 0},
		{"price not a number", func() *http.Request { return basic.Request("/cb", Completed, url.Values{"price": {"ten"}}) }, 400, 0},
		{"sandbox not 0 or 1", func() *http.Request { return ext.Request("/cb", Completed, url.Values{"sandbox": {"yes"}}) }, 400, 0},
		{"body not a form", func() *http.Request { return callbackRequest("id=%zz&signature=abc") }, 400, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			h := newTestCallbackHandler(t, func(context.Context, *Callback) error { calls.Add(1); return nil })
			w := deadline.Serve(t, h, tt.req())
			assert.Equal(t, tt.wantCode, w.Code, w.Body.String())
			assert.Equal(t, int32(tt.wantCalls), calls.Load(), "calls of the callback function")
			if tt.wantCode == 200 {
				assert.Equal(t, "OK", w.Body.String())
			}
			if tt.wantCode == 405 {
				assert.Equal(t, http.MethodPost, w.Header().Get("Allow"))
			}
		})
	}
}

func TestCallbackHandler_FunctionErrorIs500AndRedeliveryRunsAgain(t *testing.T) {
	var calls atomic.Int32
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error {
		if calls.Add(1) == 1 {
			return errors.New("database unavailable")
		}
		return nil
	})
	s := newTestCallbackSigner(testSecret, FormExtended)

	w := deadline.Serve(t, h, s.Request("/cb", Completed, nil))
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.NotContains(t, w.Body.String(), "database", "internal errors are not echoed")

	w = deadline.Serve(t, h, s.Request("/cb", Completed, nil))
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, int32(2), calls.Load())
}

func TestCallbackHandler_PanicReleasesTheClaim(t *testing.T) {
	var calls atomic.Int32
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error {
		if calls.Add(1) == 1 {
			panic("bug")
		}
		return nil
	})
	s := newTestCallbackSigner(testSecret, FormExtended)
	assert.Panics(t, func() { deadline.Serve(t, h, s.Request("/cb", Completed, nil)) })

	w := deadline.Serve(t, h, s.Request("/cb", Completed, nil))
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, int32(2), calls.Load())
}

func TestCallbackHandler_RepeatedDeliveryIsAcknowledgedButProcessedOnce(t *testing.T) {
	for _, f := range []Form{FormExtended, FormBasic} {
		t.Run(f.String(), func(t *testing.T) {
			var got []string
			h := newTestCallbackHandler(t, func(_ context.Context, cb *Callback) error {
				got = append(got, cb.ID.String()+" "+string(cb.Status))
				return nil
			})
			s := newTestCallbackSigner(testSecret, f)
			for _, status := range []Status{Completed, Completed, Reversed, Completed, Reversed} {
				w := deadline.Serve(t, h, s.Request("/cb", status, nil))
				require.Equal(t, http.StatusOK, w.Code)
				require.Equal(t, "OK", w.Body.String())
			}
			assert.Equal(t, []string{"9007199254740993 completed", "9007199254740993 reversed"}, got,
				"one call per transaction id and status")
		})
	}
}

func TestCallbackHandler_ConcurrentDuplicatesRunTheFunctionOnce(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error {
		calls.Add(1)
		<-release
		return nil
	})
	s := newTestCallbackSigner(testSecret, FormExtended)
	const n = 8
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := httptest.NewRecorder()
			h.ServeHTTP(w, s.Request("/cb", Completed, nil))
			codes[i] = w.Code
		}()
	}
	require.Eventually(t, func() bool { return calls.Load() == 1 }, 5*time.Second, time.Millisecond)
	close(release)
	deadline.WaitWithin(t, "the duplicate deliveries", &wg)
	assert.Equal(t, int32(1), calls.Load())
	for _, c := range codes {
		assert.Equal(t, http.StatusOK, c, "a duplicate is acknowledged once the first delivery succeeded")
	}
}

func TestCallbackHandler_ConcurrentDuplicateOfAFailedDeliveryRunsAgain(t *testing.T) {
	var calls atomic.Int32
	first := make(chan struct{})
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error {
		if calls.Add(1) == 1 {
			<-first
			return errors.New("failed")
		}
		return nil
	})
	s := newTestCallbackSigner(testSecret, FormExtended)
	results := make(chan int, 2)
	deliver := func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, s.Request("/cb", Completed, nil))
		results <- w.Code
	}
	go deliver()
	require.Eventually(t, func() bool { return calls.Load() == 1 }, 5*time.Second, time.Millisecond)
	go deliver()
	close(first)
	got := []int{deadline.Receive(t, "answer to the first delivery", results), deadline.Receive(t, "answer to the second delivery", results)}
	assert.ElementsMatch(t, []int{http.StatusInternalServerError, http.StatusOK}, got)
	assert.Equal(t, int32(2), calls.Load())
}

func TestCallbackHandler_WithoutDedupRunsEveryDelivery(t *testing.T) {
	var calls atomic.Int32
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error { calls.Add(1); return nil }, WithoutDedup())
	s := newTestCallbackSigner(testSecret, FormExtended)
	for range 2 {
		w := deadline.Serve(t, h, s.Request("/cb", Completed, nil))
		require.Equal(t, http.StatusOK, w.Code)
	}
	assert.Equal(t, int32(2), calls.Load())
}

// busyStore is a store shared between processes that cannot wait for
// another process's claim.
type busyStore struct{}

func (busyStore) Claim(context.Context, Key) (Claim, error) { return Busy, nil }
func (busyStore) Complete(context.Context, Key) error       { return nil }
func (busyStore) Release(context.Context, Key) error        { return nil }

// failingStore is a store whose backend is down.
type failingStore struct{ busyStore }

func (failingStore) Claim(context.Context, Key) (Claim, error) {
	return 0, errors.New("connection refused")
}

func TestCallbackHandler_StoreAnswers(t *testing.T) {
	tests := []struct {
		name       string
		store      Store
		wantCode   int
		wantHeader string
	}{
		{"busy elsewhere is 503 with Retry-After", busyStore{}, http.StatusServiceUnavailable, "5"},
		{"store failure is 500", failingStore{}, http.StatusInternalServerError, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			h := newTestCallbackHandler(t, func(context.Context, *Callback) error { calls.Add(1); return nil }, WithStore(tt.store))
			w := deadline.Serve(t, h, newTestCallbackSigner(testSecret, FormExtended).Request("/cb", Completed, nil))
			assert.Equal(t, tt.wantCode, w.Code)
			assert.Equal(t, tt.wantHeader, w.Header().Get("Retry-After"))
			assert.Zero(t, calls.Load())
		})
	}
}

func TestCallbackHandler_LogsRejectionsWithoutValues(t *testing.T) {
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error { return errors.New("ledger down") }, WithLogger(logger))
	s := newTestCallbackSigner(testSecret, FormExtended)
	tampered := s.Values(Completed, url.Values{"order_id": {"order-secret-77"}})
	tampered.Set("price", "99999.0000")

	deadline.Serve(t, h, callbackRequest(tampered.Encode()))
	deadline.Serve(t, h, s.Request("/cb", Completed, nil))

	out := logs.String()
	assert.Contains(t, out, "paygate callback rejected")
	assert.Contains(t, out, "status=403")
	assert.Contains(t, out, "paygate callback not processed")
	assert.Contains(t, out, "id="+testCallbackID.String())
	assert.Contains(t, out, "ledger down")
	for _, secret := range []string{"order-secret-77", "99999", tampered.Get(signing.Param), testSecret} {
		assert.NotContains(t, out, secret)
	}
}

func TestMemoryDedupStore_ForgetsTheOldestBeyondCapacity(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore(3)
	process := func(id ID) Claim {
		k := Key{ID: id, Status: Completed}
		c, err := s.Claim(ctx, k)
		require.NoError(t, err)
		if c == Acquired {
			require.NoError(t, s.Complete(ctx, k))
		}
		return c
	}
	for id := ID(1); id <= 5; id++ {
		require.Equal(t, Acquired, process(id))
	}
	assert.Equal(t, 3, s.remembered())
	assert.Equal(t, Processed, process(5))
	assert.Equal(t, Processed, process(3))
	assert.Equal(t, Acquired, process(1), "the oldest was forgotten")
	assert.Equal(t, 3, s.remembered())
}

func TestMemoryDedupStore_ClaimWaitsUntilContextEnds(t *testing.T) {
	s := NewMemoryStore(0)
	k := Key{ID: 1, Status: Completed}
	c, err := s.Claim(context.Background(), k)
	require.NoError(t, err)
	require.Equal(t, Acquired, c)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c, err = s.Claim(ctx, k)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, Busy, c)
}

func TestCallbackVerifier_KeyRotation(t *testing.T) {
	const oldKey, newKey = "sk_test_old_1f2e", "sk_test_new_9a8b"
	both, err := NewVerifier([]string{newKey, oldKey})
	require.NoError(t, err)
	onlyNew, err := NewVerifier([]string{newKey})
	require.NoError(t, err)
	for _, f := range []Form{FormExtended, FormBasic} {
		t.Run(f.String(), func(t *testing.T) {
			for _, key := range []string{oldKey, newKey} {
				_, err := both.ParseValues(newTestCallbackSigner(key, f).Values(Completed, nil))
				assert.NoError(t, err, "either key verifies during a rotation")
			}
			_, err := onlyNew.ParseValues(newTestCallbackSigner(oldKey, f).Values(Completed, nil))
			assert.ErrorIs(t, err, ErrSignatureInvalid, "the old key no longer verifies once dropped")
			_, err = both.ParseValues(newTestCallbackSigner("sk_unrelated", f).Values(Completed, nil))
			assert.ErrorIs(t, err, ErrSignatureInvalid)
		})
	}
}

func TestNewCallbackVerifier_RequiresKeys(t *testing.T) {
	for _, keys := range [][]string{nil, {""}, {"sk_a", ""}} {
		_, err := NewVerifier(keys)
		var ve *wire.ValidationError
		assert.ErrorAs(t, err, &ve, "%q", keys)
	}
	_, err := NewHandler([]string{testSecret}, nil)
	assert.Error(t, err)
}

func TestParseRequest_ErrorsMatchSentinels(t *testing.T) {
	v := testVerifier(t)
	s := newTestCallbackSigner(testSecret, FormExtended)
	tests := []struct {
		name string
		req  *http.Request
		want error
	}{
		{"method", httptest.NewRequest(http.MethodGet, "/cb", nil), ErrMethod},
		{"empty body", callbackRequest(""), ErrSignatureMissing},
		{"tampered", callbackRequest(strings.Replace(s.Body(Failed, nil), "failed", "completed", 1)), ErrSignatureInvalid},
		{"too large", callbackRequest(bodyOfSize(t, s, MaxBytes+1)), ErrTooLarge},
		{"id twice", s.Request("/cb", Completed, url.Values{"id": {"1", "2"}}), ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cb, err := v.ParseRequest(tt.req)
			assert.ErrorIs(t, err, tt.want)
			assert.Nil(t, cb, "nothing of a rejected callback is returned")
		})
	}
}

func TestParseValues_MalformedNamesTheFieldNotTheValue(t *testing.T) {
	_, err := testVerifier(t).ParseValues(newTestCallbackSigner(testSecret, FormExtended).Values(Completed, url.Values{"price": {"12,50"}}))
	require.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), `"price"`)
	assert.NotContains(t, err.Error(), "12,50")
}

func TestCallback_AttrsAreAMapWithoutThePrefix(t *testing.T) {
	for _, f := range []Form{FormExtended, FormBasic} {
		t.Run(f.String(), func(t *testing.T) {
			v := newTestCallbackSigner(testSecret, f).Values(Completed, url.Values{
				"attr_realm": {"eu-west"}, "attr_empty": {""}, "attr_note": {"a|b & c"},
			})
			cb, err := testVerifier(t).ParseValues(v)
			require.NoError(t, err)
			assert.Equal(t, map[string]string{"realm": "eu-west", "empty": "", "note": "a|b & c"}, cb.Attrs)
			assert.Equal(t, "eu-west", cb.Value("attr_realm"))
		})
	}
}

func TestCallback_EmptyValuesTakePartInTheSignature(t *testing.T) {
	v := testVerifier(t)
	values, err := url.ParseQuery(callbackFixture(t, "extended_empty_fields.txt"))
	require.NoError(t, err)
	_, err = v.ParseValues(values)
	require.NoError(t, err, "a callback with empty fields verifies")

	values.Del("reason") // sent empty, so it was signed as ""
	_, err = v.ParseValues(values)
	assert.ErrorIs(t, err, ErrSignatureInvalid, "dropping an empty field changes what was signed")
}

func TestCallback_ValuesAreACopy(t *testing.T) {
	cb, err := testVerifier(t).ParseRequest(callbackRequest(callbackFixture(t, "basic_completed.txt")))
	require.NoError(t, err)
	cb.Values().Set("status", "failed")
	assert.Equal(t, "completed", cb.Value("status"))
}

func TestCallbackSecrets_NeverPrinted(t *testing.T) {
	v := testVerifier(t)
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error { return nil })
	s := newTestCallbackSigner(testSecret, FormBasic)
	for _, x := range []any{v, h, s} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			assert.NotContains(t, fmt.Sprintf(verb, x), testSecret, "%T with %s", x, verb)
		}
	}
}

func testVerifier(t testing.TB) *Verifier {
	t.Helper()
	v, err := NewVerifier([]string{testSecret})
	require.NoError(t, err)
	return v
}

func newTestCallbackHandler(t testing.TB, fn Func, opts ...Option) *Handler {
	t.Helper()
	h, err := NewHandler([]string{testSecret}, fn, opts...)
	require.NoError(t, err)
	return h
}

func callbackFixture(t testing.TB, name string) string {
	t.Helper()
	return string(fixture(t, filepath.Join("callbacks", name)))
}

func callbackRequest(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/cb", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

// bodyOfSize returns a signed callback body of exactly n bytes, padded with
// an attribute.
func bodyOfSize(t testing.TB, s *callbackform.Signer[Status], n int) string {
	t.Helper()
	base := len(s.Body(Completed, url.Values{"attr_pad": {""}}))
	require.Less(t, base, n)
	body := s.Body(Completed, url.Values{"attr_pad": {strings.Repeat("x", n-base)}})
	require.Len(t, body, n)
	return body
}

func assertCallback(t *testing.T, want Callback, got *Callback) {
	t.Helper()
	require.NotNil(t, got)
	for _, m := range []struct {
		name      string
		want, got decimal.Decimal
	}{
		{"amount", want.Amount, got.Amount}, {"price", want.Price, got.Price}, {"deposit", want.Deposit, got.Deposit},
		{"earned", want.Earned, got.Earned}, {"vat_rate", want.VATRate, got.VATRate}, {"vat_amount", want.VATAmount, got.VATAmount},
	} {
		assert.True(t, m.want.Equal(m.got), "%s: want %s, got %s", m.name, m.want, m.got)
	}
	want.Amount, want.Price, want.Deposit, want.Earned, want.VATRate, want.VATAmount = got.Amount, got.Price, got.Deposit, got.Earned, got.VATRate, got.VATAmount
	want.raw = got.raw
	assert.Equal(t, want, *got)
}

func TestCallbackHandler_AcceptsEveryStatusInBothForms(t *testing.T) {
	statuses := []Status{
		Completed, WaitingApproval, Processing, Failed, Verified,
		Reversed, RefundCompleted, ChargebackCompleted, RetrievalCompleted,
		PenaltyCompleted, PayoutCompleted, PayoutFailed, PayoutCancelled,
		PayoutAbandoned,
	}
	for _, f := range []Form{FormExtended, FormBasic} {
		for _, status := range statuses {
			t.Run(f.String()+"/"+string(status), func(t *testing.T) {
				var got *Callback
				h := newTestCallbackHandler(t, func(_ context.Context, cb *Callback) error { got = cb; return nil })
				w := deadline.Serve(t, h, newTestCallbackSigner(testSecret, f).Request("/cb", status, nil))
				require.Equal(t, http.StatusOK, w.Code)
				require.NotNil(t, got)
				assert.Equal(t, status, got.Status)
				assert.True(t, got.Status.Known())
				assert.Equal(t, f, got.Form)
				if f == FormExtended {
					assert.Equal(t, TypeTransaction, got.Type)
				} else {
					assert.Empty(t, got.Type)
				}
			})
		}
	}
}
