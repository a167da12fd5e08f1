package paygate

import (
	"math"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go/internal/ascii"
	"github.com/paygate/paygate-go/internal/cardnum"
)

// Limits the spec states for request parameters.
const (
	MaxOrderIDLength    = 64
	MaxUserAgentLength  = 255
	MaxCardholderLength = 21
)

// The field rules below are the parts the parameter structs' validate
// methods share. Each returns a *ValidationError naming the parameter as
// the gateway knows it, or nil, and never quotes the value. The gateway's
// answers are verified instead, in pipeline.go.

func checkRequired(field, v string) error {
	if v == "" {
		return &ValidationError{Field: field, Reason: "is required"}
	}
	return nil
}

func checkMaxLen(field, v string, max int) error {
	if utf8.RuneCountInString(v) > max {
		return &ValidationError{Field: field, Reason: "must be at most " + strconv.Itoa(max) + " characters"}
	}
	return nil
}

// checkCurrency accepts an ISO 4217 code: three letters, in either case
// (the spec states three letters; the gateway reads the case it likes).
func checkCurrency(field, v string) error {
	if v == "" {
		return &ValidationError{Field: field, Reason: "is required"}
	}
	if len(v) != 3 || !isLetter(v[0]) || !isLetter(v[1]) || !isLetter(v[2]) {
		return &ValidationError{Field: field, Reason: "must be an ISO 4217 code of three letters"}
	}
	return nil
}

// checkAmount requires a positive amount with at most two decimal places:
// the gateway keeps prices as decimal(12,2), so a finer amount would be
// rounded there and differ from what was signed.
func checkAmount(field string, d decimal.Decimal) error {
	switch {
	case !d.IsPositive():
		return &ValidationError{Field: field, Reason: "must be greater than zero"}
	case !d.Equal(d.Round(2)):
		return &ValidationError{Field: field, Reason: "must have at most 2 decimal places"}
	case d.GreaterThanOrEqual(maxAmount):
		return &ValidationError{Field: field, Reason: "must be less than 10^10 (decimal(12,2))"}
	}
	return nil
}

// maxAmount is the first amount decimal(12,2) cannot hold.
var maxAmount = decimal.New(1, 10)

// checkPhone accepts an empty phone or the international format the gateway
// wants: digits only, no leading +, no separators.
func checkPhone(field, v string) error {
	if v == "" {
		return nil
	}
	if !ascii.Digits(v) {
		return &ValidationError{Field: field, Reason: "must be digits only in international format, without + or separators"}
	}
	return nil
}

// checkCardNumber requires digits only ("no separators", the spec says)
// passing the Luhn check. The length is the gateway's to judge.
func checkCardNumber(field, number string) error {
	switch {
	case number == "":
		return &ValidationError{Field: field, Reason: "is required"}
	case !ascii.Digits(number):
		return &ValidationError{Field: field, Reason: "must be digits only, without spaces or separators"}
	case !cardnum.LuhnValid(number):
		return &ValidationError{Field: field, Reason: "fails the Luhn check"}
	}
	return nil
}

// checkExpiry requires a month 1..12 and a four-digit year.
func checkExpiry(monthField string, month int, yearField string, year int) error {
	if month < 1 || month > 12 {
		return &ValidationError{Field: monthField, Reason: "must be 1 to 12"}
	}
	if year < 1000 || year > 9999 {
		return &ValidationError{Field: yearField, Reason: "must be a four-digit year"}
	}
	return nil
}

// absoluteHTTPURL parses s and requires an absolute http or https URL.
func absoluteHTTPURL(s string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, false
	}
	return u, true
}

// MaxRecurringDays is the largest number of days a recurring interval or
// trial may have: the most days a time.Duration holds (about 292 years),
// so that the interval can be turned into a duration, by the SDK or by the
// merchant's code, without overflowing.
const MaxRecurringDays = int(math.MaxInt64 / int64(24*time.Hour))

