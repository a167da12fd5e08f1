package paygatetest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

func TestStatus_ByIDAndByOrderIDInSnakeCase(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	pay := s.charge(s.user("u"), paygatetest.CardApproved, url.Values{"order_id": {"o-1"}})
	want := map[string]any{
		"id": jsonNumber(idOf(pay)), "order_id": "o-1", "price": "10.00", "fee": "0.2900", "currency": "EUR",
		"type": "payment", "status": "completed", "original_status": "completed",
		"created_at": testStart.Format(time.RFC3339), "updated_at": testStart.Format(time.RFC3339),
	}
	assert.Equal(t, want, s.ok("transaction/status", url.Values{"id": {idOf(pay)}}))
	assert.Equal(t, want, s.ok("transaction/status", url.Values{"order_id": {"o-1"}}))
	s.fails("transaction/status", url.Values{"id": {"1000000000000000999"}}, paygate.CodeTransactionNotFound)
	s.fails("transaction/status", url.Values{"order_id": {"nope"}}, paygate.CodeTransactionNotFound)
	s.fails("transaction/status", nil, paygate.CodeMerchantDataMissing)
}

func TestStatus_IDsAreExactAbove2To53(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	first := idOf(s.charge(uid, paygatetest.CardApproved, nil))
	second := idOf(s.charge(uid, paygatetest.CardApproved, nil))
	assert.Equal(t, "1000000000000000001", first)
	assert.Equal(t, "1000000000000000002", second)
}

func TestByID_ReturnsCamelCaseFieldsWithUserAndCard(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	pay := s.charge(s.user("u"), paygatetest.CardApproved, url.Values{"order_id": {"o-1"}})
	out := s.ok("transactions/"+idOf(pay), nil)
	assert.Equal(t, jsonNumber(idOf(pay)), out["id"])
	assert.Equal(t, "o-1", out["orderId"])
	assert.Nil(t, out["referenceId"])
	assert.Equal(t, "card", out["method"])
	assert.Equal(t, "completed", out["status"])
	assert.Equal(t, "completed", out["originalStatus"])
	assert.Nil(t, out["reason"])
	assert.Equal(t, "4242", out["card"].(map[string]any)["lastFour"])
	assert.Equal(t, "u", out["user"].(map[string]any)["identifier"])
	s.fails("transactions/1000000000000000999", nil, paygate.CodeTransactionNotFound)
	s.fails("transactions/abc", nil, paygate.CodeTransactionNotFound)
}

func TestByID_EncodedSlashIsRouted(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	id := idOf(s.charge(s.user("u"), paygatetest.CardApproved, nil))
	body := s.rawOK(http.MethodGet, "/v1/transactions%2F"+id, s.signed(nil))
	assert.Equal(t, id, idOf(decode(t, body)))
}

func listIDs(t *testing.T, out map[string]any) []string {
	t.Helper()
	var ids []string
	for _, tx := range out["transactions"].([]any) {
		ids = append(ids, idOf(tx.(map[string]any)))
	}
	return ids
}

