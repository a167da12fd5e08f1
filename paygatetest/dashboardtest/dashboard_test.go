package dashboardtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
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

// newTab starts a headless Chromium for the test and returns a tab's
// context that ends with the test or after timeout.
func newTab(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	path, err := chromium.Path()
	require.NoError(t, err)
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(path)}
	for name, value := range chromium.Flags(t.TempDir(), 1280, 900) {
		opts = append(opts, chromedp.Flag(name, value))
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	ctx, cancel := context.WithTimeout(tab, timeout)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(ctx), "starting headless Chromium")
	return ctx
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, steps...))
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(t, err, "reading %s", sel)
	return strings.TrimSpace(s)
}

// charge makes a 10.00 EUR payment for order through the SDK.
func charge(t *testing.T, c *paygate.Client, card string, order string) paygate.ID {
	t.Helper()
	ctx := context.Background()
	user, err := c.Users.Resolve(ctx, &paygate.ResolveUserParams{Identifier: "customer-42", IP: "192.0.2.1"})
	require.NoError(t, err)
	tok, err := c.Cards.Tokenize(ctx, &paygate.TokenizeParams{Number: paygate.NewCardNumber(card), Expiry: paygate.NewExpiry(12, 2030),
		SecurityCode: paygate.NewSecurityCode("123")})
	require.NoError(t, err)
	p, err := c.Cards.Charge(ctx, &paygate.ChargeParams{User: user, CardToken: paygate.NewCardToken(tok.ID), Price: decimal.RequireFromString("10.00"),
		Currency: "EUR", Description: "Order " + order, OrderID: order})
	require.NoError(t, err)
	return p.ID
}

// TestDashboard_ChargebackFromTheBrowser opens the dashboard through the
// one-time login link, sees a charge made through the SDK appear, presses
// Chargeback, and sees the chargeback transaction, its delivered chargeback_completed
// callback and the balance move. It writes dashboard.png, the README's
// screenshot.
func TestDashboard_ChargebackFromTheBrowser(t *testing.T) {
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("OK")) }))
	t.Cleanup(receiver.Close)
	srv := paygatetest.NewServer(
		paygatetest.WithClock(paygatetest.NewClock(time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC))),
		paygatetest.WithCallbackURL(receiver.URL+"/paygate/callback"),
	)
	t.Cleanup(srv.Close)
	client := srv.Client()
	ctx := newTab(t, 60*time.Second)

	// Through the one-time login link, as a scripted browser opens it: no
	// key typed, the session cookie set, and the link used up.
	link := srv.LoginURL()
	do(t, ctx, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.ID("empty")))

	charge(t, client, paygatetest.CardDeclined, "order-1000")
	pay := charge(t, client, paygatetest.CardApproved, "order-1001")
	id := strconv.FormatInt(int64(pay), 10)
	row := "#txn-" + id
	do(t, ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(row)))
	line := text(t, ctx, row+" .line")
	for _, want := range []string{"payment", "completed", "10.00", "EUR", "order-1001", "************4242", "card"} {
		assert.Contains(t, line, want)
	}
	assert.Equal(t, "9.71", text(t, ctx, "#balance-EUR"))

	do(t, ctx, chromedp.Click(chromedp.CSS(row+` button[data-event="chargeback"]`)),
		chromedp.WaitVisible(chromedp.ID("note")))
	cb := "#txn-" + strconv.FormatInt(int64(pay)+1, 10)
	_, err := srv.WaitForDelivery(ctx, func(d paygatetest.Delivery) bool {
		return d.Delivered && d.Values.Get("status") == string(callback.ChargebackCompleted)
	})
	require.NoError(t, err)
	do(t, ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(cb)))

	assert.Equal(t, "charged_back", text(t, ctx, row+` [data-role="status"]`))
	cbLine := text(t, ctx, cb+" .line")
	assert.Contains(t, cbLine, "chargeback")
	assert.Contains(t, cbLine, "ref "+id)
	callback := text(t, ctx, cb+` li.callback[data-status="chargeback_completed"]`)
	assert.Contains(t, callback, "delivered")
	assert.Contains(t, callback, "HTTP 200")
	assert.Equal(t, "-0.29", text(t, ctx, "#balance-EUR"), "9.71 less the 10.00 taken back")

	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	require.NoError(t, chromium.SaveScreenshot("dashboard.png", png)) // -update-screenshots rewrites it

	// A second browser gets nothing from the used link: the key form.
	other := newTab(t, 30*time.Second)
	do(t, other, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.ID("key")))
	assert.Contains(t, text(t, other, "#error"), "used already")
}