// checkDays accepts an absent (nil) or zero day count, or a positive one up
// to MaxRecurringDays.
func checkDays(field string, days *int) error {
	switch {
	case days == nil:
	case *days < 0:
		return &ValidationError{Field: field, Reason: "must not be negative"}
	case *days > MaxRecurringDays:
		return &ValidationError{Field: field, Reason: "must be at most " + strconv.Itoa(MaxRecurringDays) + " days"}
	}
	return nil
}

// checkCardData validates card data under the wire names of one request
// ("number" in card/getToken, "card[number]" in card/process).
func checkCardData(scope string, number CardNumber, exp Expiry, code SecurityCode) error {
	name := func(field string) string {
		if scope == "" {
			return field
		}
		return scope + "[" + field + "]"
	}
	if err := checkCardNumber(name("number"), number.get()); err != nil {
		return err
	}
	if err := checkExpiry(name("expiration_month"), exp.Month(), name("expiration_year"), exp.Year()); err != nil {
		return err
	}
	switch c := code.get(); {
	case c == "":
		return &ValidationError{Field: name("security_code"), Reason: "is required"}
	case !ascii.Digits(c) || len(c) < 3 || len(c) > 4:
		return &ValidationError{Field: name("security_code"), Reason: "must be 3 or 4 digits"}
	}
	return nil
}

// userFields are the wire names of the user fields in one request: flat in
// user/resolve, user[...] in card/process.
type userFields struct{ identifier, phone, locale string }

// checkUser validates the fields user/resolve and the user object of
// card/process share, by the rules the spec states: the identifier is
// required (the spec requires ip for user/resolve alone), the phone is in
// international format without + or separators, the locale is an ISO
// 639-1 code. The shape of an e-mail or IP address is the gateway's to
// judge: the spec states none.
func checkUser(names userFields, identifier, phone, locale string) error {
	if err := checkRequired(names.identifier, identifier); err != nil {
		return err
	}
	if err := checkPhone(names.phone, phone); err != nil {
		return err
	}
	if locale != "" && (len(locale) != 2 || !isLower(locale[0]) || !isLower(locale[1])) {
		return &ValidationError{Field: names.locale, Reason: "must be a two-letter ISO 639-1 code in lowercase"}
	}
	return nil
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// checkIDOrOrderID requires exactly one of a transaction id and an order id.
func checkIDOrOrderID(id ID, orderID string) error {
	switch {
	case id == 0 && orderID == "":
		return &ValidationError{Field: "id", Reason: "either id or order_id is required"}
	case id != 0 && orderID != "":
		return &ValidationError{Field: "order_id", Reason: "give either id or order_id, not both"}
	}
	return checkMaxLen("order_id", orderID, MaxOrderIDLength)
}

// referenceOrObject names the fields and reasons of an input given either
// by reference (an internal user id, a card token) or, in the extended form
// only, as an object (user details, card details).
type referenceOrObject struct {
	object, reference      string // the wire names the errors carry
	inBasic, missing, both string // the reasons
}

// check requires exactly one of the reference and the object, and refuses
// the object in the basic form. The caller validates the object's fields.
func (r *referenceOrObject) check(f Form, hasReference, hasObject bool) error {
	switch {
	case hasObject && f == FormBasic:
		return &ValidationError{Field: r.object, Reason: r.inBasic}
	case !hasReference && !hasObject:
		return &ValidationError{Field: r.reference, Reason: r.missing}
	case hasReference && hasObject:
		return &ValidationError{Field: r.object, Reason: r.both}
	}
	return nil
}

// checkPayoutType requires a type: id 0 is a valid id, so only a type with
// neither id nor key counts as none.
func checkPayoutType(t PayoutType) error {
	if t.ID == 0 && t.Key == "" {
		return &ValidationError{Field: "type", Reason: "is required: a payout type from payout-types (a type with id 0 needs its key)"}
	}
	return nil
}

// firstError returns the first non-nil error.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func isLetter(c byte) bool { return ('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z') }
