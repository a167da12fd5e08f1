package paygate_test

import (
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

// A payment is reversed in parts; once nothing is left it reads refunded
// (basic form: reversed) and cannot be reversed further.
func TestIntegration_ReversePartlyThenFully(t *testing.T) {
	t.Parallel()
	fullyReversed := map[paygate.Form]paygate.Status{
		paygate.FormExtended: paygate.StatusRefunded,
		paygate.FormBasic:    paygate.StatusReversed,
	}
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		pay := sb.charge(t, paygatetest.CardApproved, "30.00", "ord-1")

		part, err := sb.client.Transactions.Reverse(testCtx(t), &paygate.ReverseParams{
			ID: pay.ID, Amount: dec("10.00"), Comment: "one item returned",
		})
		require.NoError(t, err)
		assert.True(t, part.Success)
		if sb.form == paygate.FormExtended {
			assert.Equal(t, paygate.TypeRefund, part.Type)
			assert.Equal(t, paygate.StatusCompleted, part.Status)
			assert.Equal(t, pay.ID, part.ReferenceID)
			assert.True(t, dec("10.00").Equal(part.Price))
		}
		assert.Equal(t, paygate.StatusCompleted, sb.status(t, pay.ID).Status, "a partial reversal leaves the payment completed")

		rest, err := sb.client.Transactions.Reverse(testCtx(t), &paygate.ReverseParams{OrderID: "ord-1", Amount: dec("20.00")})
		require.NoError(t, err)
		assert.True(t, rest.Success)
		st := sb.status(t, pay.ID)
		assert.Equal(t, fullyReversed[sb.form], st.Status)
		assert.Equal(t, paygate.StatusCompleted, st.OriginalStatus)

		_, err = sb.reverse(t, pay.ID, "0.01")
		require.ErrorIs(t, err, paygate.ErrNotReversible)
	})
}

func TestIntegration_ReverseWhatCannotBeReversed(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		declined := sb.charge(t, paygatetest.CardDeclined, "30.00", "ord-1")
		_, err := sb.reverse(t, declined.ID, "1.00")
		require.ErrorIs(t, err, paygate.ErrNotReversible, "a failed payment")

		pay := sb.charge(t, paygatetest.CardApproved, "30.00", "ord-2")
		_, err = sb.reverse(t, pay.ID, "30.01")
		require.ErrorIs(t, err, paygate.ErrNotReversible, "more than was paid")

		_, err = sb.client.Transactions.Reverse(testCtx(t), &paygate.ReverseParams{OrderID: "no-such-order", Amount: dec("1.00")})
		require.ErrorIs(t, err, paygate.ErrTransactionNotFound)
	})
}

func TestIntegration_StatusByIDAndByOrderID(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		pay := sb.charge(t, paygatetest.CardApproved, "30.00", "ord-1")
		_, err := sb.reverse(t, pay.ID, "5.00")
		require.NoError(t, err)

		byOrder, err := sb.client.Transactions.Status(testCtx(t), &paygate.TransactionStatusParams{OrderID: "ord-1"})
		require.NoError(t, err)
		assert.Equal(t, pay.ID, byOrder.ID, "the order's payment, not its refund")
		assert.Equal(t, "ord-1", byOrder.OrderID)
		assert.True(t, dec("30.00").Equal(byOrder.Price))
		assert.True(t, fee("30.00").Equal(byOrder.Fee))
		assert.Equal(t, "EUR", byOrder.Currency)
		assert.Equal(t, sandboxStart, byOrder.CreatedAt.Time)

		_, err = sb.client.Transactions.Status(testCtx(t), &paygate.TransactionStatusParams{ID: pay.ID + 1000})
		require.ErrorIs(t, err, paygate.ErrTransactionNotFound)
	})
}

// listOrder charges 30 EUR for order ord-list at sandboxStart and reverses
// 5 EUR of it three times, an hour apart: four transactions of one order.
func listOrder(t *testing.T, sb *sandbox) (payment paygate.ID, refunds []paygate.ID) {
	t.Helper()
	pay := sb.charge(t, paygatetest.CardApproved, "30.00", "ord-list")
	for range 3 {
		sb.srv.Advance(time.Hour)
		r, err := sb.reverse(t, pay.ID, "5.00")
		require.NoError(t, err)
		refunds = append(refunds, r.ID)
	}
	return pay.ID, refunds
}

