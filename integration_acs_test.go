package paygate_test

import (
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
	return &paygate.AuthenticateParams{PaRes: sb.srv.PaRes(md, paygatetest.ACSPassword), MD: md}
}

func TestAuthenticate_RefusesAReturnOfAnotherOrder(t *testing.T) {
	t.Parallel()
	forEachForm(t, func(t *testing.T, form paygate.Form) {
		sb := newSandbox(t, form)
		a, b := sb.charge3DS(t, "ord-a"), sb.charge3DS(t, "ord-b")

		// A's PaRes and MD posted to B's return URL.
		params := sb.returnOf(a)
		params.PaymentID, params.OrderID = b.ID, "ord-b"
		pay, err := sb.client.Cards.Authenticate(testCtx(t), params)
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
	forEachForm(t, func(t *testing.T, form paygate.Form) {
		sb := newSandbox(t, form)
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
