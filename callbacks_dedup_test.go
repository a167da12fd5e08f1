package paygate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCallbackHandler_SwappedIDAndReferenceIsNotProcessedAgain(t *testing.T) {
	var calls atomic.Int32
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error { calls.Add(1); return nil })
	genuine := NewTestCallbackSigner(testSecret, FormExtended).Values(CallbackRefundCompleted, nil)
	swapped := url.Values{}
	for k, vs := range genuine {
		swapped[k] = vs
	}
	swapped.Set("id", genuine.Get("reference_id"))
	swapped.Set("reference_id", genuine.Get("id"))
	require.NoError(t, VerifySignature(swapped, testSecret), "the swap keeps the signature valid")

	for _, v := range []url.Values{genuine, swapped} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, callbackRequest(encodeCallback(v)))
		require.Equal(t, http.StatusOK, w.Code)
	}
	assert.Equal(t, int32(1), calls.Load(), "the swapped refund is the same callback")
}

func TestDedupKey_StringIsTheDigestOfTheSignedValues(t *testing.T) {
	s := NewTestCallbackSigner(testSecret, FormExtended)
	key := func(status CallbackStatus, fields url.Values) DedupKey {
		t.Helper()
		cb, err := testVerifier(t).ParseValues(s.Values(status, fields))
		require.NoError(t, err)
		return cb.DedupKey()
	}
	completed := key(CallbackCompleted, nil)
	assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{64}$`), completed.String())
	assert.Equal(t, completed.String(), key(CallbackCompleted, nil).String(), "a redelivery has the same key")

	distinct := map[string]string{"completed": completed.String()}
	for name, k := range map[string]DedupKey{
		"failed":         key(CallbackFailed, nil),
		"other id":       key(CallbackCompleted, url.Values{"id": {"9007199254740995"}}),
		"other amount":   key(CallbackCompleted, url.Values{"amount": {"10.01"}}),
		"a reason":       key(CallbackCompleted, url.Values{"reason": {"x"}}),
		"one more attr":  key(CallbackCompleted, url.Values{"attr_realm": {"eu"}}),
		"value split":    key(CallbackCompleted, url.Values{"order_id": {"order-1001|EUR"}, "currency": {""}}),
		"refund":         key(CallbackRefundCompleted, nil),
		"basic form":     keyOf(t, NewTestCallbackSigner(testSecret, FormBasic).Values(CallbackCompleted, nil)),
		"sandbox off":    keyOf(t, NewTestCallbackSigner(testSecret, FormExtended).Values(CallbackCompleted, url.Values{"sandbox": {"0"}})),
		"hand-built key": {ID: 42, Status: CallbackCompleted},
	} {
		s := k.String()
		assert.NotEmpty(t, s, name)
		for other, o := range distinct {
			assert.NotEqual(t, o, s, "%s and %s", name, other)
		}
		distinct[name] = s
	}
	assert.Equal(t, "42/completed", DedupKey{ID: 42, Status: CallbackCompleted}.String())
	assert.Equal(t, "0/", DedupKey{}.String(), "never empty")
}

func TestDedupKey_RefundIsOrderedOnTheRefundedTransaction(t *testing.T) {
	s := NewTestCallbackSigner(testSecret, FormExtended)
	refund := keyOf(t, s.Values(CallbackRefundCompleted, nil))
	assert.Equal(t, TestCallbackID+1, refund.ID)
	assert.Equal(t, TestCallbackID, refund.Transaction)
	assert.Equal(t, 3, refund.Stage())
	recurring := keyOf(t, s.Values(CallbackCompleted, url.Values{"id": {"9007199254740999"}, "reference_id": {TestCallbackID.String()}}))
	assert.Equal(t, ID(9007199254740999), recurring.Transaction, "a recurring charge has its own life")
	assert.Equal(t, 0, DedupKey{Status: "unheard_of"}.Stage())
}

func TestCallbackHandler_StaleCompletedAfterRefundIsMarked(t *testing.T) {
	var got []string
	h := newTestCallbackHandler(t, func(_ context.Context, cb *Callback) error {
		got = append(got, string(cb.Status)+" stale="+map[bool]string{true: "yes", false: "no"}[cb.Stale])
		return nil
	})
	s := NewTestCallbackSigner(testSecret, FormExtended)
	for _, status := range []CallbackStatus{CallbackProcessing, CallbackRefundCompleted, CallbackCompleted, "unheard_of"} {
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
	s := NewMemoryDedupStore(2)
	complete := func(id ID, status CallbackStatus) {
		k := DedupKey{ID: id, Status: status, Transaction: id}
		c, err := s.Claim(ctx, k)
		require.NoError(t, err)
		require.Equal(t, DedupAcquired, c)
		require.NoError(t, s.Complete(ctx, k))
	}
	latest := func(id ID) CallbackStatus {
		st, err := s.LatestStatus(ctx, id)
		require.NoError(t, err)
		return st
	}
	complete(1, CallbackCompleted)
	complete(1, CallbackProcessing)
	assert.Equal(t, CallbackCompleted, latest(1), "an earlier stage does not replace a later one")
	complete(2, CallbackCompleted)
	complete(3, CallbackCompleted)
	assert.Equal(t, CallbackStatus(""), latest(1), "beyond capacity the oldest transaction is forgotten")
	assert.Equal(t, CallbackCompleted, latest(3))
}

func keyOf(t *testing.T, v url.Values) DedupKey {
	t.Helper()
	cb, err := testVerifier(t).ParseValues(v)
	require.NoError(t, err)
	return cb.DedupKey()
}
