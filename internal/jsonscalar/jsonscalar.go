// Package jsonscalar decodes the loosely typed JSON scalars the gateway
// sends: integers as numbers or numeric strings, strings as strings or
// numbers, and times in several layouts. Every function treats null and ""
// as the zero value and never goes through float64.
package jsonscalar

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ErrNotScalar reports a JSON value that is an object, an array or a boolean
// where a number or string was expected.
var ErrNotScalar = errors.New("not a JSON number or string")

// Text returns the text of a JSON string or the literal of a JSON number.
// null yields "". Objects, arrays and booleans are rejected.
func Text(b []byte) (string, error) {
	if len(b) == 0 {
		return "", ErrNotScalar
	}
	switch c := b[0]; {
	case c == 'n' && string(b) == "null":
		return "", nil
	case c == '"':
		if !hasEscape(b) && len(b) >= 2 && b[len(b)-1] == '"' {
			return string(b[1 : len(b)-1]), nil
		}
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return "", err
		}
		return s, nil
	case c == '-' || ('0' <= c && c <= '9'):
		if !json.Valid(b) {
			return "", fmt.Errorf("invalid JSON number %q", truncate(b))
		}
		return string(b), nil
	}
	return "", ErrNotScalar
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
	if err != nil || s == "" {
		return 0, err
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a 64-bit integer", truncate([]byte(s)))
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
		return 0, fmt.Errorf("%d does not fit in an int", n)
	}
	return int(n), nil
}

// timeLayouts are tried in order. RFC 3339 with or without a fraction is
// what the spec promises; the others have been seen in the wild.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05.999999999",
	"20060102T15:04:05Z07:00",
	"20060102T15:04:05",
	"2006-01-02",
}

// Time decodes a time from a JSON string. Layouts without a zone are read
// as UTC. null and "" are the zero time.
func Time(b []byte) (time.Time, error) {
	if len(b) > 0 && b[0] != '"' && string(b) != "null" {
		return time.Time{}, fmt.Errorf("time must be a JSON string, got %q", truncate(b))
	}
	s, err := Text(b)
	if err != nil || s == "" {
		return time.Time{}, err
	}
	return ParseTime(s)
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
