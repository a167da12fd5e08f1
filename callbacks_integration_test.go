package paygate_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/testkit/deadline"
	"github.com/paygate/paygate-go/paygatetest"
)

// Every status change the sandbox reports by callback reaches the
// merchant's callback.Handler once, verifies with the SDK's verifier, and
// ConfirmCallback agrees with it, unless the transaction has moved on
// since (a processing callback read after the payment completed, a
// completed one read after the payment was fully refunded).
func TestIntegration_EveryCallbackVerifiesAndConfirms(t *testing.T) {
	t.Parallel()
	wantStatuses := map[paygate.Form][]callback.Status{
		paygate.FormExtended: {
			callback.Completed, callback.Failed, callback.Verified, callback.Processing,
			callback.RefundCompleted, callback.PayoutCompleted, callback.PayoutFailed,
		},
		paygate.FormBasic: {
			callback.Completed, callback.Failed, callback.Verified,
			callback.RefundCompleted, callback.Reversed,
		},
	}
	forEachForm(t, func(t *testing.T, form paygate.Form) {
		rc := newReceiver(t, paygatetest.DefaultPrivateKey)
		sb := newSandbox(t, form, paygatetest.WithCallbackURL(rc.URL))
		verifier, err := callback.NewVerifier([]string{sb.srv.PrivateKey})
		require.NoError(t, err)

		paidParams := sb.chargeParams(t, sb.user(t, "cust-paid"), paygatetest.CardApproved, "50.00", "ord-paid")
		paidParams.Attributes = map[string]string{"realm": "eu-west"}
		paid, err := sb.client.Cards.Charge(testCtx(t), paidParams)
		require.NoError(t, err)
		sb.charge(t, paygatetest.CardDeclined, "50.00", "ord-declined")
		verify := sb.chargeParams(t, sb.user(t, "cust-verify"), paygatetest.CardApproved, "50.00", "ord-verify")
		verify.VerifyCard = true
		_, err = sb.client.Cards.Charge(testCtx(t), verify)
		require.NoError(t, err)
		processing := sb.charge(t, paygatetest.CardProcessing, "50.00", "ord-processing")
		_, err = sb.reverse(t, paid.ID, "10.00")
		require.NoError(t, err)
		_, err = sb.reverse(t, paid.ID, "40.00")
		require.NoError(t, err)
		if form == paygate.FormExtended {
			card := sb.payoutType(t, "CREDIT_CARD")
			for _, number := range []string{paygatetest.CardApproved, paygatetest.CardDeclined} {
				_, err := sb.client.Payouts.Create(testCtx(t), &paygate.PayoutParams{
					Type: card, Account: paygate.NewAccountNumber(number), Amount: dec("1.00"), Currency: "EUR", CardHolder: "JANE ROE",
				})
				require.NoError(t, err)
			}
		}
		rc.wait(t, processing.ID, callback.Completed)
		sb.srv.SettlePending()
		assert.Equal(t, paidParams.Attributes, rc.wait(t, paid.ID, callback.Completed).Attrs,
			"custom attributes come back in the callback")

		deliveries := sb.srv.Deliveries()
		seen := make(map[callback.Status]bool)
		for _, d := range deliveries {
			cb, err := verifier.ParseValues(d.Values)
			require.NoError(t, err, "delivery %d", d.Seq)
			assert.Equal(t, form, cb.Form)
			seen[cb.Status] = true
			got := rc.wait(t, cb.ID, cb.Status)
			assert.Equal(t, cb.Values(), got.Values(), "delivery %d as received", d.Seq)

			conf, err := sb.client.ConfirmCallback(testCtx(t), got)
			switch {
			case cb.Status == callback.Processing:
				require.ErrorIs(t, err, paygate.ErrCallbackNotConfirmed)
				assert.Equal(t, []string{"status"}, conf.Mismatches(), "a processing callback read after completion")
			case cb.Status == callback.Completed && cb.ID == paid.ID:
				require.ErrorIs(t, err, paygate.ErrCallbackNotConfirmed)
				assert.Equal(t, []string{"status"}, conf.Mismatches(), "a completed callback read after the full refund")
			default:
				require.NoError(t, err, "delivery %d (%s)", d.Seq, cb.Status)
				assert.True(t, conf.Confirmed())
			}
		}
		for _, status := range wantStatuses[form] {
			assert.True(t, seen[status], "no %s callback", status)
		}
		assert.Len(t, rc.callbacks(), len(deliveries), "each callback processed once")
	})
}

