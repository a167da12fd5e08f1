package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// paying3DS creates an order, charges a card enrolled in 3-D Secure for it
// as the checkout does, and returns the order and the ACS's answer for it
// after the right password.
func paying3DS(t *testing.T, a *app, sandbox *paygatetest.Server) (order, url.Values) {
	t.Helper()
	ctx := context.Background()
	o := a.orders.create(catalog[0], "payer@example.com")
	tok, err := a.cfg.Client.Cards.Tokenize(ctx, &paygate.TokenizeParams{
		Number: paygate.NewCardNumber(paygatetest.Card3DSecure), Expiry: paygate.NewExpiry(12, 2031), SecurityCode: paygate.NewSecurityCode("123")})
	require.NoError(t, err)
	pay, err := a.cfg.Client.Cards.Charge(ctx, &paygate.ChargeParams{
		UserDetails: &paygate.UserDetails{Identifier: "payer@example.com", Email: "payer@example.com", IP: "203.0.113.9"},
		CardToken:   paygate.NewCardToken(tok.ID), Price: o.Product.Price, Currency: o.Product.Currency, Description: o.Product.Name,
		OrderID: o.ID, ACSReturnURL: "http://shop.test/orders/" + o.ID + "/3ds",
	})
	require.NoError(t, err)
	require.True(t, pay.NeedsAuthentication())
	o = a.orders.endPayment(o.ID, attempt{TX: pay.ID, Method: "card", Source: "charge", Reported: string(pay.Status),
		Observation: paygate.ObserveCharge(pay, nil)})
	md := pay.ACS.Parameters.MD
	return o, url.Values{"PaRes": {sandbox.PaRes(md, paygatetest.ACSPassword)}, "MD": {md}}
}

func postACSReturn(h http.Handler, orderID string, form url.Values) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/orders/"+orderID+"/3ds", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return serve(h, req)
}

func TestACSReturn_OfAnotherOrderIsRefusedAndCompletesNothingHere(t *testing.T) {
	a, h, sandbox := newTestAppWithSandbox(t)
	_, returnA := paying3DS(t, a, sandbox)
	orderB, _ := paying3DS(t, a, sandbox)

	res := postACSReturn(h, orderB.ID, returnA)
	assert.Equal(t, http.StatusBadRequest, res.Code)
	assert.Contains(t, res.Body.String(), "belongs to another payment")
	got, _ := a.orders.get(orderB.ID)
	assert.Equal(t, paygate.OrderAuthenticating, got.Status(), "order B is not paid by A's verification")
	st, err := a.cfg.Client.Transactions.Status(context.Background(), &paygate.TransactionStatusParams{ID: orderB.TransactionID})
	require.NoError(t, err)
	assert.Equal(t, paygate.StatusAuthenticating, st.Status)
}

func TestACSReturn_RepeatedShowsTheOrderInsteadOfAFailure(t *testing.T) {
	a, h, sandbox := newTestAppWithSandbox(t)
	o, ret := paying3DS(t, a, sandbox)

	res := postACSReturn(h, o.ID, ret)
	require.Equal(t, http.StatusSeeOther, res.Code)
	got, _ := a.orders.get(o.ID)
	assert.Equal(t, paygate.OrderPaid, got.Status())

	res = postACSReturn(h, o.ID, ret) // the payer went back and submitted again
	assert.Equal(t, http.StatusSeeOther, res.Code)
	assert.Equal(t, "/orders/"+o.ID, res.Header().Get("Location"))
	got, _ = a.orders.get(o.ID)
	assert.Equal(t, paygate.OrderPaid, got.Status())
}

func newTestAppWithSandbox(t *testing.T) (*app, http.Handler, *paygatetest.Server) {
	t.Helper()
	sandbox := paygatetest.NewServer()
	t.Cleanup(sandbox.Close)
	h, err := newApp(config{
		Client: sandbox.Client(), CallbackKey: sandbox.PrivateKey, GatewayURL: sandbox.URL, PublicURL: "http://shop.test",
	})
	require.NoError(t, err)
	return h.(*app), h, sandbox
}
