// Package ascii holds the byte-level checks on text that the SDK, package
// callback, the JSON scalar reader and the sandbox share: ids, amounts,
// dates and card numbers are all read as runs of ASCII digits, never as
// Unicode digits (a full-width ４ is not a digit to the gateway).
package ascii

// Digits reports whether s is non-empty and holds only ASCII digits.
func Digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
