package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The command prints text others chose: a callback body's values (verify,
// sign), a receiver's answer (trigger --to), a sandbox's deliveries and
// errors, a gateway's error messages and records. Raw, such text acts on
// the terminal it is printed to: ESC ] 0 ; ... BEL retitles the window,
// ESC [ 2 J clears it, U+009B is a one-character ESC [, U+202E reverses
// what follows, and a newline or a carriage return forges a line of the
// command's own output ("signature verifies"). Every such text goes
// through printable in text output, and every JSON output through
// jsonPrintable.

// shown reports whether r may reach the terminal as it is: letters, marks,
// numbers, punctuation, symbols and spaces. Control characters (C0, DEL,
// C1), format characters (bidirectional overrides, zero-width ones), line
// and paragraph separators, private-use and unassigned code points are not.
func shown(r rune) bool { return unicode.IsGraphic(r) }

// printable returns s with every rune shown refuses escaped as Go escapes
// it in a string literal (\x1b, \a, \n, \u202e), and every byte that is
// not UTF-8 as \xNN; the rest is unchanged. A backslash is not escaped,
// so that ordinary text prints as it is: a literal `\x1b` in a value reads
// the same as an escaped ESC, which --json tells apart.
func printable(s string) string {
	// An invalid byte decodes as utf8.RuneError, which is graphic: stop
	// there too, and tell the two apart below.
	i := strings.IndexFunc(s, func(r rune) bool { return !shown(r) || r == utf8.RuneError })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for s = s[i:]; s != ""; {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case shown(r):
			b.WriteString(s[:n])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		s = s[n:]
	}
	return b.String()
}

// jsonPrintable returns encoded JSON with every rune from DEL up that shown
// refuses written as a \u escape, and every byte that is not UTF-8 as
// \ufffd: encoding/json already escapes the C0 controls, but writes DEL,
// C1 and format characters raw. The JSON means the same: such runes can
// only be inside strings, where any character may be escaped. (Outside
// strings JSON allows only ASCII, and C0 only as the whitespace between
// tokens.)
func jsonPrintable(encoded []byte) []byte {
	i := 0
	for i < len(encoded) && encoded[i] < utf8.RuneSelf && encoded[i] != 0x7f {
		i++
	}
	if i == len(encoded) {
		return encoded
	}
	out := append(make([]byte, 0, len(encoded)+16), encoded[:i]...)
	for rest := encoded[i:]; len(rest) > 0; {
		r, n := utf8.DecodeRune(rest)
		switch {
		case r == utf8.RuneError && n == 1:
			out = append(out, `\ufffd`...)
		case r >= 0x7f && !shown(r):
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		default:
			out = append(out, rest[:n]...)
		}
		rest = rest[n:]
	}
	return out
}

// errorText is err's message as the command prints it. Cobra's complaints
// about the command line keep their layout (a suggestion on a line of its
// own); any other error may quote what a server, a receiver or a file
// said, and is printable.
func errorText(err error) string {
	msg := strings.TrimPrefix(err.Error(), "paygate: ")
	if isCobraUsage(err) {
		return msg
	}
	return printable(msg)
}
