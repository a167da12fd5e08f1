package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

func TestCallback_OvertakingAnUnknownChargeAnswerLeavesTheOrderPaid(t *testing.T) {
	t.Parallel()
	// The shop's charge gets no answer until the test gives up on it, as a
	// shop's deadline would: the gateway processed it (the fault), so the
	// outcome is unknown.
	held := &heldCharge{release: make(chan struct{})}
	s := startShop(t, paygate.WithHTTPClient(&http.Client{Transport: held}))
	require.NoError(t, s.Sandbox.InjectFault("card/process", paygatetest.FaultTimeoutAfterCommit, 1))
	orderID := s.newOrder(t)

	charged := make(chan *http.Response, 1)
	go func() { charged <- s.payByCard(t, orderID, paygatetest.CardApproved) }()
	// The gateway's completed callback comes while the answer is held: the
	// shop confirms it and takes it.
	requireCallback(t, s, orderID, callback.Completed)
	assert.Equal(t, paygate.OrderPaid, s.orderStatus(t, orderID))

	close(held.release)
	res := <-charged
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/orders/"+orderID, res.Header.Get("Location"))
	assert.Equal(t, paygate.OrderPaid, s.orderStatus(t, orderID), "the late unknown answer leaves the order paid")
	page := s.page(t, orderID)
	assert.Contains(t, page, "Payment completed")
	assert.Regexp(t, `callback</span> <span class="event-status">completed(?s:.*)charge</span> <span class="event-status">unknown`, page,
		"the history shows the callback before the unknown answer")
	assert.Contains(t, s.log.String(), "outcome unknown", "the charge did end in ErrOutcomeUnknown")
}

func TestCallback_RefundsChargebackAndRetrievalShowOnTheOrderPage(t *testing.T) {
	t.Parallel()
	s := startShop(t)
	orderID := s.newOrder(t)
	res := s.payByCard(t, orderID, paygatetest.CardApproved)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, paygate.OrderPaid, s.orderStatus(t, orderID))
	payment := requireGatewayPayment(t, s, orderID)

	_, err := s.Client.Transactions.Reverse(context.Background(), &paygate.ReverseParams{ID: payment, Amount: decimal.RequireFromString("5.00")})
	require.NoError(t, err)
	requireCallback(t, s, orderID, callback.RefundCompleted)
	assert.Equal(t, paygate.OrderPartiallyRefunded, s.orderStatus(t, orderID))
	assert.Regexp(t, `Refund</span> <span class="money-amount">5.00 EUR`, s.page(t, orderID))

	chargeback, err := s.Sandbox.Chargeback(payment)
	require.NoError(t, err)
	requireCallback(t, s, orderID, callback.ChargebackCompleted)
	assert.Equal(t, paygate.OrderChargedBack, s.orderStatus(t, orderID))
	page := s.page(t, orderID)
	assert.Contains(t, page, "Charged back")
	assert.Regexp(t, `Chargeback</span> <span class="money-amount">7.50 EUR`, page, "what was left after the refund")

	_, err = s.Sandbox.Retrieve(chargeback)
	require.NoError(t, err)
	requireCallback(t, s, orderID, callback.RetrievalCompleted)
	assert.Equal(t, paygate.OrderRetrieved, s.orderStatus(t, orderID))
	assert.Regexp(t, `Dispute won</span> <span class="money-amount">7.50 EUR`, s.page(t, orderID))
}

