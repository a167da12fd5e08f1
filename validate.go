package paygate

import (
	"net/url"
	"strconv"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go/internal/cardnum"
)

// Limits the spec states for request parameters.
const (
	MaxOrderIDLength    = 64
	MaxUserAgentLength  = 255
	MaxCardholderLength = 21
)

// The checks below each return a *ValidationError naming the parameter as
// the gateway knows it, or nil. They never quote the value.

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

// checkCurrency accepts an ISO 4217 code: three uppercase letters.
func checkCurrency(field, v string) error {
	if v == "" {
		return &ValidationError{Field: field, Reason: "is required"}
	}
	if len(v) != 3 || !isUpper(v[0]) || !isUpper(v[1]) || !isUpper(v[2]) {
		return &ValidationError{Field: field, Reason: "must be an ISO 4217 code of three uppercase letters"}
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
	if !cardnum.Digits(v) {
		return &ValidationError{Field: field, Reason: "must be digits only in international format, without + or separators"}
	}
	return nil
}

// checkCardNumber requires digits only (12 to 19 of them) passing the Luhn
// check.
func checkCardNumber(field, number string) error {
	switch {
	case number == "":
		return &ValidationError{Field: field, Reason: "is required"}
	case !cardnum.Digits(number):
		return &ValidationError{Field: field, Reason: "must be digits only, without spaces or separators"}
	case len(number) < 12 || len(number) > 19:
		return &ValidationError{Field: field, Reason: "must be 12 to 19 digits"}
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

// checkURL accepts an empty value or an absolute http(s) URL.
func checkURL(field, v string) error {
	if _, ok := absoluteHTTPURL(v); v != "" && !ok {
		return &ValidationError{Field: field, Reason: "must be an absolute http(s) URL"}
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

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
