package paygate

import (
	"strconv"

	"github.com/paygate/paygate-go/internal/formenc"
	"github.com/paygate/paygate-go/internal/redact"
)

// leaf is the one implementation of the leaf types below: it keeps a
// value behind a pointer, because fmt and slog walk the unexported fields
// of a merchant's struct by reflection without calling their methods, and
// print a pointer to a string or a number found there as its address,
// never what it points to. T is held to a string or a number: behind a
// pointer, fmt does print a struct, an array, a slice or a map when it
// reports a wrong verb (%d of a struct holding one).
// Everywhere else (an exported field, a value of its own) the methods
// below print M's mask. The zero value means "not given".
type leaf[T string | int, M masker[T]] struct{ p *T }

// masker says how a kind of secret prints: its mask and its type's name.
type masker[T any] interface {
	mask(T) string
	typeName() string
}

func newLeaf[T string | int, M masker[T]](v T) leaf[T, M] { return leaf[T, M]{&v} }

// String returns the masked value, or "" when none is given, so that a
// missing field stays told apart.
func (s leaf[T, M]) String() string {
	if s.p == nil {
		return ""
	}
	var m M
	return m.mask(*s.p)
}

// GoString returns the masked value as Go syntax, so that %#v stays
// masked.
func (s leaf[T, M]) GoString() string {
	var m M
	return "paygate." + m.typeName() + "(" + strconv.Quote(s.String()) + ")"
}

// MarshalText returns the masked value, so that encoding/json, slog's
// handlers and other encoders never write the value itself.
func (s leaf[T, M]) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// IsZero reports whether no value is given.
func (s leaf[T, M]) IsZero() bool { return s.p == nil }

// get returns the value, or T's zero value when none is given.
func (s leaf[T, M]) get() (v T) {
	if s.p != nil {
		v = *s.p
	}
	return v
}

// text is a leaf that holds text.
type text[M masker[string]] struct{ leaf[string, M] }

// newText makes a text leaf; "" gives the zero value: not given.
func newText[M masker[string]](s string) text[M] {
	if s == "" {
		return text[M]{}
	}
	return text[M]{newLeaf[string, M](s)}
}

// Reveal returns the value itself, "" when none is given: for the code
// that needs it (a sandbox, a vault), never for printing.
func (t text[M]) Reveal() string { return t.get() }

// Masks for the secrets: a card number and an account keep their last four
// characters (redact.CardNumber), the others show nothing.
const (
	maskMonth = "**"
	maskYear  = "****"
	maskDate  = "**/**"
	// maskSecret stands for a security code, a token, PaRes or MD.
	maskSecret = "***"
)

type (
	numberMask  struct{}
	accountMask struct{}
	codeMask    struct{}
	expiryMask  struct{}
	tokenMask   struct{}
	acsMask     struct{}
)

func (numberMask) mask(s string) string  { return redact.CardNumber(s) }
func (numberMask) typeName() string      { return "CardNumber" }
func (accountMask) mask(s string) string { return redact.CardNumber(s) }
func (accountMask) typeName() string     { return "AccountNumber" }
func (codeMask) mask(string) string      { return maskSecret }
func (codeMask) typeName() string        { return "SecurityCode" }
func (expiryMask) mask(int) string       { return maskMonth + "/" + maskYear }
func (expiryMask) typeName() string      { return "Expiry" }
func (tokenMask) mask(string) string     { return maskSecret }
func (tokenMask) typeName() string       { return "CardToken" }
func (acsMask) mask(string) string       { return maskSecret }
func (acsMask) typeName() string         { return "ACSData" }

// CardNumber is a full card number (PAN) as the payer typed it, digits
// only; make one with NewCardNumber. It is sent to the gateway as it is,
// but every way of printing it (String, %v, %+v, %#v, %s, %q, %x, slog,
// JSON) shows at most its last four digits, and from an unexported field of
// a struct only an address.
type CardNumber struct{ text[numberMask] }

// NewCardNumber returns the card number digits; "" gives the zero value,
// no number.
func NewCardNumber(digits string) CardNumber { return CardNumber{newText[numberMask](digits)} }

// AccountNumber is a payout account: a card number, an IBAN, a wallet
// number; make one with NewAccountNumber. It may be a full card number, so
// it prints like CardNumber, showing only its last four characters.
type AccountNumber struct{ text[accountMask] }

// NewAccountNumber returns the account; "" gives the zero value, no
// account.
func NewAccountNumber(account string) AccountNumber {
	return AccountNumber{newText[accountMask](account)}
}

// SecurityCode is a card security code (CVC, CVV2): three or four digits;
// make one with NewSecurityCode. It is sent to the gateway as it is, but
// never printed: every way of printing it shows "***".
type SecurityCode struct{ text[codeMask] }

