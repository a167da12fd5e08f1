package paygate_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// charge3DS charges a card enrolled in 3-D Secure for orderID and returns
// the payment waiting for authentication.
func (sb *sandbox) charge3DS(t *testing.T, orderID string) *paygate.Payment {
	t.Helper()
	params := sb.chargeParams(t, sb.user(t, "cust-"+orderID), paygatetest.Card3DSecure, "80.00", orderID)
	params.ACSReturnURL = "https://shop.example/orders/" + orderID + "/3ds"
	pay, err := sb.client.Cards.Charge(testCtx(t), params)
	require.NoError(t, err)
	require.True(t, pay.NeedsAuthentication())
	return pay
}

// returnOf is what the ACS posts back for pay after the right password.
func (sb *sandbox) returnOf(pay *paygate.Payment) *paygate.AuthenticateParams {
	md := pay.ACS.Parameters.MD
	return &paygate.AuthenticateParams{PaRes: paygate.NewACSData(sb.srv.PaRes(md, paygatetest.ACSPassword)), MD: paygate.NewACSData(md)}
}

// twoOrders3DS starts a sandbox in form with two payments waiting for
// 3-D Secure, of orders ord-a and ord-b.
func twoOrders3DS(t *testing.T, form paygate.Form) (sb *sandbox, a, b *paygate.Payment) {
	t.Helper()
	sb = newSandbox(t, form)
	return sb, sb.charge3DS(t, "ord-a"), sb.charge3DS(t, "ord-b")
}

// boundTo binds params to the payment id and its order.
func boundTo(params *paygate.AuthenticateParams, id paygate.ID, orderID string) *paygate.AuthenticateParams {
	params.PaymentID, params.OrderID = id, orderID
	return params
}

func TestAuthenticate_RefusesAReturnOfAnotherOrder(t *testing.T) {
	t.Parallel()
	forEachForm(t, func(t *testing.T, form paygate.Form) {
		sb, a, b := twoOrders3DS(t, form)

		// A's PaRes and MD posted to B's return URL.
		pay, err := sb.client.Cards.Authenticate(testCtx(t), boundTo(sb.returnOf(a), b.ID, "ord-b"))
		require.ErrorIs(t, err, paygate.ErrACSReturnMismatch)
		assert.Nil(t, pay)
		var mismatch *paygate.ACSReturnMismatchError
		require.ErrorAs(t, err, &mismatch)
		assert.Equal(t, a.ID, mismatch.AuthenticatedID)
		assert.Equal(t, paygate.StatusAuthenticating, sb.status(t, b.ID).Status, "B is not completed by A's return")
	})
}

func TestAuthenticate_RefusesAPaymentOfAnotherOrderBeforeSending(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended)
	a := sb.charge3DS(t, "ord-a")
	sb.charge3DS(t, "ord-b")

	params := sb.returnOf(a)
	params.PaymentID, params.OrderID = a.ID, "ord-b" // B's handler holding A's id
	_, err := sb.client.Cards.Authenticate(testCtx(t), params)
	var mismatch *paygate.ACSReturnMismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.Equal(t, "ord-a", mismatch.FoundOrderID)
	assert.Equal(t, paygate.StatusAuthenticating, sb.status(t, a.ID).Status, "nothing was sent")
}

func TestAuthenticate_BoundByOrderIDAlone(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended)
	a, b := sb.charge3DS(t, "ord-a"), sb.charge3DS(t, "ord-b")

	params := sb.returnOf(a)
	params.OrderID = "ord-b"
	_, err := sb.client.Cards.Authenticate(testCtx(t), params)
	require.ErrorIs(t, err, paygate.ErrACSReturnMismatch)
	assert.Equal(t, paygate.StatusAuthenticating, sb.status(t, b.ID).Status)

	params = sb.returnOf(b)
	params.OrderID = "ord-b"
	pay, err := sb.client.Cards.Authenticate(testCtx(t), params)
	require.NoError(t, err)
	assert.Equal(t, b.ID, pay.ID)
	assert.Equal(t, paygate.StatusCompleted, sb.status(t, b.ID).Status)
}

