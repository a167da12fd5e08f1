package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/testkit/chromium"
	"github.com/paygate/paygate-go/paygatetest"
)

const (
	scenarioTimeout = 45 * time.Second
	payerEmail      = "payer@example.com"
	cvc             = "123"
)

// expiry is a card expiry date three years ahead, as MM/YY.
var expiry = fmt.Sprintf("12/%02d", (time.Now().Year()+3)%100)

func TestCheckout_ApprovedCardCompletesWithout3DSecure(t *testing.T) {
	t.Parallel()
	s, ctx, orderID := startCheckout(t)

	do(t, ctx, fillCard(groupDigits(paygatetest.CardApproved)))
	do(t, ctx, chromedp.Blur(chromedp.ID("card-cvc")))
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	require.NoError(t, chromium.SaveScreenshot("checkout.png", png)) // -update-screenshots rewrites it

	do(t, ctx, chromedp.Click(chromedp.ID("pay-card")), waitStatus(paygate.OrderPaid))
	assert.Equal(t, "Payment completed", text(t, ctx, "#order-status"))
	assert.Contains(t, text(t, ctx, "#events"), "charge completed")
	assert.Equal(t, s.URL+"/orders/"+orderID, location(t, ctx))
	assert.False(t, s.sawPath("POST", "/orders/"+orderID+"/3ds"), "no 3-D Secure step")

	requireGateway(t, s, orderID, paygate.StatusCompleted, paygatetest.CardApproved)
}

func TestCheckout_3DSecureWithRightPasswordCompletes(t *testing.T) {
	t.Parallel()
	s, ctx, orderID := startCheckout(t)

	payWith3DSecure(t, ctx, s, paygatetest.ACSPassword, paygate.OrderPaid)
	assert.Equal(t, "Payment completed", text(t, ctx, "#order-status"))
	assert.Contains(t, text(t, ctx, "#events"), "charge authenticating")
	assert.Contains(t, text(t, ctx, "#events"), "3-D Secure completed")
	assert.True(t, s.sawPath("POST", "/orders/"+orderID+"/3ds"), "the ACS returned the payer to acs_return_url")

	requireGateway(t, s, orderID, paygate.StatusCompleted, paygatetest.Card3DSecure)
}

func TestCheckout_3DSecureWithWrongPasswordShowsFailure(t *testing.T) {
	t.Parallel()
	s, ctx, orderID := startCheckout(t)

	payWith3DSecure(t, ctx, s, "0000", paygate.OrderFailed)
	assert.Equal(t, "Payment failed", text(t, ctx, "#order-status"))
	assert.Contains(t, text(t, ctx, "#order-message"), "could not verify this payment (3-D Secure failed)")
	assert.Contains(t, text(t, ctx, "#retry"), "Try again")

	requireGateway(t, s, orderID, paygate.StatusFailed, paygatetest.Card3DSecure)
}

func TestCheckout_DeclinedCardShowsDecline(t *testing.T) {
	t.Parallel()
	s, ctx, orderID := startCheckout(t)

	do(t, ctx, fillCard(paygatetest.CardDeclined), chromedp.Click(chromedp.ID("pay-card")), waitStatus(paygate.OrderFailed))
	assert.Equal(t, "Payment failed", text(t, ctx, "#order-status"))
	assert.Contains(t, text(t, ctx, "#order-message"), "Your card was declined")

	requireGateway(t, s, orderID, paygate.StatusFailed, paygatetest.CardDeclined)
	requireCallback(t, s, orderID, callback.Failed)
}

func TestCheckout_InvalidCardNumberIsCaughtInTheBrowser(t *testing.T) {
	t.Parallel()
	s, ctx, orderID := startCheckout(t)
	const invalid = "4242424242424241" // fails the Luhn check

	do(t, ctx, fillCard(groupDigits(invalid)), chromedp.Click(chromedp.ID("pay-card")),
		chromedp.WaitVisible(chromedp.ID("card-error")))
	assert.Equal(t, "That card number is not valid. Please check it and try again.", text(t, ctx, "#card-error"))
	assert.Equal(t, s.URL+"/orders/"+orderID+"/checkout", location(t, ctx), "the payer stays on the card form")
	assert.False(t, s.sawPath("POST", "/orders/"+orderID+"/charge"), "nothing was posted to the shop")

	_, err := s.Client.Transactions.Status(ctx, &paygate.TransactionStatusParams{OrderID: orderID})
	require.ErrorIs(t, err, paygate.ErrTransactionNotFound, "the gateway has no payment for the order")
	s.requireNeverSaw(t, invalid)
}

