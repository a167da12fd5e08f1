package paygate

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/paygate/paygate-go/internal/ascii"
)

// sentSecrets are the values a card-bearing request sent (card number,
// security code, expiry, token, payout account, and everything sent beside
// them but the few that identify the request). An answer that echoes the
// request, from a proxy, a firewall or a misconfigured gateway, must not
// carry them into an error: merchants log errors, and a log line is no
// place for card data (PCI DSS 3.3). nil for a request that carried no card
// data.
type sentSecrets []secret

// secret is one value to mask; card tells a value masked however short it
// is: a card parameter's, or any value of a raw call (Client.Call), whose
// security codes and PINs the SDK cannot tell apart.
type secret struct {
	value string
	card  bool
}

// shownKeys are the parameters that identify a request and carry nothing
// personal: they stay readable in errors, so that an unknown outcome can be
// looked up by the order id or transaction id it names. They are the same
// for a raw call, whose doc comment (Client.Call) lists them.
var shownKeys = map[string]bool{
	"project": true, "order_id": true, "orderId": true, "id": true, "price": true, "amount": true,
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

// isYearKey tells the parameters that may carry a card's expiry year: the
// typed calls' expiration_year, card[expiration_year] and
// remitterCardExpirationYear, and a raw call's exp_year or YEAR alike.
func isYearKey(k string) bool { return keyWord(k, "year") >= 0 }

// yearKeyOf returns the key of the year sent beside month key k
// ("card[expiration_month]" gives "card[expiration_year]",
// "remitterCardExpirationMonth" "remitterCardExpirationYear"), or "" when
// k names no month.
func yearKeyOf(k string) string {
	i := keyWord(k, "month")
	if i < 0 {
		return ""
	}
	year := "year"
	switch k[i : i+len("month")] {
	case "Month":
		year = "Year"
	case "MONTH":
		year = "YEAR"
	}
	return k[:i] + year + k[i+len("month"):]
}

// keyWord returns where key holds word (lower case) in lower case, title
// case or upper case, or -1.
func keyWord(key, word string) int {
	for _, w := range []string{word, strings.ToUpper(word[:1]) + word[1:], strings.ToUpper(word)} {
		if i := strings.Index(key, w); i >= 0 {
			return i
		}
	}
	return -1
}

// expiryForms are the ways an answer may write an expiry of month and year
// as one number: MMYY, YYMM and, for a four-digit year, MMYYYY and YYYYMM
// ("1230", "3012", "122030", "203012" for 12 and 2030). None when month
// is not a month or year not a year of two or four digits.
func expiryForms(month, year string) []string {
	m, err := strconv.Atoi(month)
	if err != nil || len(month) > 2 || !ascii.Digits(month) || m < 1 || m > 12 ||
		!ascii.Digits(year) || (len(year) != 2 && len(year) != 4) {
		return nil
	}
	mm, yy := fmt.Sprintf("%02d", m), year[len(year)-2:]
	forms := []string{mm + yy, yy + mm}
	if len(year) == 4 {
		forms = append(forms, mm+year, year+mm)
	}
	return forms
}

// secretsOf returns the values to mask of an encoded request that carries
// card data, or nil: every non-empty value but those of shownKeys, not only
// the card's, because what else a payout or a charge carries (documents,
// names, addresses, the payer's e-mail) is no better in a log. It reads
// the encoded body (or query) again, on the error path only, so that a
// call that succeeds pays nothing for it.
//
// everySent (raw calls) masks every value whether or not one is card data,
// however short it is.
func secretsOf(encoded []byte, everySent bool) sentSecrets {
	values, _ := url.ParseQuery(string(encoded))
	var out sentSecrets
	card := everySent
	for k, vs := range values {
		if shownKeys[k] {
			continue
		}
		for _, v := range vs {
			if v == "" {
				continue
			}
			card = card || isCardKey(k)
			out = append(out, secret{value: v, card: everySent || isCardKey(k)})
			if isYearKey(k) && len(v) == 4 && ascii.Digits(v) {
				// An answer may quote the year as on the card: 2031 as 31.
				out = append(out, secret{value: v[2:], card: true})
			}
			if m, y, ok := strings.Cut(v, "/"); ok {
				// An expiry sent as one value (a payout's 11/31).
				out = appendExpiryForms(out, m, y)
			}
		}
		if yk := yearKeyOf(k); yk != "" {
			out = appendExpiryForms(out, values.Get(k), values.Get(yk))
		}
	}
	if !card {
		return nil
	}
	return out
}

// appendExpiryForms appends the expiryForms of month and year to s.
func appendExpiryForms(s sentSecrets, month, year string) sentSecrets {
	for _, f := range expiryForms(month, year) {
		s = append(s, secret{value: f, card: true})
	}
	return s
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

// mask replaces every occurrence of a sent value in text with "***", as
// an answer may have reformatted it: a value of digits wherever it stands
// as a whole run of digits (leading zeros aside, so that month 7 also
// hides "07", and a four-digit expiry year also hides its last two digits,
// see secretsOf) or as runs joined by spaces or dashes (a card number in
// groups), any other value as echoPattern finds it (in any letter case,
// with other spacing, URL-encoded, HTML-escaped, JSON-escaped). Values of
// fewer than four bytes (a flag, a small user id) are masked only when
// they are card data (a security code, an expiry month) or a raw call's,
// and then, unless they are digits, only where they stand alone, not
// inside a longer word: that keeps "/v1/" and the rest of the text
// readable.
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
		if ascii.Digits(v) {
			digits = append(digits, v)
			continue
		}
		text = maskEchoes(text, v)
		if d := groupSeparators.Replace(v); ascii.Digits(d) {
			// A number sent in groups may come back without them.
			digits = append(digits, d)
		}
	}
	return maskDigitRuns(text, digits)
}

