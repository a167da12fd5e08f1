package main

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrintable(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"order-1001 10.00 EUR":           "order-1001 10.00 EUR",
		"Zoë ünd 東京 \u00a0€":             "Zoë ünd 東京 \u00a0€",
		"\x1b]0;title\x07\x1b[2J":        `\x1b]0;title\a\x1b[2J`,
		"a\nb\rc\td":                     `a\nb\rc\td`,
		"\u009b2J \u202eevil \u200b":     `\u009b2J \u202eevil \u200b`,
		"\x7f\u2028\ue000":               `\x7f\u2028\ue000`,
		"bad \xff\xfe byte, real \ufffd": `bad \xff\xfe byte, real ` + "\ufffd",
		`a literal \x1b`:                 `a literal \x1b`,
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzPrintable: whatever a body, a receiver or a server sent, printable
// leaves nothing a terminal acts on, and changes nothing else.
func FuzzPrintable(f *testing.F) {
	f.Add("\x1b]0;title\x07\x1b[2J")
	f.Add("\u009b\u202e\xff\ufffd plain")
	f.Fuzz(func(t *testing.T, s string) {
		got := printable(s)
		if !utf8.ValidString(got) {
			t.Fatalf("printable(%q) = %q is not UTF-8", s, got)
		}
		for _, r := range got {
			if !shown(r) {
				t.Fatalf("printable(%q) = %q keeps %U", s, got, r)
			}
		}
		allShown := utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !shown(r) }) < 0
		if allShown != (got == s) {
			t.Fatalf("printable(%q) = %q: text that is all shown is kept, and only that", s, got)
		}
	})
}

// FuzzJSONPrintable: any string encoded as JSON, then made printable,
// decodes to what the JSON encoding alone decodes to, and holds nothing a
// terminal acts on but the encoder's own line ends.
func FuzzJSONPrintable(f *testing.F) {
	f.Add("\x1b]0;title\x07\x1b[2J")
	f.Add("\u009b\u202e\U000e0041\x7f\xff\ufffd plain")
	f.Fuzz(func(t *testing.T, s string) {
		encoded, err := json.MarshalIndent(map[string]any{"k": s, "list": []string{s}}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		printed := jsonPrintable(encoded)
		for _, r := range string(printed) {
			if r != '\n' && !shown(r) {
				t.Fatalf("jsonPrintable keeps %U of %q: %s", r, s, printed)
			}
		}
		var want, got map[string]any
		if err := json.Unmarshal(encoded, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(printed, &got); err != nil {
			t.Fatalf("jsonPrintable made invalid JSON of %q: %v: %s", s, err, printed)
		}
		if got["k"] != want["k"] {
			t.Fatalf("%q decodes as %q after jsonPrintable, %q before", s, got["k"], want["k"])
		}
	})
}