func TestCheckout_PayPalApproved(t *testing.T) {
	t.Parallel()
	s, ctx, orderID := startCheckout(t)

	do(t, ctx, openPayPal())
	assert.Equal(t, "12.50 EUR", text(t, ctx, "#amount"), "the gateway's confirm page shows the order's amount")
	assert.True(t, strings.HasPrefix(location(t, ctx), s.Sandbox.URL+"/confirm/"), "the payer is on the gateway's confirm page")

	do(t, ctx, answerPayPal("approve", "success"))
	assert.Equal(t, "Thank you!", text(t, ctx, "#result-title"))
	assert.Equal(t, s.URL+"/orders/"+orderID+"/paypal/success", location(t, ctx))
	assert.Equal(t, "Payment completed", text(t, ctx, "#order-status"))

	do(t, ctx, chromedp.Click(chromedp.ID("order-link")), waitStatus(paygate.OrderPaid))
	requireGateway(t, s, orderID, paygate.StatusCompleted, "")
	requireCallback(t, s, orderID, callback.Completed)
}

func TestCheckout_PayPalDeclined(t *testing.T) {
	t.Parallel()
	s, ctx, orderID := startCheckout(t)

	do(t, ctx, openPayPal(), answerPayPal("decline", "fail"))
	assert.Equal(t, "PayPal payment not completed", text(t, ctx, "#result-title"))
	assert.Equal(t, s.URL+"/orders/"+orderID+"/paypal/fail", location(t, ctx))
	assert.Equal(t, "Payment failed", text(t, ctx, "#order-status"))

	requireGateway(t, s, orderID, paygate.StatusFailed, "")
	requireCallback(t, s, orderID, callback.Failed)
}

func TestCheckout_OrderPageReachesCompletedThroughCallback(t *testing.T) {
	t.Parallel()
	// The payment stays processing until the test settles it, however long
	// the browser takes to show the order page.
	s := startShopWith(t, []paygatetest.Option{paygatetest.WithProcessingDelay(0)})
	ctx := newTab(t, scenarioTimeout)
	orderID := openCheckout(t, ctx, s)

	do(t, ctx, fillCard(paygatetest.CardProcessing), chromedp.Click(chromedp.ID("pay-card")), waitStatus(paygate.OrderProcessing))
	assert.Equal(t, "Processing", text(t, ctx, "#order-status"))

	// Nothing but the callback moves the order on: the page only reloads.
	s.Sandbox.SettlePending()
	do(t, ctx, waitStatus(paygate.OrderPaid))
	assert.Equal(t, "Payment completed", text(t, ctx, "#order-status"))
	assert.Contains(t, text(t, ctx, "#events"), "callback completed")

	requireGateway(t, s, orderID, paygate.StatusCompleted, paygatetest.CardProcessing)
	d := requireCallback(t, s, orderID, callback.Completed)
	assert.Equal(t, s.URL+"/callback", d.URL)
}

func TestCheckout_RefundAndChargebackAppearOnTheOrderPage(t *testing.T) {
	t.Parallel()
	s, ctx, orderID := startCheckout(t)
	do(t, ctx, fillCard(paygatetest.CardApproved), chromedp.Click(chromedp.ID("pay-card")), waitStatus(paygate.OrderPaid))
	payment := requireGatewayPayment(t, s, orderID)

	// The merchant's back office refunds part of the order; the page, left
	// open, shows it once the refund's callback arrives.
	_, err := s.Client.Transactions.Reverse(ctx, &paygate.ReverseParams{ID: payment, Amount: decimal.RequireFromString("5.00")})
	require.NoError(t, err)
	do(t, ctx, waitStatus(paygate.OrderPartiallyRefunded))
	assert.Equal(t, "Partially refunded", text(t, ctx, "#order-status"))
	assert.Equal(t, "Refund 5.00 EUR", moneyLine(t, ctx, callback.RefundCompleted))

	// The payer's bank disputes the rest.
	_, err = s.Sandbox.Chargeback(payment)
	require.NoError(t, err)
	do(t, ctx, waitStatus(paygate.OrderChargedBack))
	assert.Equal(t, "Charged back", text(t, ctx, "#order-status"))
	assert.Equal(t, "Chargeback 7.50 EUR", moneyLine(t, ctx, callback.ChargebackCompleted))
	assert.Contains(t, text(t, ctx, "#order-message"), "chargeback")
	assert.Contains(t, text(t, ctx, "#events"), "callback chargeback_completed")
}

// moneyLine is the order page's line for the refund or dispute of kind,
// without its time.
func moneyLine(t *testing.T, ctx context.Context, kind callback.Status) string {
	t.Helper()
	css := fmt.Sprintf("#money .money-%s", kind)
	return text(t, ctx, css+" .money-label") + " " + text(t, ctx, css+" .money-amount")
}

// startCheckout starts a shop, opens a browser tab and takes the payer to
// the checkout page of a new order, whose id it returns.
func startCheckout(t *testing.T) (*shop, context.Context, string) {
	t.Helper()
	s := startShop(t)
	ctx := newTab(t, scenarioTimeout)
	return s, ctx, openCheckout(t, ctx, s)
}

