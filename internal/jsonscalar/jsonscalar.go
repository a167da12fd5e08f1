// Package jsonscalar decodes the loosely typed JSON scalars the gateway
// sends: integers as numbers or numeric strings, strings as strings or
// numbers, booleans as true/false or 1/0, and times in the layouts PHP and
// Java servers write or as Unix seconds. Every function treats null and ""
// as the zero value and never goes through float64.
package jsonscalar

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate-go/internal/ascii"
)

// Errors are *json.UnmarshalTypeError, so that encoding/json fills in the
// struct field they occurred in and the caller can name it.

var (
	stringType = reflect.TypeOf("")
	int64Type  = reflect.TypeOf(int64(0))
	boolType   = reflect.TypeOf(false)
	timeType   = reflect.TypeOf(time.Time{})
)

func typeError(what string, b []byte, t reflect.Type) error {
	return &json.UnmarshalTypeError{Value: what + " " + strconv.Quote(string(truncate(b))), Type: t}
}

// Text returns the text of a JSON string or the literal of a JSON number.
// null yields "". Objects, arrays and booleans are rejected.
func Text(b []byte) (string, error) {
	if len(b) == 0 {
		return "", typeError("nothing", b, stringType)
	}
	switch c := b[0]; {
	case c == 'n' && string(b) == "null":
		return "", nil
	case c == '"':
		// The fast path only for plain valid UTF-8: like encoding/json, the
		// slow path replaces invalid bytes, so decoded text is always valid.
		if len(b) >= 2 && b[len(b)-1] == '"' && !hasEscape(b) && utf8.Valid(b) {
			return string(b[1 : len(b)-1]), nil
		}
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return "", typeError("malformed string", b, stringType)
		}
		return s, nil
	case c == '-' || ('0' <= c && c <= '9'):
		if !json.Valid(b) {
			return "", typeError("malformed number", b, stringType)
		}
		return string(b), nil
	}
	return "", typeError("value", b, stringType)
}

func hasEscape(b []byte) bool {
	for _, c := range b[1 : len(b)-1] {
		if c == '\\' || c == '"' || c < 0x20 {
			return true
		}
	}
	return false
}

// Int64 decodes an integer sent as a JSON number or a string of digits,
// exactly (19-digit ids stay exact). A fraction, an exponent or a value
// outside int64 is an error.
func Int64(b []byte) (int64, error) {
	s, err := Text(b)
	if err != nil {
		return 0, typeError("value", b, int64Type)
	}
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, typeError("non-integer", b, int64Type)
	}
	return n, nil
}

// Int decodes an int sent as a JSON number or a numeric string.
func Int(b []byte) (int, error) {
	n, err := Int64(b)
	if err != nil {
		return 0, err
	}
	if int64(int(n)) != n {
		return 0, typeError("out-of-range number", b, reflect.TypeOf(0))
	}
	return int(n), nil
}

// Bool decodes a boolean sent as true/false, 1/0 or one of the strings
// "1", "0", "true", "false" and "". null is false.
func Bool(b []byte) (bool, error) {
	switch string(b) {
	case "true", "1", `"1"`, `"true"`:
		return true, nil
	case "false", "0", `"0"`, `"false"`, `""`, "null":
		return false, nil
	}
	return false, typeError("non-boolean", b, boolType)
}

// timeLayouts are tried in order. RFC 3339 with or without a fraction is
// what the spec promises; the others are the ISO 8601 forms PHP (DATE_ATOM,
// DATE_ISO8601 with its +0300 offset) and Java servers write, and forms
// seen in the wild. A fraction after the seconds is accepted by every
// layout (time.Parse reads one even where the layout has none). Layouts
// without a zone are read as UTC.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05Z07",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05Z0700",
	"2006-01-02 15:04:05",
	"20060102T15:04:05Z07:00",
	"20060102T15:04:05Z0700",
	"20060102T15:04:05",
	"20060102T150405Z07:00",
	"20060102T150405Z0700",
	"20060102T150405",
	"2006-01-02",
}

// Unix seconds are accepted from year 1 to year 9999, the years RFC 3339
// can write.
const (
	minUnix = -62135596800
	maxUnix = 253402300799
)

// Time decodes a time from a JSON string in one of the layouts above, or
// from Unix seconds sent as a JSON integer or a string of digits (what the
// spec calls a timestamp). null and "" are the zero time.
func Time(b []byte) (time.Time, error) {
	if len(b) == 0 {
		return time.Time{}, typeError("nothing", b, timeType)
	}
	if c := b[0]; c == '-' || ('0' <= c && c <= '9') {
		return unixTime(b)
	}
	if b[0] != '"' && string(b) != "null" {
		return time.Time{}, typeError("non-string", b, timeType)
	}
	s, err := Text(b)
	if err != nil {
		return time.Time{}, typeError("value", b, timeType)
	}
	if s == "" {
		return time.Time{}, nil
	}
	if ascii.Digits(s) {
		return unixTime(b)
	}
	t, err := ParseTime(s)
	if err != nil {
		return time.Time{}, typeError("unrecognised time", b, timeType)
	}
	return t, nil
}

func unixTime(b []byte) (time.Time, error) {
	n, err := Int64(b)
	if err != nil || n < minUnix || n > maxUnix {
		return time.Time{}, typeError("unrecognised time", b, timeType)
	}
	return time.Unix(n, 0).UTC(), nil
}

// ParseTime parses s in any of the accepted layouts.
func ParseTime(s string) (time.Time, error) {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("unrecognised time %q", truncate([]byte(s)))
}

// truncate keeps error messages short when the input is hostile.
func truncate(b []byte) []byte {
	const max = 40
	if len(b) > max {
		return append(b[:max:max], "..."...)
	}
	return b
}
