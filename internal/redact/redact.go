// Package redact keeps card numbers and other secrets out of text that may
// reach a log line or an error string.
package redact

import (
	"strings"
	"unicode/utf8"
)

// Excerpt returns at most max bytes of body as valid UTF-8 (invalid bytes
// replaced), with every run of
// 12 or more digits (a possible card number, even with spaces or dashes
// between groups) replaced by asterisks except its last four digits.
func Excerpt(body []byte, max int) string {
	if len(body) > max {
		body = body[:max]
		for len(body) > 0 && !utf8.Valid(body) {
			body = body[:len(body)-1]
		}
	}
	out := []byte(string(body))
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
	return strings.ToValidUTF8(string(out), "\uFFFD")
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
