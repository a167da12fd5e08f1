package paygatetest_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func TestReverse_PartialThenFullThenNothingLeft(t *testing.T) {
	s := newSandbox(t)
	pay := s.charge(s.user("u"), paygatetest.CardApproved, url.Values{"order_id": {"o-9"}})
	id := idOf(pay)

	part := s.ok("transaction/reverse", url.Values{"id": {id}, "amount": {"4"}, "comment": {"one item back"}})
	assert.Equal(t, true, part["success"])
	assert.Equal(t, "refund", part["type"])
	assert.Equal(t, "completed", part["status"])
	assert.Equal(t, "4.00", part["price"])
	assert.Equal(t, jsonNumber(id), part["referenceId"])
	assert.Equal(t, "o-9", part["orderId"])
	assert.Contains(t, part, "card")
	assert.Contains(t, part, "user")
	st := s.ok("transaction/status", url.Values{"id": {id}})
	assert.Equal(t, "completed", st["status"], "a partial reversal leaves the payment completed")

	s.fails("transaction/reverse", url.Values{"id": {id}, "amount": {"6.01"}}, paygate.CodeNotReversible)
	s.ok("transaction/reverse", url.Values{"order_id": {"o-9"}, "amount": {"6"}})
	st = s.ok("transaction/status", url.Values{"id": {id}})
	assert.Equal(t, "refunded", st["status"])
	assert.Equal(t, "completed", st["original_status"])
	s.fails("transaction/reverse", url.Values{"id": {id}, "amount": {"0.01"}}, paygate.CodeNotReversible)
}

func TestReverse_BasicFormAnswersOnlySuccessAndMarksReversed(t *testing.T) {
	s := newSandbox(t, paygatetest.WithForm(paygate.FormBasic))
	id := idOf(s.charge(s.user("u"), paygatetest.CardApproved, nil))
	out := s.ok("transaction/reverse", url.Values{"id": {id}, "amount": {"10"}})
	assert.Equal(t, map[string]any{"success": true}, out)
	st := s.ok("transaction/status", url.Values{"id": {id}})
	assert.Equal(t, "reversed", st["status"])
	assert.Equal(t, "deposit", st["type"], "the basic form calls a payment from a user a deposit")
}

func TestReverse_Errors(t *testing.T) {
	s := newSandbox(t)
	uid := s.user("u")
	failed := idOf(s.charge(uid, paygatetest.CardDeclined, nil))
	pending := idOf(s.charge(uid, paygatetest.Card3DSecure, nil))
	done := idOf(s.charge(uid, paygatetest.CardApproved, nil))
	refund := idOf(s.ok("transaction/reverse", url.Values{"id": {done}, "amount": {"1"}}))
	for _, tc := range []struct {
		name string
		v    url.Values
		code paygate.ErrorCode
	}{
		{"failed payment", url.Values{"id": {failed}, "amount": {"1"}}, paygate.CodeNotReversible},
		{"authenticating payment", url.Values{"id": {pending}, "amount": {"1"}}, paygate.CodeNotReversible},
		{"a refund itself", url.Values{"id": {refund}, "amount": {"1"}}, paygate.CodeNotReversible},
		{"unknown id", url.Values{"id": {"1000000000000009999"}, "amount": {"1"}}, paygate.CodeTransactionNotFound},
		{"unknown order id", url.Values{"order_id": {"nope"}, "amount": {"1"}}, paygate.CodeTransactionNotFound},
		{"neither id nor order id", url.Values{"amount": {"1"}}, paygate.CodeMerchantDataMissing},
		{"no amount", url.Values{"id": {done}}, paygate.CodeMerchantDataMissing},
		{"negative amount", url.Values{"id": {done}, "amount": {"-1"}}, paygate.CodeMerchantDataMissing},
	} {
		t.Run(tc.name, func(t *testing.T) { s.fails("transaction/reverse", tc.v, tc.code) })
	}
}