// NewSecurityCode returns the code; "" gives the zero value, no code.
func NewSecurityCode(digits string) SecurityCode { return SecurityCode{newText[codeMask](digits)} }

// Expiry is a card's expiry date; make one with NewExpiry. It is sent as
// its month and its four-digit year, and printed as "**/****".
type Expiry struct{ leaf[int, expiryMask] }

// NewExpiry returns the expiry month (1 to 12) of year (four digits), as
// in NewExpiry(12, 2030). Validation, not NewExpiry, checks them.
//
// The date is kept as one number, year*100+month: fmt, reporting a wrong
// verb, prints what a pointer to a struct points to even inside a struct,
// but never what a pointer to a number does. A month outside 0..99 or a
// negative year is kept as 0, which validation refuses as it would have.
func NewExpiry(month, year int) Expiry {
	if month < 0 || month > 99 {
		month = 0
	}
	return Expiry{newLeaf[int, expiryMask](max(year, 0)*100 + month)}
}

// Month returns the expiry month, 0 when no expiry is given.
func (e Expiry) Month() int { return e.get() % 100 }

// Year returns the expiry year, 0 when no expiry is given.
func (e Expiry) Year() int { return e.get() / 100 }

// CardToken is a card token: a temporary one from Tokenize or a permanent
// one from a charge with Remember; make one with NewCardToken. It is sent
// as it is and printed as "***".
type CardToken struct{ text[tokenMask] }

// NewCardToken returns the token; "" gives the zero value, no token.
func NewCardToken(token string) CardToken { return CardToken{newText[tokenMask](token)} }

// ACSData is PaRes or MD, what the access control server sends back after
// 3-D Secure; ReadACSReturn makes them, NewACSData too. It is sent as it is
// and printed as "***".
type ACSData struct{ text[acsMask] }

// NewACSData returns the value; "" gives the zero value, none.
func NewACSData(value string) ACSData { return ACSData{newText[acsMask](value)} }

// init lets the form encoder send the values the leaf types keep: as text
// under the field's key, and an expiry as expiration_month and
// expiration_year beside the other fields of its card.
func init() {
	registerText[CardNumber](func(n CardNumber) string { return n.get() })
	registerText[AccountNumber](func(a AccountNumber) string { return a.get() })
	registerText[SecurityCode](func(c SecurityCode) string { return c.get() })
	registerText[CardToken](func(t CardToken) string { return t.get() })
	registerText[ACSData](func(d ACSData) string { return d.get() })
	formenc.Register(func(dst formenc.Pairs, _ string, name func(string) string, e Expiry) formenc.Pairs {
		if e.IsZero() {
			return dst
		}
		return append(dst,
			formenc.Pair{Key: name("expiration_month"), Value: strconv.Itoa(e.Month())},
			formenc.Pair{Key: name("expiration_year"), Value: strconv.Itoa(e.Year())})
	})
}

// registerText sends a text leaf under its field's key, and nothing when
// it is not given.
func registerText[T any](get func(T) string) {
	formenc.Register(func(dst formenc.Pairs, key string, _ func(string) string, v T) formenc.Pairs {
		if s := get(v); s != "" {
			dst = append(dst, formenc.Pair{Key: key, Value: s})
		}
		return dst
	})
}

// CardDetails is a card as the payer entered it, for a charge without a
// token (extended form only). Its secrets are leaf types, so printing,
// logging or JSON-encoding it never shows more than the last four digits
// of the number, and never the security code or the expiry.
type CardDetails struct {
	// Number is the card number, digits only. Required.
	Number CardNumber `url:"number"`
	// Expiry is the expiry month and four-digit year, sent as
	// expiration_month and expiration_year. Required.
	Expiry Expiry `url:"expiration"`
	// SecurityCode is the CVC or CVV2. Required.
	SecurityCode SecurityCode `url:"security_code"`
	// Holder is the cardholder's name, at most 21 characters.
	Holder string `url:"holder,omitempty"`
}

// TokenizeParams are the card data to exchange for a temporary token (GET
// card/getToken). Printing or logging them never shows more than the last
// four digits of the number, and never the security code or the expiry.
type TokenizeParams struct {
	// Number is the card number, digits only. Required.
	Number CardNumber `url:"number"`
	// Expiry is the expiry month and four-digit year, sent as
	// expiration_month and expiration_year. Required.
	Expiry Expiry `url:"expiration"`
	// SecurityCode is the CVC or CVV2. Required.
	SecurityCode SecurityCode `url:"security_code"`
}

// masked returns mask in place of a value that is set and "" for one that
// is not, so that printed parameters still tell a missing field apart.
func masked(set bool, mask string) string {
	if !set {
		return ""
	}
	return mask
}