func TestList_FiltersAndPages(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	order := url.Values{"order_id": {"o-1"}}
	p1 := idOf(s.charge(uid, paygatetest.CardApproved, order)) // t0
	s.clock.Advance(time.Hour)
	p2 := idOf(s.charge(uid, paygatetest.CardDeclined, order)) // t0+1h
	s.clock.Advance(time.Hour)
	r1 := idOf(s.ok("transaction/reverse", url.Values{"id": {p1}, "amount": {"10"}})) // t0+2h, p1 refunded
	s.clock.Advance(time.Hour)
	p3 := idOf(s.charge(uid, paygatetest.CardApproved, order)) // t0+3h
	other := idOf(s.charge(uid, paygatetest.CardApproved, url.Values{"order_id": {"o-2"}}))
	_ = other

	at := func(h int) string { return testStart.Add(time.Duration(h) * time.Hour).Format(time.RFC3339) }
	for _, tc := range []struct {
		name  string
		v     url.Values
		total int
		ids   []string
	}{
		{"all of the order", url.Values{}, 4, []string{p1, p2, r1, p3}},
		{"status refunded", url.Values{"status": {"refunded"}}, 1, []string{p1}},
		{"status failed", url.Values{"status": {"failed"}}, 1, []string{p2}},
		{"type refund", url.Values{"type": {"refund"}}, 1, []string{r1}},
		{"created from", url.Values{"created[from]": {at(2)}}, 2, []string{r1, p3}},
		{"created to", url.Values{"created[to]": {at(1)}}, 2, []string{p1, p2}},
		{"created between, other layout", url.Values{"created[from]": {"2026-03-01 12:30:00"}, "created[to]": {"2026-03-01 14:30:00"}}, 2, []string{p2, r1}},
		{"updated from", url.Values{"updated[from]": {at(3)}}, 1, []string{p3}},
		{"updated to, date only", url.Values{"updated[to]": {"2026-03-01"}}, 0, nil},
		{"page 1 of 2", url.Values{"limit": {"3"}}, 4, []string{p1, p2, r1}},
		{"page 2 of 2", url.Values{"limit": {"3"}, "page": {"2"}}, 4, []string{p3}},
		{"page past the end", url.Values{"limit": {"3"}, "page": {"3"}}, 4, nil},
		{"page 0 is the first", url.Values{"limit": {"3"}, "page": {"0"}}, 4, []string{p1, p2, r1}},
		{"a negative page is the first", url.Values{"limit": {"3"}, "page": {"-2"}}, 4, []string{p1, p2, r1}},
		{"a page beyond int is past the end", url.Values{"limit": {"3"}, "page": {"99999999999999999999999"}}, 4, nil},
		{"the largest int page is past the end", url.Values{"limit": {"3"}, "page": {"9223372036854775807"}}, 4, nil},
		{"limit 0 is the default", url.Values{"limit": {"0"}}, 4, []string{p1, p2, r1, p3}},
		{"a large limit", url.Values{"limit": {"5000"}}, 4, []string{p1, p2, r1, p3}},
		{"a limit beyond int", url.Values{"limit": {"99999999999999999999999"}, "page": {"2"}}, 4, nil},
		{"created from, Unix seconds", url.Values{"created[from]": {fmt.Sprint(testStart.Add(2 * time.Hour).Unix())}}, 2, []string{r1, p3}},
		{"created to, +0100 offset", url.Values{"created[to]": {"2026-03-01T14:00:00+0100"}}, 2, []string{p1, p2}},
		{"created to, +01:00 offset", url.Values{"created[to]": {"2026-03-01T14:00:00+01:00"}}, 2, []string{p1, p2}},
		{"created to, offset + sent unencoded", url.Values{"created[to]": {"2026-03-01T14:00:00 01:00"}}, 2, []string{p1, p2}},
		{"created from, compact ISO 8601", url.Values{"created[from]": {"20260301T16:00:00+03:00"}}, 3, []string{p2, r1, p3}},
		{"created from, with fraction", url.Values{"created[from]": {"2026-03-01T13:00:00.000Z"}}, 3, []string{p2, r1, p3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.v
			v.Set("orderId", "o-1")
			out := s.ok("transactions", v)
			assert.Equal(t, json.Number(jsonNumber(tc.total)), out["totalCount"])
			assert.Equal(t, tc.ids, listIDs(t, out))
		})
	}
	for _, bad := range []url.Values{
		{},
		{"orderId": {"o-1"}, "created[from]": {"yesterday"}},
		// Longer than any time: refused unread, however many spaces might
		// be a "+" a query string turned into a space.
		{"orderId": {"o-1"}, "updated[to]": {"2026-03-01T12:00:00" + strings.Repeat(" ", 4<<10-19)}},
	} {
		s.fails("transactions", bad, paygate.CodeMerchantDataMissing)
	}
}

func TestReverse_PartialThenFullThenNothingLeft(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	s := newSandbox(t, paygatetest.WithForm(paygate.FormBasic))
	id := idOf(s.charge(s.user("u"), paygatetest.CardApproved, nil))
	out := s.ok("transaction/reverse", url.Values{"id": {id}, "amount": {"10"}})
	assert.Equal(t, map[string]any{"success": true}, out)
	st := s.ok("transaction/status", url.Values{"id": {id}})
	assert.Equal(t, "reversed", st["status"])
	assert.Equal(t, "deposit", st["type"], "the basic form calls a payment from a user a deposit")
}

func TestReverse_Errors(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	uid := s.user("u")
	failed := idOf(s.charge(uid, paygatetest.CardDeclined, nil))
	pending := idOf(s.charge(uid, paygatetest.Card3DSecure, nil))
	done := idOf(s.charge(uid, paygatetest.CardApproved, nil))
	refund := idOf(s.ok("transaction/reverse", url.Values{"id": {done}, "amount": {"1"}}))
	s.failsEach("transaction/reverse", []errorCase{
		{"failed payment", url.Values{"id": {failed}, "amount": {"1"}}, paygate.CodeNotReversible},
		{"authenticating payment", url.Values{"id": {pending}, "amount": {"1"}}, paygate.CodeNotReversible},
		{"a refund itself", url.Values{"id": {refund}, "amount": {"1"}}, paygate.CodeNotReversible},
		{"unknown id", url.Values{"id": {"1000000000000009999"}, "amount": {"1"}}, paygate.CodeTransactionNotFound},
		{"unknown order id", url.Values{"order_id": {"nope"}, "amount": {"1"}}, paygate.CodeTransactionNotFound},
		{"neither id nor order id", url.Values{"amount": {"1"}}, paygate.CodeMerchantDataMissing},
		{"no amount", url.Values{"id": {done}}, paygate.CodeMerchantDataMissing},
		{"negative amount", url.Values{"id": {done}, "amount": {"-1"}}, paygate.CodeMerchantDataMissing},
	})
}
