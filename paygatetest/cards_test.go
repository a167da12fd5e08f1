package paygatetest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func TestGetToken_ReturnsATokenValidForTenMinutesAndTheMaskedCard(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	body := s.rawOK(http.MethodGet, "/v1/card/getToken", s.withProject(url.Values{
		"number": {"5555555555554444"}, "expiration_month": {"7"}, "expiration_year": {"2031"}, "security_code": {"123"}}))
	out := decode(t, body)
	assert.NotEmpty(t, out["id"])
	assert.Equal(t, testStart.Add(10*time.Minute).Format(time.RFC3339), out["expiresAt"])
	assert.Equal(t, map[string]any{
		"lastFour": "4444", "mask": "************4444", "type": "mastercard", "scheme": "mastercard",
		"expirationMonth": json.Number("7"), "expirationYear": json.Number("2031"),
	}, out["card"])
	assert.NotContains(t, string(body), "5555555555554444")
}

func TestGetToken_Errors(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	good := s.withProject(url.Values{
		"number": {"4242424242424242"}, "expiration_month": {"12"}, "expiration_year": {"2030"}, "security_code": {"123"}})
	with := func(k, v string) url.Values { return withValue(good, k, v) }
	s.rawFailsEach(http.MethodGet, "/v1/card/getToken", []errorCase{
		{"no number", with("number", ""), paygate.CodeCardNumberMissing},
		{"number failing Luhn", with("number", "4242424242424241"), paygate.CodeCardNumberInvalid},
		{"number with spaces", with("number", "4242 4242 4242 4242"), paygate.CodeCardNumberInvalid},
		{"no month", with("expiration_month", ""), paygate.CodeExpirationMonthMissing},
		{"no year", with("expiration_year", ""), paygate.CodeExpirationYearMissing},
		{"month 13", with("expiration_month", "13"), paygate.CodeExpiryInvalid},
		{"two-digit year", with("expiration_year", "30"), paygate.CodeExpiryInvalid},
		{"expired card", with("expiration_year", "2025"), paygate.CodeExpiryInvalid},
		{"no security code", with("security_code", ""), paygate.CodeSecurityCodeMissing},
		{"security code of two digits", with("security_code", "12"), paygate.CodeSecurityCodeInvalid},
	})
}

func TestGetToken_JSONPWrapsTheAnswerInTheCallback(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	v := s.withProject(url.Values{"number": {"4242424242424242"}, "expiration_month": {"12"},
		"expiration_year": {"2030"}, "security_code": {"123"}, "callback": {"onToken"}})
	text := string(s.rawOK(http.MethodGet, "/v1/card/getToken", v))
	require.True(t, strings.HasPrefix(text, "onToken(") && strings.HasSuffix(text, ");"), text)
	out := decode(t, []byte(strings.TrimSuffix(strings.TrimPrefix(text, "onToken("), ");")))
	assert.NotEmpty(t, out["id"])

	v.Set("number", "")
	status, body := s.do(http.MethodGet, "/v1/card/getToken", v)
	require.Equal(t, http.StatusOK, status, "JSONP errors come with 200 so the browser runs the callback")
	assert.Contains(t, string(body), `onToken({"error":{"code":40003`)

	v.Set("callback", "alert(1)//")
	s.rawFails(http.MethodGet, "/v1/card/getToken", v, paygate.CodeMerchantDataMissing)
}

func TestCharge_TokenIsSingleUse(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	tok := s.token(paygatetest.CardApproved)
	v := url.Values{"user": {uid}, "card_token": {tok}, "price": {"10"}, "currency": {"EUR"}, "description": {"d"}}
	s.ok("card/process", v)
	s.fails("card/process", v, paygate.CodeCardTokenUsed)
}

func TestCharge_TokenExpiresAfterTenMinutes(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	fresh, stale := s.token(paygatetest.CardApproved), s.token(paygatetest.CardApproved)
	s.clock.Advance(10 * time.Minute)
	s.ok("card/process", url.Values{"user": {uid}, "card_token": {fresh}, "price": {"10"}, "currency": {"EUR"}, "description": {"d"}})
	s.clock.Advance(time.Second)
	s.fails("card/process", url.Values{"user": {uid}, "card_token": {stale}, "price": {"10"}, "currency": {"EUR"}, "description": {"d"}},
		paygate.CodeCardTokenExpired)
}

