package paygate_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

// delivered returns the fields of the sandbox's first callback with status
// for transaction id.
func (sb *sandbox) delivered(t *testing.T, id paygate.ID, status callback.Status) url.Values {
	t.Helper()
	for _, d := range sb.srv.Deliveries() {
		if d.Values.Get("id") == id.String() && d.Values.Get("status") == string(status) {
			return d.Values
		}
	}
	t.Fatalf("no %s callback for %s", status, id)
	return nil
}

// swapped returns a copy of values with the values of fields a and b
// exchanged: the signature, over values only, still verifies.
func swapped(values url.Values, a, b string) url.Values {
	out := url.Values{}
	for k, vs := range values {
		out[k] = append([]string(nil), vs...)
	}
	out[a], out[b] = out[b], out[a]
	return out
}

// fullyRefunded charges an approved card and refunds all of it.
func fullyRefunded(t *testing.T, sb *sandbox, orderID string) (payment paygate.ID, refund paygate.ID) {
	t.Helper()
	pay := sb.charge(t, paygatetest.CardApproved, "25.00", orderID)
	require.Equal(t, paygate.StatusCompleted, sb.status(t, pay.ID).Status)
	rev, err := sb.reverse(t, pay.ID, "25.00")
	require.NoError(t, err)
	return pay.ID, rev.ID
}

func TestConfirmCallback_RefusesRefundWithIDAndReferenceSwapped(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended)
	verifier, err := callback.NewVerifier([]string{sb.srv.PrivateKey})
	require.NoError(t, err)
	payment, refund := fullyRefunded(t, sb, "ord-swap-ref")

	genuine, err := verifier.ParseValues(sb.delivered(t, refund, callback.RefundCompleted))
	require.NoError(t, err)
	_, err = sb.client.ConfirmCallback(testCtx(t), genuine)
	require.NoError(t, err, "the genuine refund callback confirms")

	forged, err := verifier.ParseValues(swapped(sb.delivered(t, refund, callback.RefundCompleted), "id", "reference_id"))
	require.NoError(t, err, "the signature covers values, not names: the swap verifies")
	require.Equal(t, payment, forged.ID)
	conf, err := sb.client.ConfirmCallback(testCtx(t), forged)
	require.ErrorIs(t, err, paygate.ErrCallbackNotConfirmed)
	assert.Equal(t, []string{"reference_id", "type", "status"}, conf.Mismatches())
}

func TestConfirmCallback_RefusesAmountAndUserSwapped(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended)
	verifier, err := callback.NewVerifier([]string{sb.srv.PrivateKey})
	require.NoError(t, err)
	pay := sb.charge(t, paygatetest.CardApproved, "25.00", "ord-swap-amount")

	forged, err := verifier.ParseValues(swapped(sb.delivered(t, pay.ID, callback.Completed), "amount", "user"))
	require.NoError(t, err, "the swap verifies")
	conf, err := sb.client.ConfirmCallback(testCtx(t), forged)
	var mismatch *paygate.CallbackMismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.Equal(t, []string{"amount", "user"}, mismatch.Fields)
	assert.False(t, conf.Confirmed())
}

// Every callback field is present, reason mostly empty: swapping amount
// or type with it empties them, and the signature still verifies.
func TestConfirmCallback_RefusesAmountOrTypeSwappedWithAnEmptyReason(t *testing.T) {
	sb := newSandbox(t, paygate.FormExtended)
	verifier, err := callback.NewVerifier([]string{sb.srv.PrivateKey})
	require.NoError(t, err)
	_, refund := fullyRefunded(t, sb, "ord-swap-empty")
	genuine := sb.delivered(t, refund, callback.RefundCompleted)
	require.Empty(t, genuine.Get("reason"))

	for _, field := range []string{"amount", "type"} {
		forged, err := verifier.ParseValues(swapped(genuine, field, "reason"))
		require.NoError(t, err, "the swap verifies")
		require.Empty(t, forged.Value(field))
		conf, err := sb.client.ConfirmCallback(testCtx(t), forged)
		require.ErrorIs(t, err, paygate.ErrCallbackNotConfirmed, field)
		assert.Equal(t, []string{field}, conf.Mismatches())
	}
}

func TestConfirmCallback_RefusesStaleCompletedAfterFullRefund(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		verifier, err := callback.NewVerifier([]string{sb.srv.PrivateKey})
		require.NoError(t, err)
		payment, _ := fullyRefunded(t, sb, "ord-stale")

		replayed, err := verifier.ParseValues(sb.delivered(t, payment, callback.Completed))
		require.NoError(t, err, "a replayed genuine callback verifies")
		conf, err := sb.client.ConfirmCallback(testCtx(t), replayed)
		require.ErrorIs(t, err, paygate.ErrCallbackNotConfirmed)
		assert.Equal(t, []string{"status"}, conf.Mismatches())
	})
}

