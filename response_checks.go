package paygate

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/shopspring/decimal"
)

// Limits on what a response may hold, so that a broken or hostile answer
// (a proxy's garbage, a misconfigured gateway) is an error rather than a
// value that hangs the merchant's program or passes for a real amount.
const (
	// maxDigitRun bounds a run of digits anywhere in a body. Parsing a
	// decimal is quadratic in its length (a million digits take seconds),
	// and no id or amount the gateway sends has more than a few dozen.
	maxDigitRun = 1000
	// maxMoneyIntegerDigits and maxMoneyFractionDigits bound a decoded
	// amount: the gateway's amounts are decimal(12,2) and decimal(12,4).
	maxMoneyIntegerDigits  = 30
	maxMoneyFractionDigits = 30
)

var errNullBody = errors.New("the body is JSON null")

// screenBody rejects a body before it is decoded: JSON null (which would
// decode as "nothing" into every type) and absurdly long numbers.
func screenBody(body []byte) error {
	if string(bytes.TrimSpace(body)) == "null" {
		return errNullBody
	}
	run := 0
	for _, c := range body {
		if '0' <= c && c <= '9' {
			if run++; run > maxDigitRun {
				return fmt.Errorf("a number of more than %d digits", maxDigitRun)
			}
		} else {
			run = 0
		}
	}
	return nil
}

// checkDecodedAmount rejects an amount beyond the limits above. The
// tolerant decoder applies it to every decimal it reads, so that an absurd
// amount is reported at its path (an error for an essential field, a
// warning otherwise).
func checkDecodedAmount(d decimal.Decimal) error {
	exp := int(d.Exponent())
	switch {
	case exp < -maxMoneyFractionDigits:
		return fmt.Errorf("an amount with more than %d decimals", maxMoneyFractionDigits)
	case !d.IsZero() && d.NumDigits()+exp > maxMoneyIntegerDigits:
		return fmt.Errorf("an amount of more than %d digits", maxMoneyIntegerDigits)
	}
	return nil
}