func TestCharge_TestCards(t *testing.T) {
	t.Parallel()
	for _, form := range []paygate.Form{paygate.FormExtended, paygate.FormBasic} {
		for _, tc := range []struct {
			number  string
			status  paygate.Status
			success bool
			acs     bool
		}{
			{paygatetest.CardApproved, paygate.StatusCompleted, true, false},
			{"5555555555554444", paygate.StatusCompleted, true, false},
			{paygatetest.Card3DSecure, paygate.StatusAuthenticating, true, true},
			{paygatetest.CardDeclined, paygate.StatusFailed, false, false},
			{paygatetest.CardProcessing, paygate.StatusProcessing, true, false},
		} {
			t.Run(form.String()+"/"+tc.number, func(t *testing.T) {
				s := newSandbox(t, paygatetest.WithForm(form))
				out := s.charge(s.user("u"), tc.number, url.Values{"acs_return_url": {"https://shop.example/3ds"}, "order_id": {"o-1"}})
				assert.Equal(t, tc.success, out["success"])
				assert.Len(t, idOf(out), 19)
				assert.Equal(t, tc.number[12:], out["card"].(map[string]any)["lastFour"])
				assert.Nil(t, out["permanentToken"])
				assert.Contains(t, out, "permanentToken")
				if tc.acs {
					acs := out["acs"].(map[string]any)
					assert.Equal(t, s.srv.URL+"/acs", acs["url"])
					params := acs["parameters"].(map[string]any)
					assert.Equal(t, "https://shop.example/3ds", params["TermUrl"])
					assert.NotEmpty(t, params["PaReq"])
					assert.NotEmpty(t, params["MD"])
				} else {
					assert.NotContains(t, out, "acs")
				}
				if form == paygate.FormBasic {
					keys := make([]string, 0, len(out))
					for k := range out {
						keys = append(keys, k)
					}
					assert.Subset(t, []string{"id", "success", "card", "acs", "permanentToken", "recurring"}, keys)
					return
				}
				assert.Equal(t, string(tc.status), out["status"])
				assert.Equal(t, "o-1", out["orderId"])
				assert.Equal(t, "10.00", out["price"])
				assert.Equal(t, "0.2900", out["fee"])
				assert.Equal(t, "EUR", out["currency"])
				assert.Equal(t, "payment", out["type"])
				assert.Nil(t, out["referenceId"])
				assert.Equal(t, "u", out["user"].(map[string]any)["identifier"])
				assert.Equal(t, testStart.Format(time.RFC3339), out["createdAt"])
			})
		}
	}
}

func TestCharge_BlockedCardIs40309(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	s.fails("card/process", url.Values{"user": {uid}, "card_token": {s.token(paygatetest.CardBlocked)}, "price": {"10"},
		"currency": {"EUR"}, "description": {"d"}}, paygate.CodeCardBlocked)
}

func TestCharge_ProcessingCardCompletesShortlyAfterOrWhenTheClockMoves(t *testing.T) {
	t.Parallel()
	t.Run("after the processing delay", func(t *testing.T) {
		s := newSandbox(t, paygatetest.WithProcessingDelay(20*time.Millisecond))
		id := idOf(s.charge(s.user("u"), paygatetest.CardProcessing, nil))
		require.Eventually(t, func() bool {
			return s.ok("transaction/status", url.Values{"id": {id}})["status"] == "completed"
		}, 2*time.Second, 10*time.Millisecond)
	})
	t.Run("when the clock is advanced", func(t *testing.T) {
		s := newSandbox(t, paygatetest.WithProcessingDelay(time.Hour))
		id := idOf(s.charge(s.user("u"), paygatetest.CardProcessing, nil))
		assert.Equal(t, "processing", s.ok("transaction/status", url.Values{"id": {id}})["status"])
		s.clock.Advance(time.Second)
		assert.Equal(t, "completed", s.ok("transaction/status", url.Values{"id": {id}})["status"])
	})
	t.Run("on SettlePending", func(t *testing.T) {
		s := newSandbox(t, paygatetest.WithProcessingDelay(time.Hour))
		id := idOf(s.charge(s.user("u"), paygatetest.CardProcessing, nil))
		s.srv.SettlePending()
		assert.Equal(t, "completed", s.ok("transaction/status", url.Values{"id": {id}})["status"])
	})
}

func TestCharge_CardObjectInTheExtendedForm(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	card := url.Values{"user[identifier]": {"new-user"}, "user[email]": {"n@example.com"}, "card[number]": {paygatetest.CardApproved},
		"card[expiration_month]": {"12"}, "card[expiration_year]": {"2030"}, "card[security_code]": {"123"},
		"card[holder]": {"JANE DOE"}, "price": {"3.5"}, "currency": {"USD"}, "description": {"d"}}
	out := s.ok("card/process", card)
	assert.Equal(t, "completed", out["status"])
	assert.Equal(t, "JANE DOE", out["card"].(map[string]any)["holder"])
	assert.Equal(t, "new-user", out["user"].(map[string]any)["identifier"])
	assert.Equal(t, "3.50", out["price"])

	card.Set("card[holder]", strings.Repeat("X", 22))
	s.fails("card/process", card, paygate.CodeCardholderInvalid)
}