func TestCallback_StaleCompletedAfterARefundIsAcknowledgedAndChangesNothing(t *testing.T) {
	t.Parallel()
	s := startShop(t)
	orderID := s.newOrder(t)
	s.payByCard(t, orderID, paygatetest.CardApproved)
	completed := requireCallback(t, s, orderID, callback.Completed)
	payment := requireGatewayPayment(t, s, orderID)
	_, err := s.Client.Transactions.Reverse(context.Background(), &paygate.ReverseParams{ID: payment, Amount: decimal.RequireFromString("12.50")})
	require.NoError(t, err)
	requireCallback(t, s, orderID, callback.RefundCompleted)
	require.Equal(t, paygate.OrderRefunded, s.orderStatus(t, orderID))

	require.NoError(t, s.Sandbox.Redeliver(completed.Seq))
	d, err := s.Sandbox.WaitForDelivery(context.Background(), func(d paygatetest.Delivery) bool {
		return d.Seq == completed.Seq && d.Attempts == 2
	})
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, d.LastStatus, "acknowledged")
	assert.Equal(t, paygate.OrderRefunded, s.orderStatus(t, orderID), "a stale completed never reopens a refunded order")

	// After a restart the memory de-duplication has forgotten the callback:
	// the shop's function sees it, the gateway's record no longer confirms
	// it, and the order's rule tells it is old news.
	restarted, err := callback.NewHandler([]string{s.Sandbox.PrivateKey}, s.app.handleCallback)
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodPost, "/callback", strings.NewReader(completed.Values.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res := serve(restarted, req)
	assert.Equal(t, http.StatusOK, res.Code, "acknowledged, not delivered again and again")
	assert.Contains(t, s.log.String(), "callback overtaken by the order")
	assert.Equal(t, paygate.OrderRefunded, s.orderStatus(t, orderID))
}

// heldCharge is a transport that holds the answer to a charge until
// release is closed, then gives up on it: the request was sent, so the
// SDK reports an unknown outcome.
type heldCharge struct{ release chan struct{} }

func (h *heldCharge) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(req.URL.Path, "/card/process") {
		return http.DefaultTransport.RoundTrip(req)
	}
	ctx, giveUp := context.WithCancel(req.Context())
	go func() {
		<-h.release
		giveUp()
	}()
	return http.DefaultTransport.RoundTrip(req.WithContext(ctx))
}

// newOrder buys the mug and returns the new order's id.
func (s *shop) newOrder(t *testing.T) string {
	t.Helper()
	res := s.post(t, "/orders", url.Values{"sku": {"mug"}})
	id, ok := strings.CutPrefix(res.Header.Get("Location"), "/orders/")
	require.True(t, ok, "redirect to %q", res.Header.Get("Location"))
	return strings.TrimSuffix(id, "/checkout")
}

// payByCard does what the checkout page's script does: tokenizes card at
// the gateway and posts the token to the shop's charge endpoint.
func (s *shop) payByCard(t *testing.T, orderID, card string) *http.Response {
	t.Helper()
	tok, err := s.Client.Cards.Tokenize(context.Background(), &paygate.TokenizeParams{
		Number: paygate.NewCardNumber(card), Expiry: paygate.NewExpiry(12, 2031), SecurityCode: paygate.NewSecurityCode(cvc)})
	require.NoError(t, err)
	return s.post(t, "/orders/"+orderID+"/charge", url.Values{"email": {payerEmail}, "card_token": {tok.ID}})
}

// post posts form to the shop without following the redirect.
func (s *shop) post(t *testing.T, path string, form url.Values) *http.Response {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(s.URL+path, form)
	require.NoError(t, err)
	res.Body.Close()
	return res
}

// orderStatus is the order's status as the order page's script reads it.
func (s *shop) orderStatus(t *testing.T, orderID string) paygate.OrderStatus {
	t.Helper()
	var st struct{ Status paygate.OrderStatus }
	require.NoError(t, json.Unmarshal([]byte(s.get(t, "/orders/"+orderID+"/status")), &st))
	return st.Status
}

// page is the order page's HTML.
func (s *shop) page(t *testing.T, orderID string) string {
	t.Helper()
	return s.get(t, "/orders/"+orderID)
}

func (s *shop) get(t *testing.T, path string) string {
	t.Helper()
	res, err := http.Get(s.URL + path)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, path)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return string(body)
}

// requireGatewayPayment returns the id of the order's payment as the
// shop recorded it from the gateway's answer.
func requireGatewayPayment(t *testing.T, s *shop, orderID string) paygate.ID {
	t.Helper()
	o, ok := s.app.orders.get(orderID)
	require.True(t, ok)
	require.NotZero(t, o.TransactionID, "the order's payment")
	return o.TransactionID
}
