package paygatetest

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/internal/ascii"
	"github.com/paygate/paygate-go/internal/cardnum"
	"github.com/paygate/paygate-go/internal/jsonscalar"
)

// Bounds of what a request may carry. They are applied while the request is
// read, before any value is parsed or the server's lock is taken: a reader
// stops at the first byte past a bound, so that refusing a hostile request
// costs no more than reading its first few kilobytes. No parameter of the
// API comes near them.
const (
	maxParams      = 256     // parameters per request; in a JSON body every value, objects and arrays included
	maxParamLength = 4 << 10 // bytes of one value
	maxKeyLength   = 256     // bytes of one name, brackets included
	maxJSONDepth   = 8       // nesting of a JSON body's objects and arrays
	maxHeaderBytes = 1 << 20 // request line and headers: a huge query string is answered 40000, not 431
	readBuffer     = 4 << 10 // bytes a body is read ahead of its reader
)

// errBodyTooLong answers a body over maxRequestBody.
var errBodyTooLong = fmt.Errorf("the body is longer than %d bytes", maxRequestBody)

// readParams reads the parameters of an API request: the body, as a form or
// as a JSON object (see flattenJSON), then the query string, as
// http.Request.ParseForm orders them. On a refusal it returns what it read
// before the bound was passed, from which the answer learns the project.
func readParams(w http.ResponseWriter, r *http.Request) (url.Values, *Error) {
	params := paramReader{out: url.Values{}}
	if err := params.body(w, r); err != nil {
		return params.out, NewError(CodeMalformedRequest, err.Error())
	}
	if err := params.form(strings.NewReader(r.URL.RawQuery)); err != nil {
		return params.out, NewError(CodeMalformedRequest, err.Error())
	}
	return params.out, nil
}

// RequestParams returns the parameters the sandbox reads from r, as it
// reads those of an API request: the body as a form or, with a JSON
// Content-Type, as a JSON object (nested objects and arrays become bracket
// keys such as card[number], numbers keep their literal text, true is "1",
// false and null are ""), then the query string; within the sandbox's
// bounds on size, names, values, nesting and count. It is what a request
// signs: tools that show a canonical string read a body with it.
func RequestParams(r *http.Request) (url.Values, error) {
	params, err := readParams(nil, r)
	if err != nil {
		return nil, errors.New("paygatetest: " + err.message)
	}
	return params, nil
}

// paramReader gathers the parameters of one request and counts them against
// maxParams across the body and the query string.
type paramReader struct {
	out   url.Values
	count int
}

// body reads the body the way ParseForm would, and a JSON object body of
// any method but GET and HEAD. Other bodies are not read.
func (p *paramReader) body(w http.ResponseWriter, r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	readsJSON := r.Method != http.MethodGet && r.Method != http.MethodHead && isJSON(ct)
	if !readsJSON && r.Method != http.MethodPost && r.Method != http.MethodPut && r.Method != http.MethodPatch {
		return nil
	}
	if !readsJSON {
		mt, err := mediaType(cmp.Or(ct, "application/octet-stream"))
		if err != nil {
			return errors.New("the form cannot be parsed")
		}
		if mt != "application/x-www-form-urlencoded" {
			return nil
		}
	}
	if r.ContentLength > maxRequestBody {
		w.Header().Set("Connection", "close") // the rest of the body is not worth reading
		return errBodyTooLong
	}
	body := bufio.NewReaderSize(http.MaxBytesReader(w, r.Body, maxRequestBody), bufferFor(r.ContentLength))
	if readsJSON {
		return p.json(body)
	}
	return p.form(body)
}

// bufferFor is the read-ahead buffer for a body of length bytes (-1:
// unknown): a small body gets a buffer of its size, so that the buffer does
// not cost an ordinary request more than its body.
func bufferFor(length int64) int {
	if length >= 0 && length < readBuffer {
		return int(length) + 1 // one more to see the end
	}
	return readBuffer
}

