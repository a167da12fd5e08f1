package paygatetest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
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
			resp, err := s.hc.PostForm(s.srv.URL+"/confirm/"+id+"/", url.Values{"action": {tc.action}, "token": {s.confirmToken(id)}})
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
	status, _ = s.do(http.MethodPost, "/confirm/"+id+"/", url.Values{"action": {"maybe"}, "token": {s.confirmToken(id)}})
	assert.Equal(t, http.StatusBadRequest, status)
}

var confirmTokenField = regexp.MustCompile(`name="token" value="([0-9a-f]{32,})"`)

// confirmToken opens the confirm page of payment id and returns the token
// of its form.
func (s *sandbox) confirmToken(id string) string {
	s.t.Helper()
	m := confirmTokenField.FindStringSubmatch(string(s.rawOK(http.MethodGet, "/confirm/"+id+"/", nil)))
	require.NotNil(s.t, m, "the confirm form carries a token")
	return m[1]
}

// The payer's decision counts only from the page the sandbox served: a
// page elsewhere that posts to /confirm/{id}/, or frames it, approves
// nothing.
func TestConfirmPage_AcceptsOnlyItsOwnSingleUseForm(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	id := idOf(s.ok("transaction/create", altPayment()))
	other := idOf(s.ok("transaction/create", withValue(altPayment(), "order_id", "alt-2")))

	resp, err := s.hc.Get(s.srv.URL + "/confirm/" + id + "/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "DENY", resp.Header.Get("X-Frame-Options"))
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")

	token := s.confirmToken(id)
	post := func(id string, form url.Values, origin, referer string) int {
		req, err := http.NewRequest(http.MethodPost, s.srv.URL+"/confirm/"+id+"/", strings.NewReader(form.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if referer != "" {
			req.Header.Set("Referer", referer)
		}
		status, _ := s.exchange(req)
		return status
	}
	for name, tc := range map[string]struct {
		form            url.Values
		origin, referer string
	}{
		"no token":               {url.Values{"action": {"approve"}}, "", ""},
		"a made-up token":        {url.Values{"action": {"approve"}, "token": {strings.Repeat("0", 32)}}, "", ""},
		"another payment's":      {url.Values{"action": {"approve"}, "token": {s.confirmToken(other)}}, "", ""},
		"another site's origin":  {url.Values{"action": {"approve"}, "token": {token}}, "https://evil.example", ""},
		"another site's referer": {url.Values{"action": {"approve"}, "token": {token}}, "", "https://evil.example/pay"},
	} {
		assert.Equal(t, http.StatusForbidden, post(id, tc.form, tc.origin, tc.referer), name)
	}
	assert.Equal(t, "opened", s.ok("transaction/status", url.Values{"id": {id}})["status"], "refused forms decide nothing")

	assert.Equal(t, http.StatusSeeOther, post(id, url.Values{"action": {"decline"}, "token": {token}}, s.srv.URL, s.srv.URL+"/confirm/"+id+"/"))
	assert.Equal(t, "failed", s.ok("transaction/status", url.Values{"id": {id}})["status"])

	second := s.confirmToken(other)
	assert.Equal(t, http.StatusSeeOther, post(other, url.Values{"action": {"approve"}, "token": {second}}, "", ""))
	replay, err := s.hc.PostForm(s.srv.URL+"/confirm/"+other+"/", url.Values{"action": {"decline"}, "token": {second}})
	require.NoError(t, err)
	replay.Body.Close()
	assert.Equal(t, "https://shop.example/ok", replay.Header.Get("Location"), "a used token changes nothing: the page redirects as decided")
	assert.Equal(t, "completed", s.ok("transaction/status", url.Values{"id": {other}})["status"])
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

// Behind a proxy that rewrites Host, the browser's Origin is the public
// address (WithPublicURL): it is the sandbox's own.
func TestConfirmPage_ThePublicAddressIsItsOwnOrigin(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, paygatetest.WithPublicURL("http://sandbox.example:8080"))
	id := idOf(s.ok("transaction/create", altPayment()))
	// In this order: an approval ends the page, so the refusal comes first.
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"http://elsewhere.example:8080", http.StatusForbidden},
		{"http://sandbox.example:8080", http.StatusSeeOther},
	} {
		origin, want := tc.origin, tc.want
		req, err := http.NewRequest(http.MethodPost, s.srv.URL+"/confirm/"+id+"/",
			strings.NewReader(url.Values{"action": {"approve"}, "token": {s.confirmToken(id)}}.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		status, _ := s.exchange(req)
		assert.Equal(t, want, status, origin)
	}
}

// A page elsewhere cannot make its own host the sandbox's by naming it in
// Host (DNS rebinding, a proxy that passes Host on): the Origin is
// compared with the addresses the sandbox listens and is reached at, never
// with the Host a request claims.
func TestConfirmPage_AHostHeaderNamingTheOriginIsNotTheSandbox(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]paygatetest.Option{
		"without a public address": nil,
		"with a public address":    {paygatetest.WithPublicURL("http://sandbox.example:8080")},
	} {
		t.Run(name, func(t *testing.T) {
			s := newSandbox(t, opts...)
			id := idOf(s.ok("transaction/create", altPayment()))
			for _, origin := range []string{"https://evil.example", "http://evil.example"} {
				req, err := http.NewRequest(http.MethodPost, s.srv.URL+"/confirm/"+id+"/",
					strings.NewReader(url.Values{"action": {"approve"}, "token": {s.confirmToken(id)}}.Encode()))
				require.NoError(t, err)
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Host = "evil.example"
				req.Header.Set("Origin", origin)
				status, _ := s.exchange(req)
				assert.Equal(t, http.StatusForbidden, status, origin)
			}
			assert.Equal(t, "opened", s.ok("transaction/status", url.Values{"id": {id}})["status"], "the foreign form approved nothing")
		})
	}
}
