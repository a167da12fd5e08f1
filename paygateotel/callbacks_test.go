package paygateotel_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygateotel"
	"github.com/paygate/paygate-go/paygatetest"
)

// callbackRig is a sandbox whose callbacks go to an observed handler.
type callbackRig struct {
	rec    *recorded
	srv    *paygatetest.Server
	target string // the handler's URL
	// inFunc holds the span context the CallbackFunc last ran in.
	inFunc atomic.Value
}

func newCallbackRig(t *testing.T) *callbackRig {
	t.Helper()
	rig := &callbackRig{rec: newRecorded(t)}
	h, err := callback.NewHandler([]string{paygatetest.DefaultPrivateKey}, func(ctx context.Context, _ *callback.Callback) error {
		rig.inFunc.Store(trace.SpanContextFromContext(ctx))
		return nil
	}, callback.WithObserver(rig.rec.obs))
	require.NoError(t, err)
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	rig.target = hs.URL
	rig.srv = newSandbox(t, nil, paygatetest.WithCallbackURL(hs.URL))
	return rig
}

// waitAttempts waits until callback seq was answered n times.
func (rig *callbackRig) waitAttempts(t *testing.T, seq, n int) paygatetest.Delivery {
	t.Helper()
	d, err := rig.srv.WaitForDelivery(testCtx(t), func(d paygatetest.Delivery) bool {
		return d.Seq == seq && d.Attempts >= n && d.LastStatus != 0
	})
	require.NoError(t, err)
	return d
}

func TestCallbacks_VerifiedDuplicateAndForged(t *testing.T) {
	rig := newCallbackRig(t)
	_, err := rig.srv.Client().Cards.Charge(testCtx(t), cardCharge(paygatetest.CardApproved, "ord-cb"))
	require.NoError(t, err)

	d := rig.waitAttempts(t, 1, 1)
	require.Equal(t, http.StatusOK, d.LastStatus)
	require.NoError(t, rig.srv.Redeliver(d.Seq))
	require.Equal(t, http.StatusOK, rig.waitAttempts(t, 1, 2).LastStatus)

	forged := paygatetest.NewCallbackSigner("sk_not_the_project_key", paygate.FormExtended).
		Body(callback.Completed, url.Values{"order_id": {"ord-cb"}})
	resp, err := http.Post(rig.target, "application/x-www-form-urlencoded", strings.NewReader(forged))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)

	spans := rig.rec.ended(paygateotel.CallbackSpanName)
	require.Len(t, spans, 3)
	for _, s := range spans {
		assert.Equal(t, trace.SpanKindServer, s.SpanKind())
		assert.Equal(t, codes.Unset, s.Status().Code)
	}
	processed, duplicate, refused := attrs(spans[0]), attrs(spans[1]), attrs(spans[2])
	assert.Equal(t, "processed", processed[paygateotel.VerdictKey].AsString())
	assert.Equal(t, "completed", processed[paygateotel.CallbackStatusKey].AsString())
	assert.Equal(t, "ord-cb", processed[paygateotel.OrderIDKey].AsString())
	assert.Equal(t, d.Values.Get("id"), processed[paygateotel.TransactionIDKey].AsString())
	assert.Equal(t, spans[0].SpanContext().SpanID(), rig.inFunc.Load().(trace.SpanContext).SpanID(), "the CallbackFunc runs in the callback's span")
	assert.Equal(t, "duplicate", duplicate[paygateotel.VerdictKey].AsString())
	assert.Equal(t, "refused", refused[paygateotel.VerdictKey].AsString())
	assert.Equal(t, "signature_invalid", refused[paygateotel.RefusalKey].AsString())
	assert.Equal(t, int64(403), refused["http.response.status_code"].AsInt64())
	_, hasOrder := refused[paygateotel.OrderIDKey]
	assert.False(t, hasOrder, "nothing of a forged callback is recorded")

	status := func(s string) attribute.KeyValue { return paygateotel.CallbackStatusKey.String(s) }
	verdict := func(v callback.Verdict) attribute.KeyValue { return paygateotel.VerdictKey.String(string(v)) }
	assert.Equal(t, int64(1), rig.rec.sum(t, "paygate.callbacks", status("completed"), verdict(callback.VerdictProcessed)))
	assert.Equal(t, int64(1), rig.rec.sum(t, "paygate.callbacks", status("completed"), verdict(callback.VerdictDuplicate)))
	assert.Equal(t, int64(1), rig.rec.sum(t, "paygate.callbacks", status(""), verdict(callback.VerdictRefused),
		paygateotel.RefusalKey.String("signature_invalid")))
	assert.Equal(t, uint64(1), rig.rec.histogramCount(t, "paygate.callback.duration", verdict(callback.VerdictDuplicate)))
}
