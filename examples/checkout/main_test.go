package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/testkit/cmdtest"
	"github.com/paygate/paygate-go/paygatetest"
)

func TestRun_ServesTheShopOnTheSandboxAndStopsWithTheContext(t *testing.T) {
	var stdout, stderr cmdtest.Buffer
	stop := cmdtest.Start(t, func(ctx context.Context) error {
		return run(ctx, []string{"-addr", "127.0.0.1:0"}, func(string) string { return "" }, &stdout, &stderr)
	})
	addr := cmdtest.URL(t, &stdout)

	res, err := http.Get(addr + "/")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, string(body), "Gopher mug")

	stop()
}

func TestRun_RequiresAllThreeGatewayVariables(t *testing.T) {
	env := map[string]string{"PAYGATE_BASE_URL": "https://gateway.example.com"}
	err := run(context.Background(), []string{"-addr", "127.0.0.1:0"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "PAYGATE_PROJECT")
	assert.Contains(t, err.Error(), "PAYGATE_SECRET")
}

func TestCheckoutPage_CardInputsHaveNoNameSoTheFormCannotPostThem(t *testing.T) {
	s, h := newTestApp(t)
	o := s.orders.create(catalog[0], "")
	res := serve(h, httptest.NewRequest(http.MethodGet, "/orders/"+o.ID+"/checkout", nil))
	require.Equal(t, http.StatusOK, res.Code)
	page := res.Body.String()

	for _, id := range []string{"card-number", "card-expiry", "card-cvc"} {
		input := regexp.MustCompile(`<input[^>]*id="` + id + `"[^>]*>`).FindString(page)
		require.NotEmpty(t, input, "no input #%s", id)
		assert.NotContains(t, input, "name=", "input #%s", id)
	}
	assert.Contains(t, page, `data-gateway="`+s.cfg.GatewayURL+`"`)
	assert.Contains(t, page, `data-project="`+paygatetest.DefaultProjectKey+`"`)
	assert.Contains(t, res.Header().Get("Content-Security-Policy"), "script-src 'self' "+s.cfg.GatewayURL)
}

func TestCharge_WithoutTokenAsksForTheCardAgainAndChargesNothing(t *testing.T) {
	s, h := newTestApp(t)
	o := s.orders.create(catalog[0], "")
	form := url.Values{"email": {"payer@example.com"}}
	req := httptest.NewRequest(http.MethodPost, "/orders/"+o.ID+"/charge", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res := serve(h, req)

	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.Body.String(), "Your card could not be read")
	got, _ := s.orders.get(o.ID)
	assert.Equal(t, paygate.OrderPending, got.Status())
}

func TestCallback_ForAnotherPaymentOfTheOrderIsAcknowledgedAndIgnored(t *testing.T) {
	s, h := newTestApp(t)
	o := s.orders.create(catalog[0], "")
	s.orders.update(o.ID, func(ord *order) bool {
		ord.TransactionID, ord.State.Status = 1000000000000000001, paygate.OrderProcessing
		return true
	})
	signer := paygatetest.NewCallbackSigner(paygatetest.DefaultPrivateKey, paygate.FormExtended)
	res := serve(h, signer.Request("/callback", callback.Completed, url.Values{
		"order_id": {o.ID}, "id": {"1000000000000000002"}, "price": {"12.5000"}, "amount": {"12.50"}, "currency": {"EUR"},
	}))

	assert.Equal(t, http.StatusOK, res.Code)
	got, _ := s.orders.get(o.ID)
	assert.Equal(t, paygate.OrderProcessing, got.Status())
}

func TestOrderStore_BeginPaymentOnlyOnceAtATime(t *testing.T) {
	s := newOrderStore()
	o := s.create(catalog[0], "")
	_, first := s.beginPayment(o.ID)
	_, second := s.beginPayment(o.ID)
	assert.True(t, first)
	assert.False(t, second, "a double click cannot start a second payment")

	s.endPayment(o.ID, attempt{TX: 7, Method: "card", Source: "charge", Reported: "failed",
		Observation: paygate.ObserveStatus(paygate.StatusFailed), Message: declinedMessage})
	_, retry := s.beginPayment(o.ID)
	assert.True(t, retry, "a failed payment may be tried again")
}

func TestOrderStore_PayerFacingExplanationWinsOverTheCallbacks(t *testing.T) {
	for _, callbackFirst := range []bool{true, false} {
		s := newOrderStore()
		o := s.create(catalog[0], "")
		got, _ := s.update(o.ID, func(ord *order) bool {
			steps := []func(){
				func() { s.observe(ord, sourceCallback, "failed", paygate.ObserveStatus(paygate.StatusFailed), "") },
				func() {
					s.observe(ord, "3-D Secure", "failed", paygate.ObserveStatus(paygate.StatusFailed), "3-D Secure failed.")
				},
			}
			if !callbackFirst {
				steps[0], steps[1] = steps[1], steps[0]
			}
			for _, step := range steps {
				step()
			}
			return true
		})
		assert.Equal(t, "3-D Secure failed.", got.Message, "callback first: %t", callbackFirst)
	}
}

func TestCallback_WithWrongSignatureIsRefused(t *testing.T) {
	s, h := newTestApp(t)
	o := s.orders.create(catalog[0], "")
	signer := paygatetest.NewCallbackSigner("not-the-key", paygate.FormExtended)
	res := serve(h, signer.Request("/callback", callback.Completed, url.Values{"order_id": {o.ID}}))

	assert.Equal(t, http.StatusForbidden, res.Code)
	got, _ := s.orders.get(o.ID)
	assert.Equal(t, paygate.OrderPending, got.Status())
}

func TestOrderStore_FinalStatusIsNotUndoneByALatePendingOne(t *testing.T) {
	s := newOrderStore()
	o := s.create(catalog[0], "")
	got, _ := s.update(o.ID, func(ord *order) bool {
		s.observe(ord, "charge", "completed", paygate.ObserveStatus(paygate.StatusCompleted), "")
		s.observe(ord, sourceCallback, "processing", paygate.ObserveStatus(paygate.StatusProcessing), "")
		return true
	})
	assert.Equal(t, paygate.OrderPaid, got.Status())
	assert.Len(t, got.Events, 2, "both reports are in the history")

	got, _ = s.update(o.ID, func(ord *order) bool {
		s.observe(ord, sourceCallback, "refunded", paygate.ObserveStatus(paygate.StatusRefunded), "")
		return true
	})
	assert.Equal(t, paygate.OrderRefunded, got.Status(), "a refund follows a completion")
	assert.Equal(t, "The payment was refunded.", got.Message)
}

// newTestApp returns the app on a sandbox without a browser.
func newTestApp(t *testing.T) (*app, http.Handler) {
	t.Helper()
	a, h, _ := newTestAppWithSandbox(t)
	return a, h
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
