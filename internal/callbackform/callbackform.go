// Package callbackform builds callbacks as the gateway sends them: the
// fields of the spec's Events table, typed for the basic or the extended
// form, encoded in the table's order. The sandbox (paygatetest) builds the
// callbacks it delivers with it, and paygatetest.CallbackSigner builds the
// callbacks of merchants' tests with it, so that both always agree.
//
// It signs with internal/signing, as the client and package callback do.
// It does not import package callback, whose own tests use it; so the
// status type is the caller's (callback.Status), a type parameter.
package callbackform

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/paygate/paygate-go/internal/signing"
	"github.com/shopspring/decimal"
)

// SignatureParam is the field that carries the signature.
const SignatureParam = signing.Param

// DefaultID is the transaction id of the callbacks a Signer builds unless
// told otherwise: 2^53 + 1, which a float64 cannot hold, so a handler that
// loses precision shows it.
const DefaultID = 9007199254740993

// Fields are the values of one callback.
type Fields struct {
	// Basic selects the basic form: money typed as plain numbers, no type
	// and no reason.
	Basic                                              bool
	Project, User, ID, ReferenceID, OrderID            string
	Amount, Price, Deposit, Earned, VATRate, VATAmount decimal.Decimal
	Currency, Status, Reason                           string
	Sandbox                                            bool
	// Attrs are the attr_* fields, keys included.
	Attrs map[string]string
}

// order is the order of the Events table, which the gateway lists callback
// fields in; attr_* follow, then the signature.
var order = []string{
	"project", "user", "id", "reference_id", "order_id", "amount", "price", "deposit", "earned",
	"vat_rate", "vat_amount", "currency", "type", "status", "reason", "sandbox",
}

// Values returns every field of the Events table for f's form, empty ones
// included, and the attr_* fields; it does not sign. The extended form
// sends amount as decimal(9,2) and the other money as decimal(12,4)
// strings; the basic form types money as numbers (the shortest decimal)
// and has no type and reason.
func Values(f Fields) url.Values {
	money := func(d decimal.Decimal, places int32) string { return d.StringFixed(places) }
	if f.Basic {
		money = func(d decimal.Decimal, _ int32) string { return d.String() }
	}
	sandbox := "0"
	if f.Sandbox {
		sandbox = "1"
	}
	v := url.Values{
		"project":      {f.Project},
		"user":         {f.User},
		"id":           {f.ID},
		"reference_id": {f.ReferenceID},
		"order_id":     {f.OrderID},
		"amount":       {money(f.Amount, 2)},
		"price":        {money(f.Price, 4)},
		"deposit":      {money(f.Deposit, 4)},
		"earned":       {money(f.Earned, 4)},
		"vat_rate":     {money(f.VATRate, 4)},
		"vat_amount":   {money(f.VATAmount, 4)},
		"currency":     {f.Currency},
		"status":       {f.Status},
		"sandbox":      {sandbox},
	}
	if !f.Basic {
		v.Set("type", "transaction")
		v.Set("reason", f.Reason)
	}
	for k, a := range f.Attrs {
		v.Set(k, a)
	}
	return v
}

// Encode form-encodes v with the Events table's fields in its order, then
// the others (attr_*) sorted, then the signature.
func Encode(v url.Values) string {
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
	rest := make([]string, 0, len(v))
	for k := range v {
		if k != SignatureParam && !slices.Contains(order, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range order {
		add(k)
	}
	for _, k := range rest {
		add(k)
	}
	add(SignatureParam)
	return b.String()
}

// Signer builds signed callbacks of one form under one private key, with
// the values of a 10 EUR payment. S is the status type of the caller
// (callback.Status), which this package cannot import.
type Signer[S ~string] struct {
	signer *signing.Signer
	basic  bool
	name   string
}

// NewSigner returns a Signer of basic or extended callbacks signed under
// privateKey; name is what String prints in place of the key.
func NewSigner[S ~string](name, privateKey string, basic bool) *Signer[S] {
	return &Signer[S]{signer: signing.New(privateKey), basic: basic, name: name}
}

// Values returns the signed fields of a callback reporting status; fields
// then replace or add fields before the whole is signed.
func (s *Signer[S]) Values(status S, fields url.Values) url.Values {
	v := s.defaults(status)
	for k, vs := range fields {
		v[k] = append([]string(nil), vs...)
	}
	var sig [signing.Len]byte
	s.signer.SumValues(&sig, v)
	v.Set(SignatureParam, string(sig[:]))
	return v
}

// Body returns Values form-encoded by Encode.
func (s *Signer[S]) Body(status S, fields url.Values) string {
	return Encode(s.Values(status, fields))
}

// Request returns a callback POST to target carrying Body. It panics if
// target cannot be parsed, as httptest.NewRequest does.
func (s *Signer[S]) Request(target string, status S, fields url.Values) *http.Request {
	r, err := http.NewRequestWithContext(context.Background(), http.MethodPost, target, strings.NewReader(s.Body(status, fields)))
	if err != nil {
		panic(s.name + ": callback request: " + err.Error())
	}
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

// String describes the signer without its key.
func (s *Signer[S]) String() string {
	form := "extended"
	if s.basic {
		form = "basic"
	}
	return s.name + "{form: " + form + "}"
}

// GoString is String, so that %#v never prints the private key.
func (s *Signer[S]) GoString() string { return s.String() }

// Format prints String for every verb, so that %v, %+v and %#v never print
// the private key.
func (s *Signer[S]) Format(f fmt.State, _ rune) { io.WriteString(f, s.String()) }

// defaults are the fields of a payment of 10 EUR with id DefaultID; a
// refund, chargeback, retrieval or penalty gets id DefaultID+1 and
// reference_id DefaultID.
func (s *Signer[S]) defaults(status S) url.Values {
	id, ref := fmt.Sprint(DefaultID), ""
	switch status {
	case "refund_completed", "chargeback_completed", "retrieval_completed", "penalty_completed":
		id, ref = fmt.Sprint(DefaultID+1), fmt.Sprint(DefaultID)
	}
	ten := decimal.NewFromInt(10)
	return Values(Fields{
		Basic: s.basic, Project: "10042", User: "7301", ID: id, ReferenceID: ref, OrderID: "order-1001",
		Amount: ten, Price: ten, Earned: decimal.RequireFromString("9.71"), Currency: "EUR",
		Status: string(status), Sandbox: true,
	})
}