func TestIntegration_GetListAndAll(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended)
	payID, refunds := listOrder(t, sb)
	sb.charge(t, paygatetest.CardApproved, "1.00", "another-order")
	ctx := testCtx(t)

	tx, err := sb.client.Transactions.Get(ctx, payID)
	require.NoError(t, err)
	assert.Equal(t, payID, tx.ID)
	assert.Equal(t, paygate.TypePayment, tx.Type)
	assert.Equal(t, "card", tx.Method)
	assert.Equal(t, paygate.StatusCompleted, tx.Status)
	require.NotNil(t, tx.Card)
	assert.Equal(t, "4242", tx.Card.LastFour)
	require.NotNil(t, tx.User)
	assert.Equal(t, "cust-ord-list", tx.User.Identifier)

	_, err = sb.client.Transactions.Get(ctx, payID+1000)
	require.ErrorIs(t, err, paygate.ErrTransactionNotFound)

	t.Run("pages", func(t *testing.T) {
		first, err := sb.client.Transactions.List(ctx, &paygate.TransactionListParams{OrderID: "ord-list", Limit: 3})
		require.NoError(t, err)
		assert.Equal(t, 4, first.TotalCount)
		require.Len(t, first.Transactions, 3)
		second, err := sb.client.Transactions.List(ctx, &paygate.TransactionListParams{OrderID: "ord-list", Limit: 3, Page: 2})
		require.NoError(t, err)
		require.Len(t, second.Transactions, 1)
		assert.Equal(t, refunds[2], second.Transactions[0].ID)
	})
	t.Run("type filter", func(t *testing.T) {
		page, err := sb.client.Transactions.List(ctx, &paygate.TransactionListParams{OrderID: "ord-list", Type: paygate.TypeRefund})
		require.NoError(t, err)
		assert.Equal(t, refunds, ids(page.Transactions))
	})
	t.Run("status filter", func(t *testing.T) {
		page, err := sb.client.Transactions.List(ctx, &paygate.TransactionListParams{OrderID: "ord-list", Status: paygate.StatusCompleted, Type: paygate.TypePayment})
		require.NoError(t, err)
		assert.Equal(t, []paygate.ID{payID}, ids(page.Transactions))
	})
	t.Run("created filter", func(t *testing.T) {
		page, err := sb.client.Transactions.List(ctx, &paygate.TransactionListParams{
			OrderID: "ord-list",
			Created: paygate.TimeRange{From: sandboxStart.Add(90 * time.Minute), To: sandboxStart.Add(150 * time.Minute)},
		})
		require.NoError(t, err)
		assert.Equal(t, []paygate.ID{refunds[1]}, ids(page.Transactions))
	})
	t.Run("updated filter: later refunds leave the payment's update time", func(t *testing.T) {
		page, err := sb.client.Transactions.List(ctx, &paygate.TransactionListParams{
			OrderID: "ord-list", Updated: paygate.TimeRange{To: sandboxStart.Add(30 * time.Minute)},
		})
		require.NoError(t, err)
		assert.Equal(t, []paygate.ID{payID}, ids(page.Transactions))
	})
	t.Run("all pages", func(t *testing.T) {
		var got []paygate.ID
		for tx, err := range sb.client.Transactions.All(ctx, &paygate.TransactionListParams{OrderID: "ord-list", Limit: 1}) {
			require.NoError(t, err)
			got = append(got, tx.ID)
		}
		assert.Equal(t, append([]paygate.ID{payID}, refunds...), got)
	})
	t.Run("an order without transactions", func(t *testing.T) {
		page, err := sb.client.Transactions.List(ctx, &paygate.TransactionListParams{OrderID: "nothing-here"})
		require.NoError(t, err)
		assert.Zero(t, page.TotalCount)
		assert.Empty(t, page.Transactions)
	})
}

func TestIntegration_Reconcile(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		sb.charge(t, paygatetest.CardApproved, "30.00", "ord-paid")
		sb.charge(t, paygatetest.CardDeclined, "30.00", "ord-declined")

		rec, err := sb.client.Transactions.Reconcile(testCtx(t), "ord-paid")
		require.NoError(t, err)
		assert.True(t, rec.Found)
		assert.True(t, rec.Completed())

		rec, err = sb.client.Transactions.Reconcile(testCtx(t), "ord-declined")
		require.NoError(t, err)
		assert.True(t, rec.Found)
		assert.False(t, rec.Completed())

		rec, err = sb.client.Transactions.Reconcile(testCtx(t), "ord-never-sent")
		require.NoError(t, err)
		assert.False(t, rec.Found, "nothing recorded yet")
	})
}

