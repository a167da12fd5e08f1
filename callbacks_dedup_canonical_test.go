package paygate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The signature covers the values joined with "|", so a value holding a
// "|" can be split across two fields (or two values merged into one) and
// the callback still verifies: it is the same signed callback, and must not
// be processed again.
func TestCallbackHandler_ValuesResplitAtABarAreNotProcessedAgain(t *testing.T) {
	var calls atomic.Int32
	h := newTestCallbackHandler(t, func(context.Context, *Callback) error { calls.Add(1); return nil })
	genuine := NewTestCallbackSigner(testSecret, FormExtended).Values(CallbackCompleted, url.Values{"attr_note": {"zz|zzz"}})
	resplit := url.Values{}
	for k, vs := range genuine {
		resplit[k] = vs
	}
	resplit.Set("attr_note", "zz")
	resplit.Set("attr_zz", "zzz")
	require.NoError(t, VerifySignature(resplit, testSecret), "the split keeps the signature valid")

	for _, v := range []url.Values{genuine, resplit} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, callbackRequest(encodeCallback(v)))
		require.Equal(t, http.StatusOK, w.Code)
	}
	assert.Equal(t, int32(1), calls.Load(), "the re-split callback is the same signed callback")
}