func TestCharge_Errors(t *testing.T) {
	t.Parallel()
	base := func(s *sandbox) url.Values {
		return url.Values{"user": {s.user("u")}, "card_token": {s.token(paygatetest.CardApproved)}, "price": {"10"},
			"currency": {"EUR"}, "description": {"d"}}
	}
	for _, tc := range []struct {
		name   string
		opts   []paygatetest.Option
		change func(url.Values)
		code   paygate.ErrorCode
	}{
		{"no user is 40002", nil, func(v url.Values) { v.Del("user") }, paygate.CodeUserIdentifierMissing},
		{"unknown user is 40406", nil, func(v url.Values) { v.Set("user", "999") }, paygate.CodeUserNotFound},
		{"no card is 40009", nil, func(v url.Values) { v.Del("card_token") }, paygate.CodeCardDataMissing},
		{"basic form without token is 40008", []paygatetest.Option{paygatetest.WithForm(paygate.FormBasic)},
			func(v url.Values) { v.Del("card_token"); v.Set("card[number]", paygatetest.CardApproved) }, paygate.CodeCardTokenMissing},
		{"unknown token is 40402", nil, func(v url.Values) { v.Set("card_token", "tmp_nope") }, paygate.CodeCardTokenInvalid},
		{"bad card number is 40004", nil, func(v url.Values) {
			v.Del("card_token")
			v.Set("card[number]", "1234")
		}, paygate.CodeCardNumberInvalid},
		{"no price is 40014", nil, func(v url.Values) { v.Del("price") }, paygate.CodeMerchantDataMissing},
		{"a currency of two letters is 40014", nil, func(v url.Values) { v.Set("currency", "EU") }, paygate.CodeMerchantDataMissing},
		{"a negative price is 40014", nil, func(v url.Values) { v.Set("price", "-1") }, paygate.CodeMerchantDataMissing},
		{"a price beyond any payment is 40014", nil, func(v url.Values) { v.Set("price", "1e999999999") }, paygate.CodeMerchantDataMissing},
		{"no description is 40014", nil, func(v url.Values) { v.Del("description") }, paygate.CodeMerchantDataMissing},
		{"order_id over 64 is 40014", nil, func(v url.Values) { v.Set("order_id", strings.Repeat("o", 65)) }, paygate.CodeMerchantDataMissing},
		{"recurring without interval is 40014", nil, func(v url.Values) { v.Set("recurring", "1") }, paygate.CodeMerchantDataMissing},
		{"remember on a project that forbids it is 40312", []paygatetest.Option{paygatetest.WithCardRemembering(false)},
			func(v url.Values) { v.Set("remember", "1") }, paygate.CodeCardRememberingDisabled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t, tc.opts...)
			v := base(s)
			tc.change(v)
			s.fails("card/process", v, tc.code)
		})
	}
}

func TestCharge_CurrencyInEitherLetterCase(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	out := s.charge(uid, paygatetest.CardApproved, url.Values{"currency": {"eur"}})
	assert.Equal(t, "EUR", out["currency"])
	s.charge(uid, paygatetest.CardApproved, url.Values{"currency": {"Usd"}})
	assert.Equal(t, "9.71", s.ok("balance", url.Values{"currency": {"eur"}})["amount"])
	assert.Equal(t, "9.71", s.ok("balance", url.Values{"currency": {"USD"}})["amount"])
}

func TestCharge_RememberIssuesAReusablePermanentToken(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	out := s.charge(uid, paygatetest.CardApproved, url.Values{"remember": {"1"}})
	perm, ok := out["permanentToken"].(string)
	require.True(t, ok, "permanentToken: %v", out["permanentToken"])
	for range 2 {
		again := s.ok("card/process", url.Values{"user": {uid}, "card_token": {perm}, "price": {"1"}, "currency": {"EUR"}, "description": {"d"}})
		assert.Equal(t, "completed", again["status"])
	}
}

func TestCharge_VerifyCardHoldsOneEuroAndEndsVerified(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	out := s.charge(s.user("u"), paygatetest.CardApproved, url.Values{"verify_card": {"1"}, "price": {"99"}, "currency": {"USD"}})
	assert.Equal(t, "verified", out["status"])
	assert.Equal(t, "verification", out["type"])
	assert.Equal(t, "1.00", out["price"])
	assert.Equal(t, "EUR", out["currency"])
	assert.Equal(t, "0.00", s.ok("balance", url.Values{"currency": {"EUR"}})["amount"], "a verification does not move the balance")
}

func TestCharge_VerifyCardTakesAPriceOfZero(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	out := s.charge(uid, paygatetest.CardApproved, url.Values{"verify_card": {"1"}, "price": {"0"}})
	assert.Equal(t, "verified", out["status"])
	assert.Equal(t, "1.00", out["price"])
	s.fails("card/process", url.Values{"user": {uid}, "card_token": {s.token(paygatetest.CardApproved)}, "price": {"0"},
		"currency": {"EUR"}, "description": {"d"}}, paygate.CodeMerchantDataMissing)
}

func TestCharge_Forced3DSSendsEveryCardThroughTheACS(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []paygatetest.Option
		v    url.Values
	}{
		{"project forces it", []paygatetest.Option{paygatetest.WithForced3DS(true)}, nil},
		{"3ds=1", nil, url.Values{"3ds": {"1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t, tc.opts...)
			out := s.charge(s.user("u"), paygatetest.CardApproved, tc.v)
			assert.Equal(t, "authenticating", out["status"])
			assert.Contains(t, out, "acs")
		})
	}
}