// A wrong private key signs requests the sandbox rejects as 40301; an
// unknown project is 40401.
func TestIntegration_AuthenticationErrors(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		wrongKey, err := paygate.NewClient(sb.srv.ProjectKey, "not-the-private-key",
			paygate.WithBaseURL(sb.srv.URL), paygate.WithForm(sb.form), paygate.WithRetryPolicy(paygate.NoRetries))
		require.NoError(t, err)
		unknown, err := paygate.NewClient("no-such-project", sb.srv.PrivateKey,
			paygate.WithBaseURL(sb.srv.URL), paygate.WithForm(sb.form), paygate.WithRetryPolicy(paygate.NoRetries))
		require.NoError(t, err)
		resolve := &paygate.ResolveUserParams{Identifier: "cust-1", Email: "a@example.com", IP: "203.0.113.7"}

		_, err = wrongKey.Users.Resolve(testCtx(t), resolve)
		requireErrorStatus(t, err, paygate.ErrSignatureInvalid, 403)

		_, err = unknown.Users.Resolve(testCtx(t), resolve)
		requireErrorStatus(t, err, paygate.ErrProjectNotFound, 404)

		// The unsigned GETs need no key, but still a known project.
		_, err = wrongKey.Cards.Tokenize(testCtx(t), &paygate.TokenizeParams{
			Number: paygate.NewCardNumber(paygatetest.CardApproved), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123"),
		})
		require.NoError(t, err)
		_, err = unknown.Payouts.Types(testCtx(t))
		require.ErrorIs(t, err, paygate.ErrProjectNotFound)
	})
}

// A project added to the server is a project of its own: its keys sign, its
// form answers.
func TestIntegration_SecondProjectOnOneServer(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended)
	sb.srv.AddProject(paygatetest.Project{Key: "basic-project", Secret: paygatetest.NewSecret("basic-secret"), CardRemembering: true, Form: paygate.FormBasic})
	basic, err := paygate.NewClient("basic-project", "basic-secret",
		paygate.WithBaseURL(sb.srv.URL), paygate.WithForm(paygate.FormBasic), paygate.WithRetryPolicy(paygate.NoRetries))
	require.NoError(t, err)

	_, err = basic.Users.Resolve(testCtx(t), &paygate.ResolveUserParams{Identifier: "cust-1", Email: "a@example.com", IP: "203.0.113.7"})
	require.NoError(t, err)
	_, err = basic.Transactions.Status(testCtx(t), &paygate.TransactionStatusParams{ID: sb.charge(t, paygatetest.CardApproved, "5.00", "ord-1").ID})
	require.ErrorIs(t, err, paygate.ErrTransactionNotFound, "another project's transaction")
}

// A callback the merchant failed to process is answered 500 by the
// callback.Handler, delivered again by the sandbox, and processed then.
func TestIntegration_FailedCallbackIsDeliveredAgain(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	processed := make(chan *callback.Callback, 1)
	h, err := callback.NewHandler([]string{paygatetest.DefaultPrivateKey}, func(_ context.Context, cb *callback.Callback) error {
		if calls.Add(1) == 1 {
			return errors.New("database unavailable")
		}
		processed <- cb
		return nil
	})
	require.NoError(t, err)
	hs := serveCallbacks(t, h)
	sb := newSandbox(t, paygate.FormExtended, paygatetest.WithCallbackURL(hs.URL), paygatetest.WithCallbackRetry(3, 10*time.Millisecond))

	pay := sb.charge(t, paygatetest.CardApproved, "10.00", "ord-1")
	_, err = sb.srv.WaitForDelivery(testCtx(t), func(d paygatetest.Delivery) bool { return d.Attempts == 1 })
	require.NoError(t, err)
	sb.srv.Advance(11 * time.Millisecond) // retries follow the sandbox's clock: the wait and its jitter, a tenth at most
	cb := deadline.Receive(t, "callback delivered again", processed)
	assert.Equal(t, pay.ID, cb.ID)
	d, err := sb.srv.WaitForDelivery(testCtx(t), func(d paygatetest.Delivery) bool { return d.Done })
	require.NoError(t, err)
	assert.True(t, d.Delivered)
	assert.Equal(t, 2, d.Attempts)
	assert.Equal(t, int32(2), calls.Load())
}
