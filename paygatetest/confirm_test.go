package paygatetest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
)

func altPayment() url.Values {
	return url.Values{"user": {"payer-1"}, "payment_method": {"paypal"}, "price": {"12.5"}, "currency": {"EUR"},
		"description": {"d"}, "success_url": {"https://shop.example/ok"}, "fail_url": {"https://shop.example/ko"}, "order_id": {"alt-1"}}
}

func TestCreate_ReturnsAnOpenedPaymentWithANumericAmount(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	body := s.rawOK(http.MethodPost, "/v1/transaction/create", s.signed(altPayment()))
	assert.JSONEq(t, `{"id":"1000000000000000001","amount":12.50,"currency":"EUR","status":"opened"}`, string(body))
	assert.Contains(t, string(body), `"amount":12.50`)
}

func TestConfirmPage_ApproveAndDeclineRedirect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		action, location string
		status           paygate.Status
	}{
		{"approve", "https://shop.example/ok", paygate.StatusCompleted},
		{"decline", "https://shop.example/ko", paygate.StatusFailed},
	} {
		t.Run(tc.action, func(t *testing.T) {
			s := newSandbox(t)
			id := idOf(s.ok("transaction/create", altPayment()))
			resp, err := s.hc.Get(s.srv.URL + "/confirm/" + id + "/")
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)

			resp, err = s.hc.PostForm(s.srv.URL+"/confirm/"+id+"/", url.Values{"action": {tc.action}})
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
			assert.Equal(t, tc.location, resp.Header.Get("Location"))
			assert.Equal(t, string(tc.status), s.ok("transaction/status", url.Values{"id": {id}})["status"])

			resp, err = s.hc.Get(s.srv.URL + "/confirm/" + id + "/")
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, tc.location, resp.Header.Get("Location"), "a decided payment redirects again")
		})
	}
}

func TestConfirmPage_ShowsApproveAndDecline(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	id := idOf(s.ok("transaction/create", altPayment()))
	page := string(s.rawOK(http.MethodGet, "/confirm/"+id+"/", nil))
	assert.Contains(t, page, `value="approve"`)
	assert.Contains(t, page, `value="decline"`)
	assert.Contains(t, page, "12.50 EUR")

	status, _ := s.do(http.MethodGet, "/confirm/1000000000000000999/", nil)
	assert.Equal(t, http.StatusNotFound, status)
	status, _ = s.do(http.MethodPost, "/confirm/"+id+"/", url.Values{"action": {"maybe"}})
	assert.Equal(t, http.StatusBadRequest, status)
}

func TestCreate_Errors(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, tc := range []struct {
		name   string
		change func(url.Values)
		code   paygate.ErrorCode
	}{
		{"no user", func(v url.Values) { v.Del("user") }, paygate.CodeUserIdentifierMissing},
		{"unknown method", func(v url.Values) { v.Set("payment_method", "cash") }, paygate.CodeMerchantDataMissing},
		{"qiwi without phone", func(v url.Values) { v.Set("payment_method", "qiwi") }, paygate.CodeMerchantDataMissing},
		{"no price", func(v url.Values) { v.Del("price") }, paygate.CodeMerchantDataMissing},
		{"no description", func(v url.Values) { v.Del("description") }, paygate.CodeMerchantDataMissing},
		{"no success_url", func(v url.Values) { v.Del("success_url") }, paygate.CodeMerchantDataMissing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := altPayment()
			tc.change(v)
			s.fails("transaction/create", v, tc.code)
		})
	}
	// The spec asks for the URLs, not for their form: a relative one is
	// the merchant's business.
	s.ok("transaction/create", withValue(altPayment(), "fail_url", "/ko"))

	v := altPayment()
	v.Set("payment_method", "qiwi")
	v.Set("phone", "79001234567")
	out := s.ok("transaction/create", v)
	assert.Equal(t, json.Number("12.50"), out["amount"])
}
