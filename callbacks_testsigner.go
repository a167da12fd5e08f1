package paygate

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// TestCallbackID is the transaction id of the callbacks a TestCallbackSigner
// builds unless told otherwise: 2^53 + 1, which a float64 cannot hold, so a
// handler that loses precision shows it.
const TestCallbackID ID = 9007199254740993

// TestCallbackSigner builds correctly signed callbacks, as the gateway
// sends them, for a merchant's tests of their own callback handling. It
// never prints its key.
type TestCallbackSigner struct {
	key  string
	form Form
}

// NewTestCallbackSigner returns a signer of callbacks in form f, signed
// with privateKey.
func NewTestCallbackSigner(privateKey string, f Form) *TestCallbackSigner {
	return &TestCallbackSigner{key: privateKey, form: f}
}

// Values returns the fields of a signed callback reporting status. Every
// field of the spec's Events table for the signer's form is present, with
// the values a payment of 10 EUR with id TestCallbackID would carry (a
// refund, chargeback, retrieval or penalty gets id TestCallbackID+1 and
// reference_id TestCallbackID); fields then replaces or adds fields (attr_*
// included, an empty value sent as such) before the whole is signed.
func (s *TestCallbackSigner) Values(status CallbackStatus, fields url.Values) url.Values {
	v := s.defaults(status)
	for k, vs := range fields {
		v[k] = append([]string(nil), vs...)
	}
	v.Set(SignatureParam, Sign(v, s.key))
	return v
}

// Body returns Values form-encoded, in the gateway's field order.
func (s *TestCallbackSigner) Body(status CallbackStatus, fields url.Values) string {
	return encodeCallback(s.Values(status, fields))
}

// Request returns a callback POST to target (a path or URL) carrying Body,
// ready for an http.Handler under test. It panics if target cannot be
// parsed, as httptest.NewRequest does.
func (s *TestCallbackSigner) Request(target string, status CallbackStatus, fields url.Values) *http.Request {
	r, err := http.NewRequestWithContext(context.Background(), http.MethodPost, target, strings.NewReader(s.Body(status, fields)))
	if err != nil {
		panic("paygate: test callback request: " + err.Error())
	}
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

// String describes the signer without its key.
func (s *TestCallbackSigner) String() string {
	return "paygate.TestCallbackSigner{form: " + s.form.String() + "}"
}

// GoString is String, so that %#v never prints the private key.
func (s *TestCallbackSigner) GoString() string { return s.String() }

// Format prints String for every verb, so that %v, %+v and %#v never print
// the private key.
func (s *TestCallbackSigner) Format(f fmt.State, _ rune) { io.WriteString(f, s.String()) }

// callbackFieldOrder is the order the gateway lists callback fields in.
var callbackFieldOrder = []string{
	"project", "user", "id", "reference_id", "order_id", "amount", "price", "deposit", "earned",
	"vat_rate", "vat_amount", "currency", "type", "status", "reason", "sandbox",
}

func (s *TestCallbackSigner) defaults(status CallbackStatus) url.Values {
	id, ref := TestCallbackID, ""
	switch status {
	case CallbackRefundCompleted, CallbackChargebackCompleted, CallbackRetrievalCompleted, CallbackPenaltyCompleted:
		id, ref = TestCallbackID+1, TestCallbackID.String()
	}
	v := url.Values{
		"project":      {"10042"},
		"user":         {"7301"},
		"id":           {id.String()},
		"reference_id": {ref},
		"order_id":     {"order-1001"},
		"currency":     {"EUR"},
		"status":       {string(status)},
		"sandbox":      {"1"},
	}
	if s.form == FormBasic {
		// The basic form types money as numbers and sends no type or reason.
		for k, m := range map[string]string{"amount": "10", "price": "10", "deposit": "0", "earned": "9.71", "vat_rate": "0", "vat_amount": "0"} {
			v.Set(k, m)
		}
		return v
	}
	for k, m := range map[string]string{"amount": "10.00", "price": "10.0000", "deposit": "0.0000", "earned": "9.7100", "vat_rate": "0.0000", "vat_amount": "0.0000"} {
		v.Set(k, m)
	}
	v.Set("type", string(CallbackTypeTransaction))
	v.Set("reason", "")
	return v
}

// encodeCallback form-encodes v with the known fields in the gateway's
// order, then the others (attr_*) sorted, then the signature.
func encodeCallback(v url.Values) string {
	var b strings.Builder
	add := func(k string) {
		for _, val := range v[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k))
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(val))
		}
	}
	known := map[string]bool{SignatureParam: true}
	for _, k := range callbackFieldOrder {
		known[k] = true
		add(k)
	}
	rest := make([]string, 0, len(v))
	for k := range v {
		if !known[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		add(k)
	}
	add(SignatureParam)
	return b.String()
}