func TestAuthenticate_RepeatedReturnReportsTheCurrentStatus(t *testing.T) {
	t.Parallel()
	forEachSandbox(t, func(t *testing.T, sb *sandbox) {
		a := sb.charge3DS(t, "ord-a")
		params := sb.returnOf(a)
		params.PaymentID, params.OrderID = a.ID, "ord-a"

		first, err := sb.client.Cards.Authenticate(testCtx(t), params)
		require.NoError(t, err)
		assert.Equal(t, a.ID, first.ID)

		again, err := sb.client.Cards.Authenticate(testCtx(t), params)
		require.NoError(t, err, "a repeated return is not a 40501 failure")
		assert.Equal(t, a.ID, again.ID)
		assert.True(t, again.Completed())
		assert.Equal(t, "ord-a", again.OrderID)
	})
}

func TestAuthenticate_UnboundRepeatedReturnStillFailsWith40501(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended)
	a := sb.charge3DS(t, "ord-a")
	_, err := sb.client.Cards.Authenticate(testCtx(t), sb.returnOf(a))
	require.NoError(t, err)
	_, err = sb.client.Cards.Authenticate(testCtx(t), sb.returnOf(a))
	require.ErrorIs(t, err, paygate.ErrTransactionCompleted, "without a binding the SDK cannot tell a repeat from another payment's return")
}

// A's return, posted to B's return URL once A is completed, gets 40501
// from the gateway: B still waits, so the return was another payment's.
func TestAuthenticate_ReturnOfAnotherCompletedOrderIsAMismatch(t *testing.T) {
	forEachForm(t, func(t *testing.T, form paygate.Form) {
		sb, a, b := twoOrders3DS(t, form)
		_, err := sb.client.Cards.Authenticate(testCtx(t), boundTo(sb.returnOf(a), a.ID, "ord-a"))
		require.NoError(t, err)

		_, err = sb.client.Cards.Authenticate(testCtx(t), boundTo(sb.returnOf(a), b.ID, "ord-b"))
		require.ErrorIs(t, err, paygate.ErrACSReturnMismatch)
		require.ErrorIs(t, err, paygate.ErrTransactionCompleted, "the gateway's answer is kept")
		assert.Contains(t, err.Error(), "not to payment "+b.ID.String())
		assert.Equal(t, paygate.StatusAuthenticating, sb.status(t, b.ID).Status)
	})
}

// Returns of A posted at once to A's and to B's return URL: A's all report
// A completed, B's are all refused, and B still waits.
func TestAuthenticate_ConcurrentReturnsCompleteOnlyTheirOwnPayment(t *testing.T) {
	forEachForm(t, func(t *testing.T, form paygate.Form) {
		sb, a, b := twoOrders3DS(t, form)
		const n = 16
		var wg sync.WaitGroup
		pays, errs := make([]*paygate.Payment, n), make([]error, n)
		for i := range n {
			params := boundTo(sb.returnOf(a), a.ID, "ord-a")
			if i%2 == 1 {
				boundTo(params, b.ID, "ord-b")
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				pays[i], errs[i] = sb.client.Cards.Authenticate(testCtx(t), params)
			}()
		}
		wg.Wait()
		for i := range n {
			if i%2 == 1 {
				assert.ErrorIs(t, errs[i], paygate.ErrACSReturnMismatch, "B's return URL, attempt %d", i)
				continue
			}
			if assert.NoError(t, errs[i], "A's return URL, attempt %d", i) {
				assert.Equal(t, a.ID, pays[i].ID)
			}
		}
		assert.Equal(t, paygate.StatusCompleted, sb.status(t, a.ID).Status)
		assert.Equal(t, paygate.StatusAuthenticating, sb.status(t, b.ID).Status)
	})
}