// groupSeparators removes what may stand between the groups of digits of
// a card number: spaces and dashes.
var groupSeparators = strings.NewReplacer(" ", "", "-", "")

// maskEchoes replaces every match of v's echoPattern in text with "***"; a
// value of fewer than four bytes only where it stands alone (see mask). A
// value that is not valid UTF-8 cannot be a pattern: it is replaced as it
// is and URL-encoded.
func maskEchoes(text, v string) string {
	re := echoPattern(v)
	if re == nil {
		return strings.ReplaceAll(strings.ReplaceAll(text, v, "***"), url.QueryEscape(v), "***")
	}
	alone := len(v) < 4
	var b strings.Builder
	last := 0
	for pos := 0; pos < len(text); {
		loc := re.FindStringIndex(text[pos:])
		if loc == nil || loc[1] == loc[0] {
			break
		}
		start, end := pos+loc[0], pos+loc[1]
		if alone && !standsAlone(text, start, end) {
			_, size := utf8.DecodeRuneInString(text[start:])
			pos = start + size
			continue
		}
		b.WriteString(text[last:start])
		b.WriteString("***")
		last, pos = end, end
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// standsAlone reports whether text[start:end] is not part of a longer run
// of letters and digits.
func standsAlone(text string, start, end int) bool {
	first, _ := utf8.DecodeRuneInString(text[start:end])
	lastR, _ := utf8.DecodeLastRuneInString(text[start:end])
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	return !(isWordRune(first) && start > 0 && isWordRune(before)) &&
		!(isWordRune(lastR) && end < len(text) && isWordRune(after))
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// htmlNames are the named HTML character references an echo may use.
var htmlNames = map[rune]string{'&': "amp", '<': "lt", '>': "gt", '"': "quot", '\'': "apos", '\u00a0': "nbsp"}

// echoPattern matches v as an answer may quote it: in any letter case (a
// gateway may print the holder in capitals); each run of white space as
// one or more spaces, "+", "%20" or a character reference (form-encoded,
// URL-encoded, HTML); each other character but ASCII letters and digits
// as itself, percent-encoded (%27), as an HTML character reference (&#39;,
// &#x27;, &apos;) or as a JSON escape (\u0027). It compiles a pattern per
// value, which is only paid on the error path. nil when v is not valid
// UTF-8 (no pattern can match its bytes) or too long to compile.
func echoPattern(v string) *regexp.Regexp {
	if !utf8.ValidString(v) {
		return nil
	}
	var b strings.Builder
	b.WriteString("(?i)")
	space := false
	for _, r := range v {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteString(`(?:[\s\v\x{85}\p{Z}]|\+|%20|%A0|%C2%A0|&nbsp;|&#0*32;|&#0*160;|&#x0*20;|&#x0*A0;|\\u0020|\\u00A0)+`)
			}
			space = true
			continue
		}
		space = false
		if r < utf8.RuneSelf && (isASCIIDigit(byte(r)) || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			b.WriteRune(r)
			continue
		}
		b.WriteString("(?:" + regexp.QuoteMeta(string(r)) + "|")
		for _, c := range []byte(string(r)) {
			fmt.Fprintf(&b, "%%%02X", c)
		}
		fmt.Fprintf(&b, "|&#0*%d;|&#x0*%X;", r, r)
		if r <= 0xFFFF {
			fmt.Fprintf(&b, `|\\u%04X`, r)
		}
		if name, ok := htmlNames[r]; ok {
			b.WriteString("|&" + name + ";")
		}
		b.WriteString(")")
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil
	}
	return re
}

// maxGroupedDigits bounds the values maskDigitRuns looks for in groups: a
// card number has at most 19 digits. It keeps the search linear in the
// text whatever else a raw call sent.
const maxGroupedDigits = 32

// maskDigitRuns replaces with "***" each run of digits in text that equals
// one of values, leading zeros aside, and each sequence of runs joined by
// up to three spaces or dashes whose digits together are one of them: a
// card number in groups ("4242 4242 4242 4242", "4242-4242-4242-4242").
func maskDigitRuns(text string, values []string) string {
	if len(values) == 0 {
		return text
	}
	want := make(map[string]bool, len(values))    // leading zeros aside
	grouped := make(map[string]bool, len(values)) // as sent
	longest := 0
	for _, v := range values {
		want[strings.TrimLeft(v, "0")] = true
		if len(v) <= maxGroupedDigits {
			grouped[v] = true
			longest = max(longest, len(v))
		}
	}
	type run struct{ start, end int }
	var runs []run
	for i := 0; i < len(text); {
		if !isASCIIDigit(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isASCIIDigit(text[j]) {
			j++
		}
		runs = append(runs, run{i, j})
		i = j
	}
	// masked[k]: run k is masked; joined[k]: with run k+1, as one.
	masked, joined := make([]bool, len(runs)), make([]bool, len(runs))
	any := false
	var digits []byte
	for k, r := range runs {
		if want[strings.TrimLeft(text[r.start:r.end], "0")] {
			masked[k], any = true, true
		}
		digits = append(digits[:0], text[r.start:r.end]...)
		for j := k + 1; j < len(runs) && isGroupSeparator(text[runs[j-1].end:runs[j].start]); j++ {
			if digits = append(digits, text[runs[j].start:runs[j].end]...); len(digits) > longest {
				break
			}
			if grouped[string(digits)] {
				for m := k; m <= j; m++ {
					masked[m], joined[m] = true, m < j || joined[m]
				}
				any = true
			}
		}
	}
	if !any {
		return text
	}
	var b strings.Builder
	last := 0
	for k := 0; k < len(runs); k++ {
		if !masked[k] {
			continue
		}
		b.WriteString(text[last:runs[k].start])
		b.WriteString("***")
		for joined[k] {
			k++
		}
		last = runs[k].end
	}
	b.WriteString(text[last:])
	return b.String()
}

// isGroupSeparator reports whether sep may stand between two groups of a
// card number's digits: one to three spaces or dashes.
func isGroupSeparator(sep string) bool {
	return len(sep) >= 1 && len(sep) <= 3 && strings.Trim(sep, " -") == ""
}

func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }
