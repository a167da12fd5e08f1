package callback

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/internal/callbackform"
	"github.com/paygate/paygate-go/internal/signing"
)

func TestCallbackHandler_SwappedIDAndReferenceIsNotProcessedAgain(t *testing.T) {
	var calls atomic.Int32
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error { calls.Add(1); return nil })
	genuine := newTestCallbackSigner(testSecret, FormExtended).Values(RefundCompleted, nil)
	swapped := url.Values{}
	for k, vs := range genuine {
		swapped[k] = vs
	}
	swapped.Set("id", genuine.Get("reference_id"))
	swapped.Set("reference_id", genuine.Get("id"))
	require.NoError(t, signing.New(testSecret).Verify(swapped), "the swap keeps the signature valid")

	for _, v := range []url.Values{genuine, swapped} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, callbackRequest(callbackform.Encode(v)))
		require.Equal(t, http.StatusOK, w.Code)
	}
	assert.Equal(t, int32(1), calls.Load(), "the swapped refund is the same callback")
}

func TestDedupKey_StringIsTheDigestOfTheSignedValues(t *testing.T) {
	s := newTestCallbackSigner(testSecret, FormExtended)
	key := func(status Status, fields url.Values) Key {
		t.Helper()
		cb, err := testVerifier(t).ParseValues(s.Values(status, fields))
		require.NoError(t, err)
		return cb.Key()
	}
	completed := key(Completed, nil)
	assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{64}$`), completed.String())
	assert.Equal(t, completed.String(), key(Completed, nil).String(), "a redelivery has the same key")

	distinct := map[string]string{"completed": completed.String()}
	for name, k := range map[string]Key{
		"failed":         key(Failed, nil),
		"other id":       key(Completed, url.Values{"id": {"9007199254740995"}}),
		"other amount":   key(Completed, url.Values{"amount": {"10.01"}}),
		"a reason":       key(Completed, url.Values{"reason": {"x"}}),
		"one more attr":  key(Completed, url.Values{"attr_realm": {"eu"}}),
		"value split":    key(Completed, url.Values{"order_id": {"order-1001|EUR"}, "currency": {""}}),
		"refund":         key(RefundCompleted, nil),
		"basic form":     keyOf(t, newTestCallbackSigner(testSecret, FormBasic).Values(Completed, nil)),
		"sandbox off":    keyOf(t, newTestCallbackSigner(testSecret, FormExtended).Values(Completed, url.Values{"sandbox": {"0"}})),
		"hand-built key": {ID: 42, Status: Completed},
	} {
		s := k.String()
		assert.NotEmpty(t, s, name)
		for other, o := range distinct {
			assert.NotEqual(t, o, s, "%s and %s", name, other)
		}
		distinct[name] = s
	}
	assert.Equal(t, "42/completed", Key{ID: 42, Status: Completed}.String())
	assert.Equal(t, "0/", Key{}.String(), "never empty")
}

func TestDedupKey_RefundIsOrderedOnTheRefundedTransaction(t *testing.T) {
	s := newTestCallbackSigner(testSecret, FormExtended)
	refund := keyOf(t, s.Values(RefundCompleted, nil))
	assert.Equal(t, testCallbackID+1, refund.ID)
	assert.Equal(t, testCallbackID, refund.Transaction)
	assert.Equal(t, 3, refund.Stage())
	recurring := keyOf(t, s.Values(Completed, url.Values{"id": {"9007199254740999"}, "reference_id": {testCallbackID.String()}}))
	assert.Equal(t, ID(9007199254740999), recurring.Transaction, "a recurring charge has its own life")
	assert.Equal(t, 0, Key{Status: "unheard_of"}.Stage())
}

func TestCallbackHandler_StaleCompletedAfterRefundIsMarked(t *testing.T) {
	var got []string
	h := newTestCallbackHandler(t, func(_ context.Context, cb *Callback) error {
		got = append(got, string(cb.Status)+" stale="+map[bool]string{true: "yes", false: "no"}[cb.Stale])
		return nil
	})
	s := newTestCallbackSigner(testSecret, FormExtended)
	for _, status := range []Status{Processing, RefundCompleted, Completed, "unheard_of"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, s.Request("/cb", status, nil))
		require.Equal(t, http.StatusOK, w.Code)
	}
	assert.Equal(t, []string{
		"processing stale=no", "refund_completed stale=no", "completed stale=yes", "unheard_of stale=no",
	}, got)
}

func TestMemoryDedupStore_KeepsTheLatestStageOfEachTransaction(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore(2)
	complete := func(id ID, status Status) {
		k := Key{ID: id, Status: status, Transaction: id}
		c, err := s.Claim(ctx, k)
		require.NoError(t, err)
		require.Equal(t, Acquired, c)
		require.NoError(t, s.Complete(ctx, k))
	}
	latest := func(id ID) Status {
		st, err := s.LatestStatus(ctx, id)
		require.NoError(t, err)
		return st
	}
	complete(1, Completed)
	complete(1, Processing)
	assert.Equal(t, Completed, latest(1), "an earlier stage does not replace a later one")
	complete(2, Completed)
	complete(3, Completed)
	assert.Equal(t, Status(""), latest(1), "beyond capacity the oldest transaction is forgotten")
	assert.Equal(t, Completed, latest(3))
}

func keyOf(t *testing.T, v url.Values) Key {
	t.Helper()
	cb, err := testVerifier(t).ParseValues(v)
	require.NoError(t, err)
	return cb.Key()
}

// orderFailingStore keeps callbacks in memory but cannot read the latest
// status of a transaction.
type orderFailingStore struct{ *MemoryStore }

func (orderFailingStore) LatestStatus(context.Context, ID) (Status, error) {
	return "", errors.New("connection reset")
}

func TestCallbackHandler_OrderStoreFailureIsRetriedLater(t *testing.T) {
	var calls atomic.Int32
	store := orderFailingStore{NewMemoryStore(0)}
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error { calls.Add(1); return nil }, WithStore(store))
	s := newTestCallbackSigner(testSecret, FormExtended)

	w := httptest.NewRecorder()
	h.ServeHTTP(w, s.Request("/cb", Completed, nil))
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Zero(t, calls.Load(), "whether the callback is stale is unknown: not processed")

	c, err := store.Claim(context.Background(), keyOf(t, s.Values(Completed, nil)))
	require.NoError(t, err)
	assert.Equal(t, Acquired, c, "the claim was released for the next delivery")
}
