package paygatetest

import (
	"strings"
	"sync"

	"github.com/shopspring/decimal"
)

// readMoney reads a positive amount parameter and the currency (three
// letters, either case; answered in upper case): 40014 naming the
// parameter otherwise.
func readMoney(c *call, amountParam string) (decimal.Decimal, string, *apiError) {
	return readMoneyFrom(c, amountParam, false)
}

// readMoneyFrom is readMoney that takes an amount of 0 too when zeroOK.
func readMoneyFrom(c *call, amountParam string, zeroOK bool) (decimal.Decimal, string, *apiError) {
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
	if err != nil || d.Exponent() < -maxAmountScale || d.Exponent() > maxAmountLength {
		return decimal.Zero, false
	}
	return d, d.Abs().LessThan(maxAmount)
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