func isJSON(contentType string) bool {
	mt, err := mediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// mediaType returns the media type of a Content-Type, in lower case. Its
// parameters are not parsed: none matters to the sandbox, and a megabyte of
// them would cost megabytes of memory.
func mediaType(contentType string) (string, error) {
	typ, _, _ := strings.Cut(contentType, ";")
	mt, _, err := mime.ParseMediaType(typ)
	return mt, err
}

// add keeps one parameter, counting it against maxParams.
func (p *paramReader) add(key, value string) error {
	if err := p.counted(); err != nil {
		return err
	}
	p.out[key] = append(p.out[key], value)
	return nil
}

// counted counts one more parameter, refusing the first past maxParams.
func (p *paramReader) counted() error {
	if p.count++; p.count > maxParams {
		return errTooManyParams
	}
	return nil
}

var (
	errTooManyParams = fmt.Errorf("more than %d parameters", maxParams)
	errKeyTooLong    = fmt.Errorf("a parameter name is longer than %d bytes", maxKeyLength)
)

// errValueTooLong names the parameter whose value passed maxParamLength.
func errValueTooLong(key string) error {
	return fmt.Errorf("%s is longer than %d bytes", key, maxParamLength)
}

// readFailure is what a failed read of the body is answered: its length
// when the body passed maxRequestBody, otherwise the fallback.
func readFailure(err error, fallback string) error {
	var tooLong *http.MaxBytesError
	if errors.As(err, &tooLong) {
		return errBodyTooLong
	}
	return errors.New(fallback)
}

func checkOrderID(id string) *Error {
	if len([]rune(id)) > paygate.MaxOrderIDLength {
		return errMerchantData("order_id longer than 64 characters")
	}
	return nil
}

// atoiParam parses a non-negative integer parameter.
func atoiParam(v string) (int, bool) {
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= 0
}

// readMoney reads a positive amount parameter and the currency (three
// letters, either case; answered in upper case): 40014 naming the
// parameter otherwise.
func readMoney(c *call, amountParam string) (decimal.Decimal, string, *Error) {
	return readMoneyFrom(c, amountParam, false)
}

// readMoneyFrom is readMoney that takes an amount of 0 too when zeroOK.
func readMoneyFrom(c *call, amountParam string, zeroOK bool) (decimal.Decimal, string, *Error) {
	amount, ok := parseAmount(c.get(amountParam))
	if !ok || amount.IsNegative() || (amount.IsZero() && !zeroOK) {
		return decimal.Zero, "", errMerchantData(amountParam)
	}
	cur, ok := readCurrency(c.get("currency"))
	if !ok {
		return decimal.Zero, "", errMerchantData("currency")
	}
	return amount, cur, nil
}

// Bounds of an amount: far beyond any real payment, and tight enough that
// no number (a 900,000-digit price, 1e999999999) costs the server time or
// leaves the balance unreadable.
const (
	maxAmountLength = 32 // characters
	maxAmountScale  = 12 // decimal places
)

var maxAmount = decimal.New(1, 15)

// parseAmount reads a decimal amount within the bounds above.
func parseAmount(v string) (decimal.Decimal, bool) {
	if len(v) > maxAmountLength {
		return decimal.Zero, false
	}
	d, err := decimal.NewFromString(v)
	if err != nil || !amountInRange(d, maxAmount) {
		return decimal.Zero, false
	}
	return d, true
}

// amountInRange reports whether d has at most maxAmountScale decimal
// places and is below limit. The exponent is looked at first: comparing
// 1e999999999 would cost gigabytes.
func amountInRange(d, limit decimal.Decimal) bool {
	return d.Exponent() >= -maxAmountScale && d.Exponent() <= maxAmountLength && d.Abs().LessThan(limit)
}

// readCurrency reads an ISO 4217 code in either letter case, as upper case,
// one string per code for the server's life (see currencies).
func readCurrency(v string) (string, bool) {
	up := strings.ToUpper(v)
	if !isCurrency(up) {
		return up, false
	}
	if code, ok := currencies.Load(up); ok {
		return code.(string), true
	}
	code, _ := currencies.LoadOrStore(strings.Clone(up), strings.Clone(up))
	return code.(string), true
}

// currencies holds every currency code read so far, so that the
// transactions of a code share its one string instead of each keeping the
// request it came in; at most 26^3 codes.
var currencies sync.Map

func isCurrency(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// parseCard reads and checks card data under prefix ("" for getToken's flat
// names, "card" for card/process's card[...]).
func parseCard(params map[string][]string, prefix string, now time.Time) (*cardData, *Error) {
	get := func(name string) string {
		if prefix != "" {
			name = prefix + "[" + name + "]"
		}
		if v := params[name]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	number, month, year, code := get("number"), get("expiration_month"), get("expiration_year"), get("security_code")
	switch {
	case number == "":
		return nil, NewError(paygate.CodeCardNumberMissing, "")
	case !cardnum.Valid(number):
		return nil, NewError(paygate.CodeCardNumberInvalid, "")
	case month == "":
		return nil, NewError(paygate.CodeExpirationMonthMissing, "")
	case year == "":
		return nil, NewError(paygate.CodeExpirationYearMissing, "")
	}
	m, errM := strconv.Atoi(month)
	y, errY := strconv.Atoi(year)
	if errM != nil || errY != nil || m < 1 || m > 12 || y < 1000 || y > 9999 ||
		y < now.Year() || (y == now.Year() && m < int(now.Month())) {
		return nil, NewError(paygate.CodeExpiryInvalid, "")
	}
	switch {
	case code == "":
		return nil, NewError(paygate.CodeSecurityCodeMissing, "")
	case len(code) < 3 || len(code) > 4 || !ascii.Digits(code):
		return nil, NewError(paygate.CodeSecurityCodeInvalid, "")
	}
	holder := get("holder")
	if len([]rune(holder)) > paygate.MaxCardholderLength {
		return nil, NewError(paygate.CodeCardholderInvalid, "")
	}
	return &cardData{number: strings.Clone(number), month: m, year: y, holder: strings.Clone(holder)}, nil
}

// listPage reads page: 1 when absent, unreadable or below 1; beyond when
// it is a number too large for an int (a page past any end).
func listPage(v string) (page int, beyond bool) {
	n, err := strconv.Atoi(v)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 1, !strings.HasPrefix(v, "-")
	case err != nil || n < 1:
		return 1, false
	}
	return n, false
}

// listLimit reads limit: the default when absent, unreadable or below 1,
// at most maxListLimit.
func listLimit(v string) int {
	n, err := strconv.Atoi(v)
	switch {
	case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(v, "-"):
		return maxListLimit
	case err != nil || n < 1:
		return defaultListLimit
	}
	return min(n, maxListLimit)
}

// maxFilterTimeLength bounds a list filter's time: the longest form a
// client writes (RFC 3339 with nanoseconds and an offset) is 35 bytes; a
// longer value, even one time.Parse would read (a fraction of 60 digits),
// is refused unread, so that a filter costs little whatever is sent.
const maxFilterTimeLength = 64

// parseFilterTime reads a list filter's time: RFC 3339 and the ISO 8601
// forms the SDK reads (jsonscalar.ParseTime), numeric offsets without a
// colon (+0300), a date alone (midnight UTC), and Unix seconds, in at most
// maxFilterTimeLength bytes. A "+" that a query string turned into a space
// is read as the "+" it was. Only the last space after the date is turned
// back, once: turning back more would put two signs after the date, and a
// time has one at most (its offset's).
func parseFilterTime(v string) (time.Time, bool) {
	if len(v) > maxFilterTimeLength {
		return time.Time{}, false
	}
	if t, ok := readFilterTime(v); ok {
		return t, true
	}
	if i := strings.LastIndexByte(v, ' '); i > len("2006-01-02") {
		return readFilterTime(v[:i] + "+" + v[i+1:])
	}
	return time.Time{}, false
}

// readFilterTime is parseFilterTime without the space read as a "+".
func readFilterTime(v string) (time.Time, bool) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Unix(n, 0).UTC(), true
	}
	if t, err := jsonscalar.ParseTime(v); err == nil {
		return t.UTC(), true
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999Z0700", "2006-01-02 15:04:05.999999999Z0700"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// attributes collects the attr_* parameters, returned in callbacks: nil
// when there are none, copies of the request's strings otherwise (see
// call.keep).
func attributes(params map[string][]string) map[string]string {
	var out map[string]string
	for k, v := range params {
		if strings.HasPrefix(k, "attr_") && len(v) > 0 {
			if out == nil {
				out = make(map[string]string)
			}
			out[strings.Clone(k)] = strings.Clone(v[0])
		}
	}
	return out
}

// keep is get for a value the sandbox keeps: a string of its own, since
// the parsed value may share the memory of the whole request body.
func (c *call) keep(name string) string { return strings.Clone(c.get(name)) }

// payoutType reads the type parameter: a payout type id (or its key).
func payoutType(v string) (int, *Error) {
	if n, err := strconv.Atoi(v); err == nil && n >= PayoutCreditCard && n <= PayoutWallet {
		return n, nil
	}
	for n := PayoutCreditCard; n <= PayoutWallet; n++ {
		if v != "" && strings.EqualFold(v, payoutKey(n)) {
			return n, nil
		}
	}
	return 0, errMerchantData("type")
}
