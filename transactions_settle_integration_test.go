package paygate_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// committedFaults are the faults that process the request and then lose
// its answer: the outcome the merchant sees is unknown.
var committedFaults = []paygatetest.Fault{paygatetest.FaultResetAfterCommit, paygatetest.FaultTimeoutAfterCommit}

// settleKind is a kind of request, how to send one to a sandbox, and what
// settling it must report.
type settleKind struct {
	kind  paygate.OperationKind
	path  string
	forms []paygate.Form
	// prepare makes what the request needs (a payment to reverse or
	// authenticate, a subscription) and returns what to send.
	prepare func(t *testing.T, sb *sandbox) func(c *paygate.Client) error
	// check asserts what settling reports after the request was processed.
	check func(t *testing.T, sb *sandbox, rec *paygate.Reconciliation)
}

// settleKinds lists every kind Settle settles.
func settleKinds() []settleKind {
	both := forms
	return []settleKind{
		{paygate.KindCharge, "card/process", both, func(t *testing.T, sb *sandbox) func(*paygate.Client) error {
			params := sb.chargeParams(t, sb.user(t, "cust-1"), paygatetest.CardApproved, "30.00", "ord-charge")
			return func(c *paygate.Client) error { _, err := c.Cards.Charge(testCtx(t), params); return err }
		}, func(t *testing.T, sb *sandbox, rec *paygate.Reconciliation) {
			assert.Equal(t, paygate.OutcomeSucceeded, rec.Outcome)
			assert.True(t, rec.Completed(), "the charge went through: fulfil the order")
		}},
		{paygate.KindAuthenticate, "card/authenticate", both, func(t *testing.T, sb *sandbox) func(*paygate.Client) error {
			pay := sb.charge3DS(t, "ord-3ds")
			params := boundTo(sb.returnOf(pay), pay.ID, "ord-3ds")
			return func(c *paygate.Client) error { _, err := c.Cards.Authenticate(testCtx(t), params); return err }
		}, func(t *testing.T, sb *sandbox, rec *paygate.Reconciliation) {
			assert.Equal(t, "ord-3ds", rec.OrderID)
			assert.True(t, rec.Completed(), "the payer passed 3-D Secure and the payment completed")
		}},
		{paygate.KindRecurringCharge, "card/processRecurring", both, func(t *testing.T, sb *sandbox) func(*paygate.Client) error {
			user := sb.user(t, "cust-sub")
			sb.chargeSubscribing(t, user, 0)
			params := &paygate.ChargeRecurringParams{User: user, Price: dec("4.99"), Currency: "EUR", OrderID: "ord-extra"}
			return func(c *paygate.Client) error { _, err := c.Cards.ChargeRecurring(testCtx(t), params); return err }
		}, func(t *testing.T, sb *sandbox, rec *paygate.Reconciliation) {
			assert.True(t, rec.Completed())
		}},
		{paygate.KindReversal, "transaction/reverse", both, func(t *testing.T, sb *sandbox) func(*paygate.Client) error {
			pay := sb.charge(t, paygatetest.CardApproved, "30.00", "ord-rev")
			params := &paygate.ReverseParams{ID: pay.ID, Amount: dec("30.00")}
			return func(c *paygate.Client) error { _, err := c.Transactions.Reverse(testCtx(t), params); return err }
		}, func(t *testing.T, sb *sandbox, rec *paygate.Reconciliation) {
			assert.True(t, rec.Refunded())
			assert.True(t, rec.FullyRefunded())
			if sb.form == paygate.FormExtended {
				require.NotNil(t, rec.Refund())
				assert.True(t, dec("30.00").Equal(rec.Refund().Price))
			}
		}},
		{paygate.KindWalletPayment, "transaction/create", []paygate.Form{paygate.FormExtended}, func(t *testing.T, sb *sandbox) func(*paygate.Client) error {
			params := &paygate.AlternativeCreateParams{UserIdentifier: "customer-8812", PaymentMethod: paygate.MethodPayPal, Price: dec("9.90"),
				Currency: "EUR", Description: "Premium plan", OrderID: "ord-wallet",
				SuccessURL: "https://shop.example/paid", FailURL: "https://shop.example/failed"}
			return func(c *paygate.Client) error { _, err := c.Transactions.Create(testCtx(t), params); return err }
		}, func(t *testing.T, sb *sandbox, rec *paygate.Reconciliation) {
			assert.Equal(t, paygate.OutcomePending, rec.Outcome, "opened: waiting for its payer")
			assert.Equal(t, paygate.StatusOpened, rec.Transaction.Status)
		}},
		{paygate.KindPayout, "payout", []paygate.Form{paygate.FormExtended}, func(t *testing.T, sb *sandbox) func(*paygate.Client) error {
			params := &paygate.PayoutParams{Type: sb.payoutType(t, "SEPA"), Account: paygate.NewAccountNumber("DE89370400440532013000"), Amount: dec("10.00"),
				Currency: "EUR", OrderID: "ord-payout", BeneficiaryFirstName: "Jane", BeneficiaryLastName: "Roe", ReceiverBankBIC: "COBADEFFXXX"}
			return func(c *paygate.Client) error { _, err := c.Payouts.Create(testCtx(t), params); return err }
		}, func(t *testing.T, sb *sandbox, rec *paygate.Reconciliation) {
			assert.Equal(t, paygate.OutcomePending, rec.Outcome, "processing")
			assert.False(t, rec.PayoutCompleted())
			assert.Equal(t, paygate.TypePayout, rec.Transaction.Type)
		}},
	}
}