// openCheckout buys the mug from the product page and returns the order id
// from the checkout page's address.
func openCheckout(t *testing.T, ctx context.Context, s *shop) string {
	t.Helper()
	do(t, ctx,
		chromedp.Navigate(s.URL+"/"),
		chromedp.Click(chromedp.ID("buy-mug")),
		chromedp.WaitVisible(chromedp.ID("checkout-form")),
	)
	loc := location(t, ctx)
	id, ok := strings.CutPrefix(loc, s.URL+"/orders/")
	require.True(t, ok, "checkout page at %s", loc)
	id, ok = strings.CutSuffix(id, "/checkout")
	require.True(t, ok, "checkout page at %s", loc)
	return id
}

// fillCard types the e-mail address and the card into the checkout form.
func fillCard(number string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.SendKeys(chromedp.ID("email"), payerEmail),
		chromedp.SendKeys(chromedp.ID("card-number"), number),
		chromedp.SendKeys(chromedp.ID("card-expiry"), expiry),
		chromedp.SendKeys(chromedp.ID("card-cvc"), cvc),
	)
}

// openPayPal types the e-mail address, chooses PayPal and waits for the
// gateway's confirm page.
func openPayPal() chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.SendKeys(chromedp.ID("email"), payerEmail),
		chromedp.Click(chromedp.ID("pay-paypal")),
		chromedp.WaitVisible(chromedp.ID("approve")),
		chromedp.WaitVisible(chromedp.ID("decline")),
	)
}

// answerPayPal clicks button ("approve" or "decline") on the gateway's
// confirm page and waits for the shop's result page with outcome.
func answerPayPal(button, outcome string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Click(chromedp.ID(button)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf("#paypal-result[data-outcome=%q]", outcome))),
	)
}

// payWith3DSecure pays with the 3-D Secure card, answers the ACS page with
// password and waits until the order page shows want.
func payWith3DSecure(t *testing.T, ctx context.Context, s *shop, password string, want paygate.OrderStatus) {
	t.Helper()
	do(t, ctx, fillCard(paygatetest.Card3DSecure), chromedp.Click(chromedp.ID("pay-card")))
	passACS(t, ctx, s, password)
	do(t, ctx, waitStatus(want))
}

// passACS types password on the sandbox's 3-D Secure page, which the shop's
// self-submitting form opened, and submits it.
func passACS(t *testing.T, ctx context.Context, s *shop, password string) {
	t.Helper()
	do(t, ctx, chromedp.WaitVisible(chromedp.ID("password")))
	assert.Equal(t, s.Sandbox.URL+"/acs", location(t, ctx), "the payer is on the ACS page")
	do(t, ctx, chromedp.SendKeys(chromedp.ID("password"), password), chromedp.Click(chromedp.ID("submit")))
}

// waitStatus waits until the page shows the order in status.
func waitStatus(status paygate.OrderStatus) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf("#order-status[data-status=%q]", status)))
}

// requireGateway checks the sandbox's record of the order's payment: its
// status and, for a card, that the gateway received the card the payer
// typed (its last four digits) and the shop never did.
func requireGateway(t *testing.T, s *shop, orderID string, want paygate.Status, pan string) {
	t.Helper()
	st, err := s.Client.Transactions.Status(context.Background(), &paygate.TransactionStatusParams{OrderID: orderID})
	require.NoError(t, err)
	assert.Equal(t, want, st.Status)
	assert.Equal(t, "12.5", st.Price.String())
	assert.Equal(t, "EUR", st.Currency)
	if pan == "" {
		return
	}
	tx, err := s.Client.Transactions.Get(context.Background(), st.ID)
	require.NoError(t, err)
	require.NotNil(t, tx.Card)
	assert.Equal(t, pan[len(pan)-4:], tx.Card.LastFour)
	s.requireNeverSaw(t, pan)
}

// requireCallback waits until the sandbox delivered a callback with status
// for the order to the shop, which acknowledged it.
func requireCallback(t *testing.T, s *shop, orderID string, status callback.Status) paygatetest.Delivery {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := s.Sandbox.WaitForDelivery(ctx, func(d paygatetest.Delivery) bool {
		return d.Values.Get("order_id") == orderID && d.Values.Get("status") == string(status) && d.Done
	})
	require.NoError(t, err, "no %s callback for %s", status, orderID)
	require.True(t, d.Delivered, "the shop refused the callback: HTTP %d %s", d.LastStatus, d.LastError)
	return d
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, steps...))
}

func text(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
	require.NoError(t, err, "reading %s", css)
	return strings.TrimSpace(s)
}

func location(t *testing.T, ctx context.Context) string {
	t.Helper()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	return loc
}
