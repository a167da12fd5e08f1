package callback

import (
	"fmt"
	"slices"
	"strings"

	"github.com/paygate/paygate-go/internal/ascii"
	"github.com/paygate/paygate-go/internal/signing"
	"github.com/paygate/paygate-go/internal/wire"
	"github.com/shopspring/decimal"
)

// attrPrefix starts the names of custom attributes.
const attrPrefix = "attr_"

// The fields a Callback types, numbered for decodeCallback.
const (
	cbProject = iota
	cbUser
	cbID
	cbReferenceID
	cbOrderID
	cbAmount
	cbPrice
	cbDeposit
	cbEarned
	cbVATRate
	cbVATAmount
	cbCurrency
	cbType
	cbStatus
	cbReason
	cbSandbox
	cbSignature
	cbFields // how many
)

// callbackFieldNames are the names of the fields a Callback types, by
// number.
var callbackFieldNames = [cbFields]string{
	cbProject: "project", cbUser: "user", cbID: "id", cbReferenceID: "reference_id",
	cbOrderID: "order_id", cbAmount: "amount", cbPrice: "price", cbDeposit: "deposit",
	cbEarned: "earned", cbVATRate: "vat_rate", cbVATAmount: "vat_amount",
	cbCurrency: "currency", cbType: "type", cbStatus: "status", cbReason: "reason",
	cbSandbox: "sandbox", cbSignature: signing.Param,
}

// callbackFieldNumber returns the number of a field a Callback types, or
// -1. (A switch on strings compiles to a search on length and content.)
func callbackFieldNumber(name string) int {
	switch name {
	case "project":
		return cbProject
	case "user":
		return cbUser
	case "id":
		return cbID
	case "reference_id":
		return cbReferenceID
	case "order_id":
		return cbOrderID
	case "amount":
		return cbAmount
	case "price":
		return cbPrice
	case "deposit":
		return cbDeposit
	case "earned":
		return cbEarned
	case "vat_rate":
		return cbVATRate
	case "vat_amount":
		return cbVATAmount
	case "currency":
		return cbCurrency
	case "type":
		return cbType
	case "status":
		return cbStatus
	case "reason":
		return cbReason
	case "sandbox":
		return cbSandbox
	case signing.Param:
		return cbSignature
	}
	return -1
}

// decodeCallback types the fields of a verified callback, in one pass over
// them and without a map but the attributes'.
func decodeCallback(fields callbackFields) (*Callback, error) {
	var (
		raw   [cbFields]string
		sent  uint32 // bit i: field i was sent
		arr   [8]string
		other = arr[:0] // names of the other fields, attributes included
		attrs int
	)
	for _, f := range fields {
		if i := callbackFieldNumber(f.name); i >= 0 {
			if sent&(1<<i) != 0 {
				return nil, malformed(f.name, "is sent more than once")
			}
			sent |= 1 << i
			raw[i] = f.value
			continue
		}
		if strings.HasPrefix(f.name, attrPrefix) {
			attrs++
		}
		other = append(other, f.name)
	}
	if name, ok := repeatedName(other); ok {
		return nil, malformed(name, "is sent more than once")
	}
	has := func(i int) bool { return sent&(1<<i) != 0 }
	for _, i := range [...]int{cbID, cbStatus} {
		if !has(i) {
			return nil, malformed(callbackFieldNames[i], "is absent")
		}
	}
	cb := &Callback{
		Project:  raw[cbProject],
		User:     UserID(raw[cbUser]),
		OrderID:  raw[cbOrderID],
		Currency: raw[cbCurrency],
		Type:     Type(raw[cbType]),
		Status:   Status(raw[cbStatus]),
		Reason:   raw[cbReason],
		Form:     FormExtended,
		raw:      fields,
	}
	if !has(cbType) && !has(cbReason) {
		cb.Form = FormBasic
	}
	var err error
	for _, f := range [...]struct {
		i   int
		dst *ID
	}{{cbID, &cb.ID}, {cbReferenceID, &cb.ReferenceID}} {
		if v := raw[f.i]; v != "" {
			if *f.dst, err = callbackID(callbackFieldNames[f.i], v); err != nil {
				return nil, err
			}
		}
	}
	for _, m := range [...]struct {
		i   int
		dst *decimal.Decimal
	}{
		{cbAmount, &cb.Amount}, {cbPrice, &cb.Price}, {cbDeposit, &cb.Deposit},
		{cbEarned, &cb.Earned}, {cbVATRate, &cb.VATRate}, {cbVATAmount, &cb.VATAmount},
	} {
		if *m.dst, err = callbackMoney(callbackFieldNames[m.i], raw[m.i]); err != nil {
			return nil, err
		}
	}
	switch raw[cbSandbox] {
	case "1":
		cb.Sandbox = true
	case "0", "":
	default:
		return nil, malformed("sandbox", "must be 1 or 0")
	}
	if attrs > 0 {
		cb.Attrs = make(map[string]string, attrs)
		for _, f := range fields {
			if name, ok := strings.CutPrefix(f.name, attrPrefix); ok {
				cb.Attrs[name] = f.value
			}
		}
	}
	return cb, nil
}