// lostAnswer injects fault into the next call of path, sends with c, and
// returns the unknown outcome that must follow.
func lostAnswer(t *testing.T, sb *sandbox, path string, fault paygatetest.Fault, c *paygate.Client, send func(*paygate.Client) error) *paygate.OutcomeUnknownError {
	t.Helper()
	require.NoError(t, sb.srv.InjectFault(path, fault, 1))
	err := send(c)
	require.ErrorIs(t, err, paygate.ErrOutcomeUnknown)
	var unknown *paygate.OutcomeUnknownError
	require.ErrorAs(t, err, &unknown)
	return unknown
}

// settled settles p, requiring the look-up to succeed.
func settled(t *testing.T, sb *sandbox, p *paygate.TransactionSettleParams) *paygate.Reconciliation {
	t.Helper()
	rec, err := sb.client.Transactions.Settle(testCtx(t), p)
	require.NoError(t, err)
	return rec
}

// TestSettle_EveryKindAfterTheAnswerWasLost: each kind of request,
// processed by the sandbox whose answer is then lost (a reset connection,
// or an answer held past the client's deadline), returns ErrOutcomeUnknown
// naming its kind, was sent once, and settling it reports what the sandbox
// recorded, in each form the kind exists in.
func TestSettle_EveryKindAfterTheAnswerWasLost(t *testing.T) {
	t.Parallel()
	for _, k := range settleKinds() {
		for _, fault := range committedFaults {
			for _, form := range k.forms {
				t.Run(string(k.kind)+"/"+string(fault)+"/"+form.String(), func(t *testing.T) {
					t.Parallel()
					sb := newSandbox(t, form, paygatetest.WithProcessingDelay(0))
					unknown := lostAnswer(t, sb, k.path, fault, sb.srv.Client(paygate.WithTimeout(300*time.Millisecond)), k.prepare(t, sb))
					assert.Equal(t, k.kind, unknown.Kind)
					assert.Equal(t, 1, unknown.Attempts, "sent once and never again")

					rec := settled(t, sb, unknown.SettleParams())
					assert.Equal(t, k.kind, rec.Kind)
					assert.True(t, rec.Found)
					k.check(t, sb, rec)
				})
			}
		}
	}
}

// TestSettle_NothingRecordedYet: a request the gateway never processed
// (a proxy's HTML 502, which is an unknown outcome too), and an order id
// never sent, settle as OutcomeNotFound.
func TestSettle_NothingRecordedYet(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		params := sb.chargeParams(t, sb.user(t, "cust-1"), paygatetest.CardApproved, "30.00", "ord-lost")
		unknown := lostAnswer(t, sb, "card/process", paygatetest.FaultHTML502, sb.client, func(c *paygate.Client) error {
			_, err := c.Cards.Charge(testCtx(t), params)
			return err
		})
		rec := settled(t, sb, unknown.SettleParams())
		assert.Equal(t, paygate.OutcomeNotFound, rec.Outcome, "keep the order pending and look again")
		assert.False(t, rec.Found)
		assert.False(t, rec.Completed())

		for _, kind := range []paygate.OperationKind{paygate.KindCharge, paygate.KindRecurringCharge, paygate.KindReversal} {
			rec = settled(t, sb, &paygate.TransactionSettleParams{Kind: kind, OrderID: "ord-never-sent"})
			assert.Equal(t, paygate.OutcomeNotFound, rec.Outcome, kind)
		}
	})
}

