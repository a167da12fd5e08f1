package paygatetest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func TestPayoutTypes_ListsTheTypes(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	body := s.rawOK(http.MethodGet, "/v1/payout-types", s.withProject(nil))
	assert.JSONEq(t, `{"success":true,"types":[
		{"id":0,"key":"CREDIT_CARD","label":"Credit card"},
		{"id":1,"key":"SEPA","label":"SEPA transfer"},
		{"id":2,"key":"WALLET","label":"E-wallet"}]}`, string(body))
}

// parameterNames asks payout-parameters and returns name -> required.
func parameterNames(t *testing.T, s *sandbox, typ, account, currency string) map[string]bool {
	t.Helper()
	body := s.in(t).rawOK(http.MethodGet, "/v1/payout-parameters", s.withProject(url.Values{
		"type": {typ}, "account": {account}, "currency": {currency}}))
	var controls []struct {
		Name, Type, Label string
		Required          bool
	}
	require.NoError(t, json.Unmarshal(body, &controls), "a bare array: %s", body)
	out := make(map[string]bool)
	for _, c := range controls {
		require.NotEmpty(t, c.Type)
		require.NotEmpty(t, c.Label)
		out[c.Name] = c.Required
	}
	return out
}

func TestPayoutParameters_DependOnTypeBINAndCurrency(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, tc := range []struct {
		name, typ, account, currency string
		want                         map[string]bool
	}{
		{"visa BIN in EUR", cardPayout, "424242", "EUR", map[string]bool{"cardHolder": true}},
		{"mastercard BIN in EUR", cardPayout, "555555", "EUR", map[string]bool{"cardHolder": true, "cardExpirationDate": true}},
		{"visa BIN in USD", cardPayout, "424242", "USD", map[string]bool{"cardHolder": true, "firstName": true, "lastName": true,
			"birthDate": true, "country": true, "address": false, "city": false}},
		{"type by key", "CREDIT_CARD", "424242", "EUR", map[string]bool{"cardHolder": true}},
		{"SEPA", sepaPayout, "DE89370400440532013000", "EUR", map[string]bool{"beneficiaryFirstName": true,
			"beneficiaryLastName": true, "receiverBankBIC": true, "description": false}},
		{"wallet in EUR", walletPayout, "wallet-1", "EUR", map[string]bool{"phone": true, "fullName": false}},
		{"wallet in USD", walletPayout, "wallet-1", "USD", map[string]bool{"phone": true, "fullName": false, "birthDate": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, parameterNames(t, s, tc.typ, tc.account, tc.currency))
		})
	}
}

func TestPayoutParameters_Errors(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	cases := []errorCase{
		{"unknown type", url.Values{"type": {"9"}, "account": {"424242"}, "currency": {"EUR"}}, paygate.CodeMerchantDataMissing},
		{"card account shorter than a BIN", url.Values{"type": {cardPayout}, "account": {"4242"}, "currency": {"EUR"}}, paygate.CodeMerchantDataMissing},
		{"no account", url.Values{"type": {walletPayout}, "currency": {"EUR"}}, paygate.CodeMerchantDataMissing},
		{"no currency", url.Values{"type": {walletPayout}, "account": {"w"}}, paygate.CodeMerchantDataMissing},
		{"SEPA outside EUR", url.Values{"type": {sepaPayout}, "account": {"GB29NWBK60161331926819"}, "currency": {"GBP"}}, paygate.CodeGatewayMisconfigured},
	}
	for _, tc := range cases {
		tc.v.Set("project", s.srv.ProjectKey)
	}
	s.rawFailsEach(http.MethodGet, "/v1/payout-parameters", cases)
}

func TestPayout_ValidatesTheParametersOnCreate(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	card := url.Values{"type": {cardPayout}, "account": {"5555555555554444"}, "amount": {"5"}, "currency": {"EUR"},
		"cardHolder": {"JANE DOE"}, "cardExpirationDate": {"12/30"}, "orderId": {"po-1"}}
	with := func(k, v string) url.Values { return withValue(card, k, v) }
	s.failsEach("payout", []errorCase{
		{"missing required parameter", with("cardHolder", ""), paygate.CodeMerchantDataMissing},
		{"malformed expiry", with("cardExpirationDate", "2030-12"), paygate.CodeMerchantDataMissing},
		{"no type", with("type", ""), paygate.CodeMerchantDataMissing},
		{"no amount", with("amount", ""), paygate.CodeMerchantDataMissing},
		{"no card", with("account", ""), paygate.CodeCardDataMissing},
		{"card failing Luhn", with("account", "5555555555554443"), paygate.CodeCardNumberInvalid},
		{"blocked card", with("account", paygatetest.CardBlocked), paygate.CodeCardBlocked},
		{"unknown card token", func() url.Values { v := with("account", ""); v.Set("cardToken", "tmp_x"); return v }(), paygate.CodeCardTokenInvalid},
		{"wallet without phone", url.Values{"type": {walletPayout}, "account": {"w"}, "amount": {"1"}, "currency": {"EUR"}}, paygate.CodeMerchantDataMissing},
		{"wallet in USD with a bad birth date", url.Values{"type": {walletPayout}, "account": {"w"}, "amount": {"1"}, "currency": {"USD"},
			"phone": {"4915112345678"}, "birthDate": {"1990-01-31"}}, paygate.CodeMerchantDataMissing},
	})
	out := s.ok("payout", card)
	assert.Equal(t, true, out["success"])
	assert.Equal(t, "processing", out["status"])
	assert.Len(t, idOf(out), 19)
}

func TestPayout_CompletesOrFailsAndMovesTheBalance(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, paygatetest.WithProcessingDelay(time.Hour))
	s.charge(s.user("u"), paygatetest.CardApproved, url.Values{"price": {"100"}})
	assert.Equal(t, "97.10", s.ok("balance", nil)["amount"])

	good := s.ok("payout", url.Values{"type": {walletPayout}, "account": {"w"}, "amount": {"20"}, "currency": {"EUR"}, "phone": {"4915112345678"}})
	bad := s.ok("payout", url.Values{"type": {cardPayout}, "cardToken": {s.token(paygatetest.CardDeclined)}, "amount": {"30"},
		"currency": {"EUR"}, "cardHolder": {"X"}})
	assert.Equal(t, "47.10", s.ok("balance", nil)["amount"], "a processing payout holds its amount")
	s.srv.SettlePending()
	assert.Equal(t, "completed", s.ok("transaction/status", url.Values{"id": {idOf(good)}})["status"])
	assert.Equal(t, "failed", s.ok("transaction/status", url.Values{"id": {idOf(bad)}})["status"])
	assert.Equal(t, "77.10", s.ok("balance", nil)["amount"], "a failed payout gives its amount back")
}