// repeatedName returns a name that names holds more than once.
func repeatedName(names []string) (string, bool) {
	if len(names) > 16 {
		// Rare (a callback carries a few attributes): sort a copy rather
		// than compare every pair.
		names = slices.Clone(names)
		slices.Sort(names)
		for i := 1; i < len(names); i++ {
			if names[i] == names[i-1] {
				return names[i], true
			}
		}
		return "", false
	}
	for i, a := range names {
		if slices.Contains(names[i+1:], a) {
			return a, true
		}
	}
	return "", false
}

// callbackID parses a transaction id sent as decimal digits.
func callbackID(field, s string) (ID, error) {
	if !ascii.Digits(s) {
		return 0, malformed(field, "must be a decimal transaction id")
	}
	id, err := wire.ParseID(s)
	if err != nil {
		return 0, malformed(field, "does not fit in 64 bits")
	}
	return id, nil
}

// callbackMoney parses money sent as a plain decimal; empty is zero. The
// exponent form decimal.NewFromString would also take is refused, so that a
// signed "1e999999999" cannot make a later String call allocate gigabytes.
func callbackMoney(field, s string) (decimal.Decimal, error) {
	if s == "" {
		return decimal.Zero, nil
	}
	digits := strings.TrimPrefix(s, "-")
	whole, frac, hasPoint := strings.Cut(digits, ".")
	if !ascii.Digits(whole) || (hasPoint && !ascii.Digits(frac)) {
		return decimal.Zero, malformed(field, "must be a plain decimal number")
	}
	if len(whole)+len(frac)+len(s)-len(digits) <= 18 {
		return smallMoney(s[0] == '-', whole, frac), nil
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Zero, malformed(field, "must be a plain decimal number")
	}
	return d, nil
}

// smallMoney is decimal.NewFromString of an already checked plain decimal
// of at most 18 characters besides the point, sign included: the same
// value and exponent from the same constructor, without scanning the
// string again. A zero shares one value per exponent (a Decimal is
// immutable), which spares its allocation.
func smallMoney(neg bool, whole, frac string) decimal.Decimal {
	var n int64
	for _, d := range [2]string{whole, frac} {
		for i := 0; i < len(d); i++ {
			n = n*10 + int64(d[i]-'0')
		}
	}
	if n == 0 {
		return zeroMoney[len(frac)]
	}
	if neg {
		n = -n
	}
	return decimal.New(n, -int32(len(frac)))
}

// zeroMoney holds zero with each exponent smallMoney can give it: 0 to
// -17 (an 18-character decimal has at least one whole digit).
var zeroMoney = func() (z [18]decimal.Decimal) {
	for i := range z {
		z[i] = decimal.New(0, -int32(i))
	}
	return z
}()

// malformed names the field at fault, never its value.
func malformed(field, reason string) error {
	return fmt.Errorf("%w: field %q %s", ErrMalformed, field, reason)
}
