package paygate

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/paygate/paygate-go/internal/redact"
)

// CardNumber is a full card number (PAN) as the payer typed it, digits
// only. It is sent to the gateway as it is, but every way of printing it
// (String, %v, %+v, %#v, %s, %q, %x, slog, JSON) shows at most its last four
// digits.
type CardNumber string

// String returns the number masked except for its last four digits.
func (n CardNumber) String() string { return redact.CardNumber(string(n)) }

// GoString returns the masked number as Go syntax, so that %#v stays
// redacted.
func (n CardNumber) GoString() string { return "paygate.CardNumber(" + strconv.Quote(n.String()) + ")" }

// Format prints the masked number for every verb.
func (n CardNumber) Format(f fmt.State, verb rune) { formatRedacted(f, verb, n.String(), n.GoString()) }

// LogValue logs the masked number.
func (n CardNumber) LogValue() slog.Value { return slog.StringValue(n.String()) }

// MarshalText returns the masked number, so that encoding/json and other
// encoders never write the full number.
func (n CardNumber) MarshalText() ([]byte, error) { return []byte(n.String()), nil }

// AccountNumber is a payout account: a card number, an IBAN, a wallet
// number. It may be a full card number, so it redacts itself like
// CardNumber, showing only its last four characters.
type AccountNumber string

// String returns the account with all but its last four characters masked.
func (a AccountNumber) String() string { return redact.CardNumber(string(a)) }

// GoString returns the masked account as Go syntax.
func (a AccountNumber) GoString() string {
	return "paygate.AccountNumber(" + strconv.Quote(a.String()) + ")"
}

// Format prints the masked account for every verb.
func (a AccountNumber) Format(f fmt.State, verb rune) {
	formatRedacted(f, verb, a.String(), a.GoString())
}

// LogValue logs the masked account.
func (a AccountNumber) LogValue() slog.Value { return slog.StringValue(a.String()) }

// MarshalText returns the masked account.
func (a AccountNumber) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// SecurityCode is a card security code (CVC, CVV2): three or four digits.
// It is sent to the gateway as it is, but never printed: every way of
// printing it shows "***".
type SecurityCode string

// String returns "***", or "" when no code is set.
func (c SecurityCode) String() string { return masked(c != "", maskSecret) }

// GoString returns the redacted code as Go syntax.
func (c SecurityCode) GoString() string {
	return "paygate.SecurityCode(" + strconv.Quote(c.String()) + ")"
}

// Format prints the redacted code for every verb.
func (c SecurityCode) Format(f fmt.State, verb rune) {
	formatRedacted(f, verb, c.String(), c.GoString())
}

// LogValue logs the redacted code.
func (c SecurityCode) LogValue() slog.Value { return slog.StringValue(c.String()) }

// MarshalText returns the redacted code.
func (c SecurityCode) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// CardDetails is a card as the payer entered it, for a charge without a
// token (extended form only). Printing, logging or JSON-encoding it never
// shows more than the last four digits of the number, and never the
// security code or the expiry.
type CardDetails struct {
	// Number is the card number, digits only. Required.
	Number CardNumber `url:"number"`
	// ExpirationMonth is 1 to 12. Required.
	ExpirationMonth int `url:"expiration_month"`
	// ExpirationYear has four digits. Required.
	ExpirationYear int `url:"expiration_year"`
	// SecurityCode is the CVC or CVV2. Required.
	SecurityCode SecurityCode `url:"security_code"`
	// Holder is the cardholder's name, at most 21 characters.
	Holder string `url:"holder,omitempty"`
}

// String describes the card with its number masked and without its
// security code or expiry.
func (d CardDetails) String() string {
	return describeCard("CardDetails", d.Number, d.ExpirationMonth, d.ExpirationYear, d.SecurityCode, &d.Holder, false)
}

// GoString is String as Go syntax.
func (d CardDetails) GoString() string {
	return describeCard("CardDetails", d.Number, d.ExpirationMonth, d.ExpirationYear, d.SecurityCode, &d.Holder, true)
}

// Format prints the redacted description for every verb.
func (d CardDetails) Format(f fmt.State, verb rune) {
	formatRedacted(f, verb, d.String(), d.GoString())
}

// LogValue logs the card with its number masked and without its security
// code or expiry.
func (d CardDetails) LogValue() slog.Value {
	return slog.GroupValue(append(cardAttrs(d.Number, d.ExpirationMonth, d.ExpirationYear, d.SecurityCode),
		slog.String("holder", d.Holder))...)
}

// MarshalJSON writes the card with its number masked and without its
// security code or expiry.
func (d CardDetails) MarshalJSON() ([]byte, error) {
	return cardJSON(d.Number, d.ExpirationMonth, d.ExpirationYear, d.SecurityCode, &d.Holder)
}

