package paygate

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/paygate/paygate-go/internal/cardnum"
)

// sentSecrets are the values a card-bearing request sent (card number,
// security code, expiry, token, payout account, and everything sent beside
// them but the few that identify the request). An answer that echoes the
// request, from a proxy, a firewall or a misconfigured gateway, must not
// carry them into an error: merchants log errors, and a log line is no
// place for card data (PCI DSS 3.3). nil for a request that carried no card
// data.
type sentSecrets []secret

// secret is one value to mask; card tells a value of a card parameter,
// masked however short it is.
type secret struct {
	value string
	card  bool
}

// shownKeys are the parameters that identify a request and carry nothing
// personal: they stay readable in errors, so that an unknown outcome can be
// looked up by the order id it names.
var shownKeys = map[string]bool{
	"project": true, "order_id": true, "orderId": true, "price": true, "amount": true,
	"currency": true, "signature": true,
}

// cardKeys are the parameters that carry card data, a card token or a
// payout account, at the top level or (card[...]) inside a card object.
var cardKeys = map[string]bool{
	"number": true, "security_code": true, "expiration_month": true, "expiration_year": true, "holder": true,
	"card_token": true, "cardToken": true, "account": true, "cardExpirationDate": true, "cardHolder": true,
	"remitterCardNumber": true, "remitterCardToken": true,
	"remitterCardExpirationMonth": true, "remitterCardExpirationYear": true,
	"PaRes": true, "MD": true,
}

func isCardKey(k string) bool { return cardKeys[k] || strings.HasPrefix(k, "card[") }

// isYearKey tells the parameters that carry a card's expiry year.
func isYearKey(k string) bool {
	return k == "expiration_year" || k == "card[expiration_year]" || k == "remitterCardExpirationYear"
}

// secretsOf returns the values to mask of an encoded request that carries
// card data, or nil: every non-empty value but those of shownKeys, not only
// the card's, because what else a payout or a charge carries (documents,
// names, addresses, the payer's e-mail) is no better in a log. It reads
// the encoded body (or query) again, on the error path only, so that a
// call that succeeds pays nothing for it.
//
// everySent (raw calls) masks every value whether or not one is card data.
func secretsOf(encoded []byte, everySent bool) sentSecrets {
	values, _ := url.ParseQuery(string(encoded))
	var out sentSecrets
	card := everySent
	for k, vs := range values {
		for _, v := range vs {
			if v == "" || shownKeys[k] {
				continue
			}
			card = card || isCardKey(k)
			out = append(out, secret{value: v, card: isCardKey(k)})
			if isYearKey(k) && len(v) == 4 && cardnum.Digits(v) {
				// An answer may quote the year as on the card: 2031 as 31.
				out = append(out, secret{value: v[2:], card: true})
			}
		}
	}
	if !card {
		return nil
	}
	return out
}

// sentSecrets are the values to mask in an error of a request to e that
// sent encoded: those of secretsOf, and for a raw call the parts of its
// path that shownPath leaves out.
func (e endpoint) sentSecrets(encoded []byte) sentSecrets {
	s := secretsOf(encoded, e.raw)
	if !e.raw || e.shownPath() == e.path {
		return s
	}
	// The whole path, where an answer or a transport error quotes it, and
	// each of its segments but the plain words (names such as "users" or
	// "cards", kept so that a message naming them stays readable): an id,
	// an e-mail address, a card number.
	s = append(s, secret{value: e.path, card: true})
	for _, seg := range strings.Split(e.path, "/") {
		if strings.Trim(seg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_") != "" {
			s = append(s, secret{value: seg, card: true})
		}
	}
	return s
}

// credentials are the base URL's password and the basic authentication
// header made of it, masked in a transport error however the transport
// quoted the request; nil without credentials.
func (c *Client) credentials() sentSecrets {
	if c.baseUser == nil {
		return nil
	}
	pass, _ := c.baseUser.Password()
	s := sentSecrets{{value: base64.StdEncoding.EncodeToString([]byte(c.baseUser.Username() + ":" + pass)), card: true}}
	if pass != "" { // an empty value would mask between every byte
		s = append(s, secret{value: pass, card: true})
	}
	return s
}

// errBodyWithheld is the description of an answer without a gateway error
// object to a card-bearing request or a raw call: its body is left out of
// the error, as it may echo the request.
const errBodyWithheld = "body withheld: it may echo what the request sent"

// scrub makes err safe to log for a request that sent s: an *Error loses
// its body excerpt and has every sent value masked in its message; any
// other error is wrapped so that its text has every sent value masked
// (errors.Is and errors.As still see the original).
func (s sentSecrets) scrub(err error) error {
	if err == nil || len(s) == 0 {
		return err
	}
	switch e := err.(type) {
	case *Error:
		e.Body = ""
		if e.Code == 0 {
			e.Message = errBodyWithheld
		} else {
			e.Message = s.mask(e.Message)
		}
		return e
	case *ResponseError:
		e.Err = &scrubbedError{err: e.Err, sent: s}
		return e
	}
	return &scrubbedError{err: err, sent: s}
}

// mask replaces every occurrence of a sent value in text with "***": a
// value of digits wherever it stands as a whole run of digits (leading
// zeros aside, so that month 7 also hides "07", and a four-digit expiry
// year also hides its last two digits, see secretsOf), any other value
// wherever it appears in any letter case (a gateway may quote the holder
// in capitals), raw or URL-encoded. Values of fewer than four bytes (a flag,
// a small user id) are masked only when they are card data (a security
// code, an expiry month), which keeps "/v1/" readable.
//
// The other values go first: replacing one can split a run of digits
// ("01a" less "1a" leaves "0"), and a run split after the digit values
// were masked would show one of them.
func (s sentSecrets) mask(text string) string {
	var digits []string
	for _, sec := range s {
		v := sec.value
		if v == "" || (len(v) < 4 && !sec.card) {
			continue // an empty value would mask between every byte
		}
		if cardnum.Digits(v) {
			digits = append(digits, v)
			continue
		}
		text = replaceFold(text, v)
		if q := url.QueryEscape(v); q != v {
			text = replaceFold(text, q)
		}
	}
	for _, v := range digits {
		text = maskDigitRun(text, v)
	}
	return text
}

// replaceFold replaces every occurrence of v in text, in any letter case,
// with "***". It compiles a pattern per value, which is only paid on the
// error path. A value that is not valid UTF-8 cannot be a pattern; it is
// replaced as it is.
func replaceFold(text, v string) string {
	if !utf8.ValidString(v) {
		return strings.ReplaceAll(text, v, "***")
	}
	return regexp.MustCompile("(?i)"+regexp.QuoteMeta(v)).ReplaceAllLiteralString(text, "***")
}

// maskDigitRun replaces each run of digits in text that equals v, leading
// zeros aside, with "***".
func maskDigitRun(text, v string) string {
	want := strings.TrimLeft(v, "0")
	var b strings.Builder
	for i := 0; i < len(text); {
		if !isASCIIDigit(text[i]) {
			j := i
			for j < len(text) && !isASCIIDigit(text[j]) {
				j++
			}
			b.WriteString(text[i:j])
			i = j
			continue
		}
		j := i
		for j < len(text) && isASCIIDigit(text[j]) {
			j++
		}
		if run := text[i:j]; strings.TrimLeft(run, "0") == want {
			b.WriteString("***")
		} else {
			b.WriteString(run)
		}
		i = j
	}
	return b.String()
}

func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }
