package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// charge3DS charges a card enrolled in 3-D Secure for orderID, as the flow
// does, and returns the payment and what the ACS posts back after the
// right password.
func charge3DS(t *testing.T, gw *gateway, orderID string) (*paygate.Payment, url.Values) {
	t.Helper()
	ctx := context.Background()
	user, err := gw.client.Users.Resolve(ctx, &paygate.ResolveUserParams{Identifier: "payer-" + orderID, IP: "203.0.113.9"})
	require.NoError(t, err)
	tok, err := gw.client.Cards.Tokenize(ctx, &paygate.TokenizeParams{
		Number: paygate.NewCardNumber(paygatetest.Card3DSecure), Expiry: paygate.NewExpiry(12, 2031), SecurityCode: paygate.NewSecurityCode("123")})
	require.NoError(t, err)
	pay, err := gw.client.Cards.Charge(ctx, &paygate.ChargeParams{User: user, CardToken: paygate.NewCardToken(tok.ID),
		Price: decimal.RequireFromString("120.00"), Currency: "EUR", Description: "Order " + orderID, OrderID: orderID,
		ACSReturnURL: gw.merchant.URL + "/orders/" + orderID + "/acs-return"})
	require.NoError(t, err)
	require.True(t, pay.NeedsAuthentication())
	md := pay.ACS.Parameters.MD
	return pay, url.Values{"PaRes": {gw.sandbox.PaRes(md, paygatetest.ACSPassword)}, "MD": {md}}
}

func TestACSReturn_OfAnotherOrderIsRefused(t *testing.T) {
	gw, err := openGateway(envOf(nil))
	require.NoError(t, err)
	defer gw.Close()
	payA, returnA := charge3DS(t, gw, "qs-order-a")
	payB, _ := charge3DS(t, gw, "qs-order-b")

	res, err := http.PostForm(gw.merchant.URL+"/orders/qs-order-b/acs-return", returnA)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Contains(t, string(body), "belongs to another payment")
	st, err := gw.client.Transactions.Status(context.Background(), &paygate.TransactionStatusParams{ID: payB.ID})
	require.NoError(t, err)
	assert.Equal(t, paygate.StatusAuthenticating, st.Status, "order B is not paid by A's verification")

	res, err = http.PostForm(gw.merchant.URL+"/orders/qs-order-a/acs-return", returnA)
	require.NoError(t, err)
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, string(body), "payment "+payA.ID.String())
}
