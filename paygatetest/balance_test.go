package paygatetest_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func TestBalance_MovesWithPaymentsFeesRefundsAndPayouts(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	assert.Equal(t, map[string]any{"amount": "0.00", "rolling_reserve": "0.00", "currency": "EUR",
		"base_amount": "0.00", "base_rolling_reserve": "0.00"}, s.ok("balance", url.Values{"currency": {"EUR"}}))

	pay := s.charge(uid, paygatetest.CardApproved, url.Values{"price": {"100"}}) // +100 - 2.90 fee
	s.charge(uid, paygatetest.CardDeclined, url.Values{"price": {"50"}})         // no movement
	s.charge(uid, paygatetest.Card3DSecure, url.Values{"price": {"50"}})         // not yet
	s.charge(uid, paygatetest.CardApproved, url.Values{"price": {"10"}, "currency": {"USD"}})
	assert.Equal(t, "97.10", s.ok("balance", nil)["amount"], "EUR by default")

	s.ok("transaction/reverse", url.Values{"id": {idOf(pay)}, "amount": {"7.10"}})
	assert.Equal(t, "90.00", s.ok("balance", url.Values{"currency": {"EUR"}})["amount"])

	usd := s.ok("balance", url.Values{"currency": {"USD"}})
	assert.Equal(t, "9.71", usd["amount"])
	assert.Equal(t, "USD", usd["currency"])
	assert.Equal(t, "98.93", usd["base_amount"], "90 EUR + 9.71 USD at 0.92")

	s.fails("balance", url.Values{"currency": {"euro"}}, paygate.CodeMerchantDataMissing)
}
