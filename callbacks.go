package paygate

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go/internal/cardnum"
)

// MaxCallbackBytes is the largest callback body read: 64 KiB. A larger body
// is rejected with [ErrCallbackTooLarge] before any of it is decoded.
const MaxCallbackBytes = 64 << 10

var (
	// ErrCallbackMalformed is matched (errors.Is) by the error for a
	// correctly signed callback that cannot be read: a body that is not a
	// form, a field sent more than once, an absent or non-numeric id, an
	// absent status, a reference_id that is not numeric, money that is not
	// a plain decimal, or sandbox other than "1", "0" or "". An id or status
	// sent empty is not malformed: the spec says every parameter is present
	// but may be empty.
	ErrCallbackMalformed = errors.New("paygate: malformed callback")
	// ErrCallbackTooLarge is matched by the error for a callback body over
	// MaxCallbackBytes.
	ErrCallbackTooLarge = errors.New("paygate: callback body exceeds 64 KiB")
	// ErrCallbackMethod is matched by the error for a callback request that
	// is not a POST.
	ErrCallbackMethod = errors.New("paygate: callback request is not a POST")
)

// CallbackType is the type of a callback. The basic form sends none.
type CallbackType string

// CallbackTypeTransaction is the type of a callback fired when a
// transaction's status changes, the only type the gateway documents.
const CallbackTypeTransaction CallbackType = "transaction"

// Callback is a verified callback: the gateway's signed POST reporting a
// change of a transaction's status. Every field of the callback is present
// in the extended form but may be empty; empty money reads as zero and an
// empty reference_id as the zero ID.
//
// The basic form sends no type and no reason, and types project, user, id
// and reference_id as integers, money as numbers and sandbox as 0 or 1;
// both forms decode to this type, and Form tells which one arrived.
//
// The signature covers the values but not the field names, so a callback
// whose values were moved between fields still verifies. Before fulfilling
// a high-value order, confirm the callback with [Client.ConfirmCallback].
type Callback struct {
	// Project is the gateway's project id (integer(11)), kept as sent.
	Project string
	// User is the user id (string(128); an integer in the basic form).
	User UserID
	// ID is the transaction id (19 digits), or zero when the gateway sent
	// it empty.
	ID ID
	// ReferenceID is the parent transaction (for refund_completed, the
	// refunded transaction), or zero.
	ReferenceID ID
	// OrderID is the merchant's order id (string(64)), if one was given.
	OrderID string
	// Amount is the amount of virtual currency to give the user,
	// decimal(9,2).
	Amount decimal.Decimal
	// Price is the transaction price, decimal(12,4), in Currency.
	Price decimal.Decimal
	// Deposit is the deposit taken from this transaction, decimal(12,4).
	Deposit decimal.Decimal
	// Earned is the merchant's revenue, decimal(12,4).
	Earned decimal.Decimal
	// VATRate is the VAT rate in the country of payment, decimal(12,4).
	VATRate decimal.Decimal
	// VATAmount is computed from Price and not subtracted from Earned,
	// decimal(12,4).
	VATAmount decimal.Decimal
	// Currency is the ISO 4217 currency of Price, Deposit and Earned.
	Currency string
	// Type is the callback type (extended form only).
	Type CallbackType
	// Status is the callback status; a status the spec does not list is
	// kept as sent (see [CallbackStatus.Known]), and so is an empty one.
	Status CallbackStatus
	// Reason may explain the status (extended form only).
	Reason string
	// Sandbox is true when the project is in sandbox mode.
	Sandbox bool
	// Attrs are the custom attributes given when the payment was created,
	// sent back as attr_<name>; the keys are the names without "attr_".
	Attrs map[string]string
	// Form is FormBasic when the callback carried neither type nor reason.
	Form Form
	// Stale is set by [CallbackHandler] when its store keeps order (a
	// [CallbackOrderStore]) and a later status of the same transaction was
	// processed before this callback arrived: a completed delivered after
	// the refund_completed of the same payment, for example. It is not
	// news: do not fulfil the order on a stale callback.
	Stale bool

	raw callbackFields
	// passed is set once CallbackHandler passed the callback to its
	// function: one it did not pass on was a duplicate.
	passed bool
}

// Values returns a copy of every field the callback carried, signature
// included, exactly as received.
func (c *Callback) Values() url.Values { return c.raw.values() }

// Value returns the raw value of the named field, or "" when it was not
// sent.
func (c *Callback) Value(name string) string { return c.raw.Get(name) }

// CallbackVerifier checks and parses the gateway's callbacks. It accepts a
// callback signed with any of its private keys, so that a key can be
// rotated without losing callbacks: list the new key and the old one until
// the gateway signs with the new key only. It is safe for concurrent use
// and never prints its keys.
type CallbackVerifier struct {
	signers []*signer // one per key, each reusing its HMAC state
}

// NewCallbackVerifier returns a verifier accepting callbacks signed with
// any of privateKeys (more than one during a key rotation; a slice, as
// NewCallbackHandler takes them). At least one key is required and none may
// be empty.
func NewCallbackVerifier(privateKeys []string) (*CallbackVerifier, error) {
	if len(privateKeys) == 0 {
		return nil, &ValidationError{Field: "private key", Reason: "at least one private key is required"}
	}
	for _, k := range privateKeys {
		if k == "" {
			return nil, &ValidationError{Field: "private key", Reason: "must not be empty"}
		}
	}
	v := &CallbackVerifier{}
	for _, k := range privateKeys {
		v.signers = append(v.signers, newSigner(k))
	}
	return v, nil
}

