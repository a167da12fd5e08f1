package paygatetest

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/callbackform"
)

// CallbackID is the transaction id of the callbacks a CallbackSigner
// builds unless told otherwise: 2^53 + 1, which a float64 cannot hold, so a
// handler that loses precision shows it.
const CallbackID paygate.ID = callbackform.DefaultID

// CallbackSigner builds correctly signed callbacks, as the gateway sends
// them, for a merchant's tests of their own callback handling without a
// running sandbox, in the manner of httptest.NewRequest. The sandbox builds
// the callbacks it delivers the same way. It never prints its key.
type CallbackSigner struct {
	b *callbackform.Signer[callback.Status]
}

// NewCallbackSigner returns a signer of callbacks in form f, signed with
// privateKey.
func NewCallbackSigner(privateKey string, f paygate.Form) *CallbackSigner {
	return &CallbackSigner{b: callbackform.NewSigner[callback.Status]("paygatetest.CallbackSigner", privateKey, f == paygate.FormBasic)}
}

// Values returns the fields of a signed callback reporting status. Every
// field of the spec's Events table for the signer's form is present, with
// the values a payment of 10 EUR with id CallbackID would carry (a refund,
// chargeback, retrieval or penalty gets id CallbackID+1 and reference_id
// CallbackID); the extended form sends money as fixed-point strings
// ("10.00", "9.7100"), the basic form as numbers ("10", "9.71"). fields
// then replaces or adds fields (attr_* included, an empty value sent as
// such) before the whole is signed.
func (s *CallbackSigner) Values(status callback.Status, fields url.Values) url.Values {
	return s.b.Values(status, fields)
}

// Body returns Values form-encoded, in the gateway's field order: the
// Events table's, then attr_* sorted, then the signature.
func (s *CallbackSigner) Body(status callback.Status, fields url.Values) string {
	return s.b.Body(status, fields)
}

// Request returns a callback POST to target (a path or URL) carrying Body,
// ready for an http.Handler under test. It panics if target cannot be
// parsed, as httptest.NewRequest does.
func (s *CallbackSigner) Request(target string, status callback.Status, fields url.Values) *http.Request {
	return s.b.Request(target, status, fields)
}

// String describes the signer without its key.
func (s *CallbackSigner) String() string { return s.b.String() }

// GoString is String, so that %#v never prints the private key.
func (s *CallbackSigner) GoString() string { return s.b.String() }

// Format prints String for every verb, so that %v, %+v and %#v never print
// the private key.
func (s *CallbackSigner) Format(f fmt.State, verb rune) { s.b.Format(f, verb) }