// A handler mounted behind middleware that parsed the form (r.ParseForm,
// r.FormValue) finds the body consumed; the genuine callback must still
// verify.
func TestCallbackHandler_VerifiesBehindMiddlewareThatParsedTheForm(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, paygatetest.DefaultPrivateKey, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_ = r.FormValue("anything") // parses the form, consuming the body
			next.ServeHTTP(w, r)
		})
	})
	sb := newSandbox(t, paygate.FormExtended, paygatetest.WithCallbackURL(rc.URL))
	pay := sb.charge(t, paygatetest.CardApproved, "25.00", "ord-middleware")
	got := rc.wait(t, pay.ID, callback.Completed)
	assert.Equal(t, "ord-middleware", got.OrderID)
	d, err := sb.srv.WaitForDelivery(testCtx(t), func(d paygatetest.Delivery) bool { return d.Done })
	require.NoError(t, err)
	assert.True(t, d.Delivered)
	assert.Equal(t, http.StatusOK, d.LastStatus)
	assert.Equal(t, 1, d.Attempts)
}

// The README's pattern: a mismatch is an error unless the callback is
// stale, so a swapped copy that arrives first is not recorded as processed
// and the genuine delivery with the same values still runs the function.
func TestCallbackHandler_SwappedCopyFirstDoesNotSuppressTheGenuine(t *testing.T) {
	sb := newSandbox(t, paygate.FormExtended)
	_, refund := fullyRefunded(t, sb, "ord-swap-first")
	genuine := sb.delivered(t, refund, callback.RefundCompleted)

	var acted []paygate.ID
	handler, err := callback.NewHandler([]string{sb.srv.PrivateKey}, func(ctx context.Context, cb *callback.Callback) error {
		_, err := sb.client.ConfirmCallback(ctx, cb)
		var mismatch *paygate.CallbackMismatchError
		switch {
		case errors.As(err, &mismatch) && cb.Stale:
			return nil
		case err != nil:
			return err
		}
		acted = append(acted, cb.ID)
		return nil
	})
	require.NoError(t, err)
	post := func(v url.Values) int {
		r := httptest.NewRequest(http.MethodPost, "/callback", strings.NewReader(v.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r.WithContext(testCtx(t)))
		return w.Code
	}

	assert.Equal(t, http.StatusInternalServerError, post(swapped(genuine, "id", "reference_id")),
		"the swapped copy is refused and not recorded")
	assert.Empty(t, acted)
	assert.Equal(t, http.StatusOK, post(genuine))
	assert.Equal(t, []paygate.ID{refund}, acted, "the genuine delivery runs the function once")
	assert.Equal(t, http.StatusOK, post(swapped(genuine, "id", "reference_id")),
		"a swapped copy after the genuine one is a repeat")
	assert.Equal(t, []paygate.ID{refund}, acted)
}

// A genuine callback whose transaction moved on since (refunded, charged
// back, completed after processing) disagrees with the record on status
// alone, and only there: it is superseded, history a later callback
// reports, to acknowledge without acting on. A callback with values moved
// between fields is never superseded.
func TestConfirmCallback_SupersededWhenTheRecordMovedOnSince(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		verifier, err := callback.NewVerifier([]string{sb.srv.PrivateKey})
		require.NoError(t, err)
		confirm := func(t *testing.T, values url.Values) (*paygate.CallbackConfirmation, *paygate.CallbackMismatchError) {
			t.Helper()
			cb, err := verifier.ParseValues(values)
			require.NoError(t, err)
			conf, err := sb.client.ConfirmCallback(testCtx(t), cb)
			var mismatch *paygate.CallbackMismatchError
			require.ErrorAs(t, err, &mismatch)
			require.Equal(t, conf.Superseded(), mismatch.Superseded)
			return conf, mismatch
		}

		refunded, _ := fullyRefunded(t, sb, "ord-superseded-refund")
		conf, mismatch := confirm(t, sb.delivered(t, refunded, callback.Completed))
		assert.Equal(t, []string{"status"}, conf.Mismatches())
		assert.True(t, mismatch.Superseded, "completed, refunded since")

		chargedBack := sb.charge(t, paygatetest.CardApproved, "25.00", "ord-superseded-chargeback")
		_, err = sb.srv.Trigger(chargedBack.ID, paygatetest.EventChargeback)
		require.NoError(t, err)
		_, mismatch = confirm(t, sb.delivered(t, chargedBack.ID, callback.Completed))
		assert.True(t, mismatch.Superseded, "completed, charged back since")

		if sb.form == paygate.FormExtended { // the basic form sends no processing callback
			processed, err := sb.tryCharge(t, paygatetest.CardProcessing, "25.00", "ord-superseded-processing")
			require.NoError(t, err)
			_, err = sb.srv.Trigger(processed.ID, paygatetest.EventComplete)
			require.NoError(t, err)
			_, mismatch = confirm(t, sb.delivered(t, processed.ID, callback.Processing))
			assert.True(t, mismatch.Superseded, "processing, completed since")
		}

		_, mismatch = confirm(t, swapped(sb.delivered(t, refunded, callback.Completed), "order_id", "currency"))
		assert.False(t, mismatch.Superseded, "values moved between fields")
	})
}
