// Package cardnum holds the checks on card numbers that the SDK (before
// sending) and the sandbox (on receipt) both apply.
package cardnum

import "github.com/paygate/paygate-go/internal/ascii"

// LuhnValid reports whether the digit string number passes the Luhn check.
// It does not check the length or that number holds only digits.
func LuhnValid(number string) bool {
	sum, double := 0, false
	for i := len(number) - 1; i >= 0; i-- {
		d := int(number[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// Valid reports whether number is 12 to 19 digits passing the Luhn check.
func Valid(number string) bool {
	return len(number) >= 12 && len(number) <= 19 && ascii.Digits(number) && LuhnValid(number)
}