// ParseRequest reads, verifies and decodes a callback POST. It reads at
// most MaxCallbackBytes of the body (the query string plays no part),
// verifies the signature over every field but signature (empty ones
// included) before decoding anything, and returns the callback only when
// all of that succeeded. Behind middleware that already parsed the form
// (r.ParseForm, r.FormValue), the body is consumed: then the parsed
// r.PostForm is verified instead, under the same size limit.
//
// Errors match (errors.Is) [ErrCallbackMethod] for a method other than
// POST, [ErrCallbackTooLarge], [ErrSignatureMissing] for an empty body or
// one without a signature, [ErrSignatureInvalid] for a signature made with
// none of the keys or over other values, and [ErrCallbackMalformed] for a
// body that is not a form or a signed callback that cannot be read (see
// ParseValues).
func (v *CallbackVerifier) ParseRequest(r *http.Request) (*Callback, error) {
	if r.Method != http.MethodPost {
		return nil, fmt.Errorf("%w: got %s", ErrCallbackMethod, r.Method)
	}
	body, err := readCallbackBody(r)
	if err != nil {
		return nil, err
	}
	if len(body) == 0 && len(r.PostForm) > 0 {
		// Middleware (r.ParseForm, r.FormValue) read the body before us:
		// what it parsed is what was received.
		fields, err := postedForm(r.PostForm)
		if err != nil {
			return nil, err
		}
		return v.parseFields(fields)
	}
	if len(body) == 0 {
		return nil, fmt.Errorf("paygate: empty callback body: %w", ErrSignatureMissing)
	}
	fields, err := parseCallbackForm(body)
	if err != nil {
		// The error would quote part of the body; say only what is wrong.
		return nil, fmt.Errorf("%w: body is not a URL-encoded form", ErrCallbackMalformed)
	}
	return v.parseFields(fields)
}

// ParseValues verifies and decodes callback fields already parsed from a
// form. The signature is checked first; then a field sent more than once
// is rejected as malformed, because which of its values the gateway meant
// cannot be told from a signature over values alone. The id and the status
// must be present, and may be empty (the spec: "all parameters are present
// but may be empty"); the id and reference_id, when not empty, must be
// decimal integers; money, when not empty, must be a plain
// decimal (digits with an optional sign and fraction); sandbox must be "1",
// "0" or empty.
func (v *CallbackVerifier) ParseValues(values url.Values) (*Callback, error) {
	return v.parseFields(fieldsOf(values))
}

// parseFields verifies and decodes the fields of a callback.
func (v *CallbackVerifier) parseFields(fields callbackFields) (*Callback, error) {
	if err := v.verifyFields(fields); err != nil {
		return nil, err
	}
	return decodeCallback(fields)
}

// Verify checks the signature of callback fields against each private key
// in constant time. It returns nil, or an error matching
// [ErrSignatureMissing] or [ErrSignatureInvalid].
func (v *CallbackVerifier) Verify(values url.Values) error {
	return v.verifyFields(fieldsOf(values))
}

// verifyFields checks the first signature field against the other fields'
// values under each key. The values are sorted and joined once, whatever
// the number of keys.
func (v *CallbackVerifier) verifyFields(fields callbackFields) error {
	i := slices.IndexFunc(fields, func(f formField) bool { return f.name == SignatureParam })
	if i < 0 || fields[i].value == "" {
		return ErrSignatureMissing
	}
	if len(v.signers) == 0 {
		return ErrSignatureInvalid // a CallbackVerifier not made by NewCallbackVerifier
	}
	sent := fields[i].value
	var arr [stackValues]string
	values := appendSignedFields(arr[:0], fields)
	first := v.signers[0]
	st := first.get()
	defer first.put(st)
	msg := st.canonical(values)
	err := st.check(sent, msg)
	for _, s := range v.signers[1:] {
		if err == nil {
			break
		}
		other := s.get()
		err = other.check(sent, msg)
		s.put(other)
	}
	return err
}

// String describes the verifier without its keys.
func (v *CallbackVerifier) String() string {
	return fmt.Sprintf("paygate.CallbackVerifier{keys: %d}", len(v.signers))
}

// GoString is String, so that %#v never prints a private key.
func (v *CallbackVerifier) GoString() string { return v.String() }

// Format prints String for every verb, so that %v, %+v and %#v never print
// a private key.
func (v *CallbackVerifier) Format(f fmt.State, _ rune) { io.WriteString(f, v.String()) }

// LogValue logs the verifier without its keys.
func (v *CallbackVerifier) LogValue() slog.Value {
	return slog.GroupValue(slog.Int("keys", len(v.signers)))
}

// attrPrefix starts the names of custom attributes.
const attrPrefix = "attr_"

// postedForm returns the fields of a form that middleware already parsed
// from the body, held to the same size limit as a body read here.
func postedForm(form url.Values) (callbackFields, error) {
	size := 0
	for k, vs := range form {
		for _, v := range vs {
			size += len(k) + len(v) + 2 // "k=v&", before escaping
		}
	}
	if size > MaxCallbackBytes {
		return nil, ErrCallbackTooLarge
	}
	return fieldsOf(form), nil
}

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
	cbSandbox: "sandbox", cbSignature: SignatureParam,
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
	case SignatureParam:
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
		Type:     CallbackType(raw[cbType]),
		Status:   CallbackStatus(raw[cbStatus]),
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
	if !cardnum.Digits(s) {
		return 0, malformed(field, "must be a decimal transaction id")
	}
	id, err := ParseID(s)
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
	if !cardnum.Digits(whole) || (hasPoint && !cardnum.Digits(frac)) {
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
	return fmt.Errorf("%w: field %q %s", ErrCallbackMalformed, field, reason)
}
