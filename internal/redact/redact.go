// Package redact keeps card numbers and other secrets out of text that may
// reach a log line or an error string.
package redact

import (
	"strings"
	"unicode/utf8"
)

// Excerpt returns at most max bytes of body as valid UTF-8 (invalid bytes
// replaced), with every run of 12 or more digits (a possible card number,
// even with spaces or dashes between groups) replaced by asterisks except
// its last four digits. Runs are masked before the cut, so a number the
// cut falls inside is masked too.
func Excerpt(body []byte, max int) string {
	// A card number with separators is well under 64 bytes: masking that
	// far past the cut sees the whole of any run the cut falls inside.
	out := []byte(string(body[:min(len(body), max+64)]))
	maskRuns(out)
	if len(out) > max {
		out = out[:max]
		for len(out) > 0 && !utf8.Valid(out) {
			out = out[:len(out)-1]
		}
	}
	return strings.ToValidUTF8(string(out), "\uFFFD")
}

// maskRuns masks, in place, every run of 12 or more digits but its last
// four.
func maskRuns(out []byte) {
	for i := 0; i < len(out); {
		if !isDigit(out[i]) {
			i++
			continue
		}
		end, digits := i, 0
		for j := i; j < len(out); j++ {
			if isDigit(out[j]) {
				digits++
				end = j + 1
			} else if out[j] != ' ' && out[j] != '-' {
				break
			}
		}
		if digits >= 12 {
			maskDigits(out[i:end], 4)
		}
		i = end
	}
}

// maskDigits replaces all digits of b but the last keep with '*'.
func maskDigits(b []byte, keep int) {
	for j := len(b) - 1; j >= 0; j-- {
		if !isDigit(b[j]) {
			continue
		}
		if keep > 0 {
			keep--
			continue
		}
		b[j] = '*'
	}
}

// CardNumber masks all but the last four characters of a card number.
func CardNumber(n string) string {
	if n == "" {
		return ""
	}
	const keep = 4
	if len(n) <= keep {
		return "****"
	}
	masked := make([]byte, len(n))
	for i := range masked {
		masked[i] = '*'
	}
	copy(masked[len(n)-keep:], n[len(n)-keep:])
	return string(masked)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