// TokenizeParams are the card data to exchange for a temporary token (GET
// card/getToken). Printing or logging them never shows more than the last
// four digits of the number, and never the security code or the expiry.
type TokenizeParams struct {
	// Number is the card number, digits only. Required.
	Number CardNumber `url:"number"`
	// ExpirationMonth is 1 to 12. Required.
	ExpirationMonth int `url:"expiration_month"`
	// ExpirationYear has four digits. Required.
	ExpirationYear int `url:"expiration_year"`
	// SecurityCode is the CVC or CVV2. Required.
	SecurityCode SecurityCode `url:"security_code"`
}

// String describes the card data with the number masked and without the
// security code or expiry.
func (p TokenizeParams) String() string {
	return describeCard("TokenizeParams", p.Number, p.ExpirationMonth, p.ExpirationYear, p.SecurityCode, nil, false)
}

// GoString is String as Go syntax.
func (p TokenizeParams) GoString() string {
	return describeCard("TokenizeParams", p.Number, p.ExpirationMonth, p.ExpirationYear, p.SecurityCode, nil, true)
}

// Format prints the redacted description for every verb.
func (p TokenizeParams) Format(f fmt.State, verb rune) {
	formatRedacted(f, verb, p.String(), p.GoString())
}

// LogValue logs the card data with the number masked and without the
// security code or expiry.
func (p TokenizeParams) LogValue() slog.Value {
	return slog.GroupValue(cardAttrs(p.Number, p.ExpirationMonth, p.ExpirationYear, p.SecurityCode)...)
}

// MarshalJSON writes the card data with the number masked and without the
// security code or expiry.
func (p TokenizeParams) MarshalJSON() ([]byte, error) {
	return cardJSON(p.Number, p.ExpirationMonth, p.ExpirationYear, p.SecurityCode, nil)
}

// Masks for the expiry: a month, a year, a MM/YY date.
const (
	maskMonth = "**"
	maskYear  = "****"
	maskDate  = "**/**"
	// maskSecret stands for a security code, a token, PaRes or MD.
	maskSecret = "***"
)

// masked returns mask in place of a value that is set and "" for one that
// is not, so that printed parameters still tell a missing field apart.
func masked(set bool, mask string) string {
	if !set {
		return ""
	}
	return mask
}

// expiry is an expiry as it is printed: masked.
type expiry struct{ month, year string }

func maskedExpiry(month, year int) expiry {
	return expiry{masked(month != 0, maskMonth), masked(year != 0, maskYear)}
}

// formatRedacted prints s (gs for %#v), already redacted, honouring the
// verb's flags and width, so that no verb reaches the raw value.
func formatRedacted(f fmt.State, verb rune, s, gs string) {
	if verb == 'v' && f.Flag('#') {
		io.WriteString(f, gs)
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), s)
}

func describeCard(typ string, number CardNumber, month, year int, code SecurityCode, holder *string, goSyntax bool) string {
	exp := maskedExpiry(month, year)
	var b strings.Builder
	if goSyntax {
		b.WriteString("paygate." + typ + "{Number:" + strconv.Quote(number.String()) +
			", ExpirationMonth:" + strconv.Quote(exp.month) + ", ExpirationYear:" + strconv.Quote(exp.year) +
			", SecurityCode:" + strconv.Quote(code.String()))
		if holder != nil {
			b.WriteString(", Holder:" + strconv.Quote(*holder))
		}
	} else {
		b.WriteString("{Number:" + number.String() + " ExpirationMonth:" + exp.month +
			" ExpirationYear:" + exp.year + " SecurityCode:" + code.String())
		if holder != nil {
			b.WriteString(" Holder:" + *holder)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// cardJSON writes card data as describeCard prints it. Listing the fields
// rather than embedding the card type keeps a field added to it later out
// of JSON until it is added here.
func cardJSON(number CardNumber, month, year int, code SecurityCode, holder *string) ([]byte, error) {
	exp := maskedExpiry(month, year)
	return json.Marshal(struct {
		Number          CardNumber
		ExpirationMonth string
		ExpirationYear  string
		SecurityCode    SecurityCode
		Holder          *string `json:",omitempty"`
	}{number, exp.month, exp.year, code, holder})
}

func cardAttrs(number CardNumber, month, year int, code SecurityCode) []slog.Attr {
	exp := maskedExpiry(month, year)
	return []slog.Attr{
		slog.String("number", number.String()),
		slog.String("expiration_month", exp.month),
		slog.String("expiration_year", exp.year),
		slog.String("security_code", code.String()),
	}
}
