package paygatetest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// obj is a request as a PHP client holds it before Guzzle sends it with
// the json option: nested arrays, ints, floats, booleans and nulls.
type obj = map[string]any

// phpFields is what a PHP client signs for o: every leaf as PHP's strval
// makes it (true "1", false and null ""), nested keys in brackets.
func phpFields(o obj, prefix string, out url.Values) url.Values {
	for k, v := range o {
		if prefix != "" {
			k = prefix + "[" + k + "]"
		}
		switch v := v.(type) {
		case obj:
			phpFields(v, k, out)
		case string:
			out.Add(k, v)
		case json.Number:
			out.Add(k, string(v))
		case bool:
			out.Add(k, map[bool]string{true: "1", false: ""}[v])
		case nil:
			out.Add(k, "")
		default:
			panic("unexpected value in a PHP request")
		}
	}
	return out
}

// sendJSON POSTs o as a JSON body, project and signature inside it.
func (s *sandbox) sendJSON(method string, o obj) (int, map[string]any) {
	s.t.Helper()
	o["project"] = s.srv.ProjectKey
	o["signature"] = paygate.Sign(phpFields(o, "", url.Values{}), s.srv.PrivateKey)
	body, err := json.Marshal(o)
	require.NoError(s.t, err)
	req, err := http.NewRequest(http.MethodPost, s.srv.URL+"/v1/"+method, bytes.NewReader(body))
	require.NoError(s.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GuzzleHttp/7")
	resp, err := s.hc.Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	out, err := decodeReader(resp.Body)
	require.NoError(s.t, err)
	return resp.StatusCode, out
}

// sendForm POSTs the same request form-encoded.
func (s *sandbox) sendForm(method string, o obj) (int, map[string]any) {
	s.t.Helper()
	return s.call(method, phpFields(o, "", url.Values{}))
}

// guzzleFlow runs every POST endpoint once through send and returns the
// answers, each required to be HTTP 200.
func guzzleFlow(t *testing.T, s *sandbox, send func(method string, o obj) (int, map[string]any)) []map[string]any {
	var answers []map[string]any
	do := func(method string, o obj) map[string]any {
		t.Helper()
		status, out := send(method, o)
		require.Equal(t, http.StatusOK, status, "%s: %v", method, out)
		answers = append(answers, out)
		return out
	}
	do("user/resolve", obj{"identifier": "cust-1", "email": "cust-1@example.com", "ip": "192.0.2.1", "display_name": nil, "phone": false})
	first := do("card/process", obj{
		"user": obj{"identifier": "cust-2", "email": "cust-2@example.com", "ip": "192.0.2.2", "locale": "en"},
		"card": obj{"number": paygatetest.CardApproved, "expiration_month": json.Number("12"), "expiration_year": json.Number("2030"),
			"security_code": "123", "holder": nil},
		"price": json.Number("10.5"), "currency": "eur", "description": "Order 1", "order_id": "o-1",
		"remember": true, "recurring": true, "recurring_interval": json.Number("0"), "3ds": false, "attr_note": nil,
	})
	require.Equal(t, "1000000000000000001", idOf(first))
	uid := json.Number(first["user"].(map[string]any)["id"].(string))

	threeDS := do("card/process", obj{"user": uid, "card_token": s.token(paygatetest.Card3DSecure), "price": json.Number("3"),
		"currency": "EUR", "description": "Order 2", "acs_return_url": "https://shop.example/3ds"})
	acs := threeDS["acs"].(map[string]any)
	acs["url"] = strings.TrimPrefix(acs["url"].(string), s.srv.URL) // the one thing that differs between servers
	md := acs["parameters"].(map[string]any)["MD"].(string)
	do("card/authenticate", obj{"PaRes": s.srv.PaRes(md, paygatetest.ACSPassword), "MD": md})

	do("card/processRecurring", obj{"user": uid, "price": json.Number("4.99"), "currency": "EUR", "order_id": "r-1", "description": nil})
	do("user/changeRecurring", obj{"user": uid, "interval": json.Number("14"), "price": "5.00", "currency": "EUR"})
	// The payment's id is a bare 19-digit number, beyond float64's exact
	// integers: read as text it names the payment, through float64 it
	// would not.
	do("transaction/reverse", obj{"id": json.Number("1000000000000000001"), "amount": json.Number("5"), "comment": nil})
	do("transaction/create", obj{"user": "cust-3", "payment_method": "paypal", "price": json.Number("12.3"), "currency": "EUR",
		"description": "d", "success_url": "https://shop.example/ok", "fail_url": "https://shop.example/fail", "order_id": "alt-1",
		"email": nil})
	do("payout", obj{"type": json.Number(walletPayout), "account": "wallet-1", "amount": json.Number("1"), "currency": "EUR",
		"phone": "4915112345678", "fullName": false})
	do("user/cancelRecurring", obj{"user": uid})
	return answers
}

func TestJSONBodies_AnswerAsFormBodiesOnEveryPOSTEndpoint(t *testing.T) {
	t.Parallel()
	viaForm, viaJSON := newSandbox(t), newSandbox(t)
	formAnswers := guzzleFlow(t, viaForm, viaForm.sendForm)
	jsonAnswers := guzzleFlow(t, viaJSON, viaJSON.sendJSON)
	require.Len(t, jsonAnswers, 10)
	assert.Equal(t, formAnswers, jsonAnswers)

	formCallbacks, jsonCallbacks := viaForm.srv.Deliveries(), viaJSON.srv.Deliveries()
	require.Len(t, jsonCallbacks, len(formCallbacks))
	for i := range formCallbacks {
		assert.Equal(t, formCallbacks[i].Values, jsonCallbacks[i].Values)
	}
	assert.Equal(t, viaForm.ok("balance", nil), viaJSON.ok("balance", nil))
	refunds := viaJSON.ok("transactions", url.Values{"orderId": {"o-1"}, "type": {"refund"}})["transactions"].([]any)
	require.Len(t, refunds, 1)
	assert.Equal(t, jsonNumber("1000000000000000001"), refunds[0].(map[string]any)["referenceId"], "the reversal named the 19-digit payment")
	assert.Len(t, viaJSON.ok("transactions", url.Values{"orderId": {"o-1"}, "type": {"refund"}})["transactions"], 1)
}

func TestJSONBodies_AreSignedOverTheirStrings(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	o := obj{"identifier": "cust-1", "ip": "192.0.2.1", "email": nil}
	status, out := s.sendJSON("user/resolve", o)
	require.Equal(t, http.StatusOK, status, "%v", out)

	// Signed as if null were the text "null": not the strings received.
	o = obj{"identifier": "cust-1", "ip": "192.0.2.1", "email": nil, "project": s.srv.ProjectKey}
	o["signature"] = paygate.Sign(url.Values{"identifier": {"cust-1"}, "ip": {"192.0.2.1"}, "email": {"null"}, "project": {s.srv.ProjectKey}}, s.srv.PrivateKey)
	body, err := json.Marshal(o)
	require.NoError(t, err)
	resp, err := http.Post(s.srv.URL+"/v1/user/resolve", "application/json; charset=utf-8", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := decodeReader(resp.Body)
	require.NoError(t, err)
	requireError(t, resp.StatusCode, got, paygate.CodeSignatureInvalid)

	delete(o, "signature")
	body, err = json.Marshal(o)
	require.NoError(t, err)
	resp2, err := http.Post(s.srv.URL+"/v1/user/resolve", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp2.Body.Close()
	got, err = decodeReader(resp2.Body)
	require.NoError(t, err)
	requireError(t, resp2.StatusCode, got, paygate.CodeSignatureMissing)
}

func TestJSONBodies_ThatAreNotAnObjectAreRefused(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, body := range []string{`[1,2]`, `{"project":`, `"text"`, `{"a":1} {"b":2}`,
		`{"a":` + strings.Repeat(`{"a":`, 20) + `1` + strings.Repeat(`}`, 21)} {
		resp, err := http.Post(s.srv.URL+"/v1/user/resolve", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		got, err := decodeReader(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		requireError(t, resp.StatusCode, got, 40000)
	}
}