// An alternative-method payment is confirmed on the sandbox's confirm page,
// which the payer's browser submits; the page redirects to success_url or
// fail_url and the payment completes or fails, with its callback.
func TestIntegration_AlternativePaymentThroughTheConfirmPage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		action   string
		location string
		status   paygate.Status
		callback callback.Status
	}{
		{"approve", "https://shop.example/paid", paygate.StatusCompleted, callback.Completed},
		{"decline", "https://shop.example/failed", paygate.StatusFailed, callback.Failed},
	}
	for _, tt := range tests {
		t.Run(tt.action, func(t *testing.T) {
			rc := newReceiver(t, paygatetest.DefaultPrivateKey)
			sb := newSandbox(t, paygate.FormExtended, paygatetest.WithCallbackURL(rc.URL))
			pay, err := sb.client.Transactions.Create(testCtx(t), &paygate.AlternativeCreateParams{
				UserIdentifier: "customer-8812", PaymentMethod: paygate.MethodPayPal, Price: dec("9.90"), Currency: "EUR",
				Description: "Premium plan", OrderID: "alt-1",
				SuccessURL: "https://shop.example/paid", FailURL: "https://shop.example/failed",
			})
			require.NoError(t, err)
			assert.Equal(t, paygate.StatusOpened, pay.Status)
			assert.True(t, dec("9.90").Equal(pay.Amount))
			assert.Equal(t, sb.srv.URL+"/confirm/"+pay.ID.String()+"/", pay.RedirectURL)

			// The payer's browser opens the page and submits its form with
			// the button pressed.
			page, err := http.Get(pay.RedirectURL)
			require.NoError(t, err)
			body, err := io.ReadAll(page.Body)
			page.Body.Close()
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, page.StatusCode)
			assert.Contains(t, string(body), `name="action" value="`+tt.action+`"`)
			action, err := page.Request.URL.Parse(formAction(t, string(body)))
			require.NoError(t, err)
			assert.Equal(t, paygate.StatusOpened, sb.status(t, pay.ID).Status)

			// The form carries the page's single-use token.
			form := url.Values{"action": {tt.action}}
			for k, v := range hiddenFields(string(body)) {
				form.Set(k, v)
			}
			require.NotEmpty(t, form.Get("token"))
			resp := postForm(t, action.String(), form)
			assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
			assert.Equal(t, tt.location, resp.Header.Get("Location"))
			assert.Equal(t, tt.status, sb.status(t, pay.ID).Status)

			cb := rc.wait(t, pay.ID, tt.callback)
			assert.Equal(t, "alt-1", cb.OrderID)
			conf, err := sb.client.ConfirmCallback(testCtx(t), cb)
			require.NoError(t, err)
			assert.True(t, conf.Confirmed(), "mismatches: %v", conf.Mismatches())
		})
	}
}

// The endpoints the basic form lacks fail locally with ErrBasicForm: no
// request reaches the gateway.
func TestIntegration_ExtendedOnlyEndpointsFailLocallyInTheBasicForm(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormBasic)
	client, sent := sb.countingClient()
	ctx := testCtx(t)
	calls := map[string]func() error{
		"Transactions.Create": func() error {
			_, err := client.Transactions.Create(ctx, &paygate.AlternativeCreateParams{
				UserIdentifier: "u", PaymentMethod: paygate.MethodPayPal, Price: dec("1"), Currency: "EUR",
				Description: "d", SuccessURL: "https://shop.example/ok", FailURL: "https://shop.example/fail",
			})
			return err
		},
		"Transactions.Get": func() error { _, err := client.Transactions.Get(ctx, 1000000000000000001); return err },
		"Transactions.List": func() error {
			_, err := client.Transactions.List(ctx, &paygate.TransactionListParams{OrderID: "o"})
			return err
		},
		"Transactions.All": func() error {
			for _, err := range client.Transactions.All(ctx, &paygate.TransactionListParams{OrderID: "o"}) {
				return err
			}
			return nil
		},
		"Payouts.Create": func() error {
			_, err := client.Payouts.Create(ctx, &paygate.PayoutParams{
				Type: paygate.PayoutType{ID: paygatetest.PayoutWallet, Key: "WALLET"}, Account: paygate.NewAccountNumber("W1"), Amount: dec("1"), Currency: "EUR", Phone: "4915123456789",
			})
			return err
		},
		"Balance.Get": func() error { _, err := client.Balance.Get(ctx, nil); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, call(), paygate.ErrBasicForm)
		})
	}
	assert.Zero(t, sent.Load(), "requests sent")
}

func ids(txs []paygate.Transaction) []paygate.ID {
	out := make([]paygate.ID, len(txs))
	for i, tx := range txs {
		out[i] = tx.ID
	}
	return out
}
