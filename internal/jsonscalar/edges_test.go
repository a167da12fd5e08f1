package jsonscalar

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Strings made only of escapes, or ending in one, go through the decoder:
// the fast path would return them undecoded.
func TestText_EscapesAndEdges(t *testing.T) {
	for in, want := range map[string]string{
		`"\\"`:         `\`,
		`"\""`:         `"`,
		`"\\\\"`:       `\\`,
		`"\/"`:         `/`,
		`"\n"`:         "\n",
		`"\u0041"`:     "A",
		`"\t\r\b\f"`:   "\t\r\b\f",
		`"a\\"`:        `a\`,
		`""`:           "",
		`"a"`:          "a",
		"\"\xff\"":     "\uFFFD",
		"\"caf\xc3\"":  "caf\uFFFD",
		`-0`:           "-0",
		`0`:            "0",
		`9`:            "9",
		`1234567890`:   "1234567890",
		`"null"`:       "null",
		`"2026-11-22"`: "2026-11-22",
	} {
		got, err := Text([]byte(in))
		require.NoError(t, err, "%q", in)
		assert.Equal(t, want, got, "%q", in)
	}
	for _, in := range []string{
		`"`, `"\"`, `"a`, `a"`, "\"a\x01b\"", "\"\x01\"", "\"\x1f\"", `"\x"`, `nul`, `nulls`, `-`, `1.`, `--1`, `+1`, `.5`, `"a""`,
		// An unescaped quote inside the quotes ends the string early: the
		// fast path must not take the inner quote for text.
		`"""`, `"a"b"`,
	} {
		_, err := Text([]byte(in))
		var te *json.UnmarshalTypeError
		if assert.ErrorAs(t, err, &te, "%q", in) {
			assert.Equal(t, reflect.TypeOf(""), te.Type, "%q", in)
		}
	}
	_, err := Text(nil)
	var te *json.UnmarshalTypeError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, `nothing ""`, te.Value)
}

// Error messages quote at most 40 bytes of the input, so that a hostile
// answer cannot make them huge; the caller's bytes are left as they were.
func TestTypeError_QuotesATruncatedInput(t *testing.T) {
	forty := strings.Repeat("x", 40)
	for _, tt := range []struct {
		in, want string
	}{
		{`"` + forty[:36] + `\q"`, `malformed string "\"` + forty[:36] + `\\q\""`},  // 40 bytes: whole
		{`"` + forty[:37] + `\q"`, `malformed string "\"` + forty[:37] + `\\q..."`}, // 41: cut
		{`"` + forty + `\q"`, `malformed string "\"` + forty[:39] + `..."`},
		{`[` + forty[:38] + `]`, `value "[` + forty[:38] + `]"`},
		{`[` + forty[:39] + `]`, `value "[` + forty[:39] + `..."`},
	} {
		in := []byte(tt.in)
		_, err := Text(in)
		var te *json.UnmarshalTypeError
		require.ErrorAs(t, err, &te, tt.in)
		assert.Equal(t, tt.want, te.Value, tt.in)
		assert.Equal(t, tt.in, string(in), "the input is not written to")
	}
	_, err := Time([]byte(`"` + strings.Repeat("9", 100) + `"`))
	var te *json.UnmarshalTypeError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, `unrecognised time "\"`+strings.Repeat("9", 39)+`..."`, te.Value)
	assert.Equal(t, reflect.TypeOf(time.Time{}), te.Type)

	_, err = ParseTime(strings.Repeat("7", 100))
	assert.EqualError(t, err, `unrecognised time "`+strings.Repeat("7", 40)+`..."`)
	_, err = ParseTime(strings.Repeat("7", 40))
	assert.EqualError(t, err, `unrecognised time "`+strings.Repeat("7", 40)+`"`)
}

func TestInt_ErrorsAndTypes(t *testing.T) {
	for in, want := range map[string]string{
		`1.5`:   `non-integer "1.5"`,
		`"x1"`:  `non-integer "\"x1\""`,
		`true`:  `value "true"`,
		`"\q"`:  `value "\"\\q\""`,
		`[1]`:   `value "[1]"`,
		`1e100`: `non-integer "1e100"`,
		// Digits in base 10 only: no prefixes, no separators.
		`"0x10"`:  `non-integer "\"0x10\""`,
		`"0b1"`:   `non-integer "\"0b1\""`,
		`"0o7"`:   `non-integer "\"0o7\""`,
		`"1_000"`: `non-integer "\"1_000\""`,
	} {
		n, err := Int([]byte(in))
		assert.Zero(t, n, "no value beside an error: %s", in)
		n64, err64 := Int64([]byte(in))
		assert.Zero(t, n64, in)
		assert.Equal(t, err, err64, in)
		var te *json.UnmarshalTypeError
		if assert.ErrorAs(t, err, &te, in) {
			assert.Equal(t, want, te.Value, in)
			assert.Equal(t, reflect.TypeOf(int64(0)), te.Type, in)
		}
	}
	n, err := Int([]byte(`-7`))
	require.NoError(t, err)
	assert.Equal(t, -7, n)
	n, err = Int([]byte(`null`))
	require.NoError(t, err)
	assert.Zero(t, n)
}

func TestTime_ErrorsAndTypes(t *testing.T) {
	for in, want := range map[string]string{
		``:           `nothing ""`,
		`nul`:        `non-string "nul"`,
		`"\q"`:       `value "\"\\q\""`,
		`"tomorrow"`: `unrecognised time "\"tomorrow\""`,
	} {
		_, err := Time([]byte(in))
		var te *json.UnmarshalTypeError
		if assert.ErrorAs(t, err, &te, in) {
			assert.Equal(t, want, te.Value, in)
			assert.Equal(t, reflect.TypeOf(time.Time{}), te.Type, in)
		}
	}
	got, err := Time([]byte(`"\u0032026-11-22"`))
	require.NoError(t, err, "an escaped time is decoded before it is parsed")
	assert.Equal(t, 2026, got.Year())
}

// Unix seconds are read from year 1 to year 9999 (what RFC 3339 can write),
// as a JSON number or a string of digits; one second outside is refused.
func TestTime_UnixSecondsWithinTheYearsRFC3339CanWrite(t *testing.T) {
	for in, want := range map[string]time.Time{
		`-62135596800`:   time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		`253402300799`:   time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		`"253402300799"`: time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		`999999999`:      time.Date(2001, 9, 9, 1, 46, 39, 0, time.UTC),
		`0`:              time.Unix(0, 0).UTC(),
	} {
		got, err := Time([]byte(in))
		require.NoError(t, err, in)
		assert.True(t, want.Equal(got), "%s: got %s, want %s", in, got, want)
	}
	for _, in := range []string{`-62135596801`, `253402300800`, `"253402300800"`} {
		_, err := Time([]byte(in))
		var te *json.UnmarshalTypeError
		require.ErrorAs(t, err, &te, in)
		assert.Equal(t, "unrecognised time "+strconv.Quote(in), te.Value, in)
	}
}