// TestSettle_PendingThenSettled: a payment processing, a wallet payment
// waiting for its payer and a payout in progress settle as pending, and as
// succeeded once the sandbox completes them.
func TestSettle_PendingThenSettled(t *testing.T) {
	t.Parallel()
	t.Run("processing card", func(t *testing.T) {
		t.Parallel()
		forEachForm(t, func(t *testing.T, form paygate.Form) {
			sb := newSandbox(t, form, paygatetest.WithProcessingDelay(0))
			params := sb.chargeParams(t, sb.user(t, "cust-1"), paygatetest.CardProcessing, "40.00", "ord-slow")
			unknown := lostAnswer(t, sb, "card/process", paygatetest.FaultResetAfterCommit, sb.client, func(c *paygate.Client) error {
				_, err := c.Cards.Charge(testCtx(t), params)
				return err
			})
			assert.Equal(t, paygate.OutcomePending, settled(t, sb, unknown.SettleParams()).Outcome)
			sb.srv.SettlePending()
			assert.True(t, settled(t, sb, unknown.SettleParams()).Completed())
		})
	})
	t.Run("wallet payment and payout", func(t *testing.T) {
		t.Parallel()
		for _, k := range settleKinds() {
			if k.kind != paygate.KindWalletPayment && k.kind != paygate.KindPayout {
				continue
			}
			sb := newSandbox(t, paygate.FormExtended, paygatetest.WithProcessingDelay(0))
			unknown := lostAnswer(t, sb, k.path, paygatetest.FaultResetAfterCommit, sb.client, k.prepare(t, sb))
			rec := settled(t, sb, unknown.SettleParams())
			require.Equal(t, paygate.OutcomePending, rec.Outcome, k.kind)

			event := paygatetest.EventComplete
			if k.kind == paygate.KindWalletPayment {
				event = paygatetest.EventApprove // the payer approves
			}
			_, err := sb.srv.Trigger(rec.Transaction.ID, event)
			require.NoError(t, err)
			rec = settled(t, sb, unknown.SettleParams())
			assert.Equal(t, paygate.OutcomeSucceeded, rec.Outcome, k.kind)
			assert.Equal(t, k.kind == paygate.KindPayout, rec.PayoutCompleted())
			assert.Equal(t, k.kind == paygate.KindWalletPayment, rec.Completed())
		}
	})
}

// TestSettle_APartialReversalThenTheRest: the extended form tells each
// refund apart (the one known before is passed in Seen); the basic form's
// status look-up cannot see a partial reversal, and says so.
func TestSettle_APartialReversalThenTheRest(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		pay := sb.charge(t, paygatetest.CardApproved, "30.00", "ord-rev")
		reverse := func(amount string) *paygate.OutcomeUnknownError {
			return lostAnswer(t, sb, "transaction/reverse", paygatetest.FaultResetAfterCommit, sb.client, func(c *paygate.Client) error {
				_, err := c.Transactions.Reverse(testCtx(t), &paygate.ReverseParams{OrderID: "ord-rev", Amount: dec(amount)})
				return err
			})
		}

		first := settled(t, sb, reverse("10.00").SettleParams())
		var seen []paygate.ID
		if sb.form == paygate.FormExtended {
			assert.True(t, first.Refunded())
			assert.False(t, first.FullyRefunded())
			assert.Equal(t, pay.ID, first.Payment.ID)
			assert.Equal(t, pay.ID, first.Refund().ReferenceID)
			seen = append(seen, first.Refund().ID)
		} else {
			assert.Equal(t, paygate.OutcomeUndetermined, first.Outcome, "the payment still reads completed")
		}

		p := reverse("20.00").SettleParams()
		p.Seen = seen
		rest := settled(t, sb, p)
		assert.True(t, rest.Refunded())
		assert.True(t, rest.FullyRefunded())
		if sb.form == paygate.FormExtended {
			assert.NotEqual(t, seen[0], rest.Refund().ID, "the second refund, not the first")
			assert.True(t, dec("20.00").Equal(rest.Refund().Price))
		}
	})
}

// TestSettle_AnUnboundAuthenticationBySettlingItsPaymentByHand: PaRes and
// MD name no payment, so an unbound Authenticate's unknown outcome carries
// nothing to settle by; the payment's id, known from the charge, settles it.
func TestSettle_AnUnboundAuthenticationBySettlingItsPaymentByHand(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		pay := sb.charge3DS(t, "ord-3ds")
		unknown := lostAnswer(t, sb, "card/authenticate", paygatetest.FaultResetAfterCommit, sb.client, func(c *paygate.Client) error {
			_, err := c.Cards.Authenticate(testCtx(t), sb.returnOf(pay))
			return err
		})
		assert.Equal(t, paygate.KindAuthenticate, unknown.Kind)
		_, err := sb.client.Transactions.Settle(testCtx(t), unknown.SettleParams())
		var invalid *paygate.ValidationError
		require.ErrorAs(t, err, &invalid, "nothing to settle by")

		rec := settled(t, sb, &paygate.TransactionSettleParams{Kind: paygate.KindAuthenticate, TransactionID: pay.ID})
		assert.True(t, rec.Completed())
		assert.Equal(t, "ord-3ds", rec.OrderID)
	})
}
