package jsonscalar

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestInt64_NumbersAndStringsExact(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{`1000000000000000001`, 1000000000000000001, false},
		{`"1000000000000000001"`, 1000000000000000001, false},
		{`9223372036854775807`, 9223372036854775807, false},
		{`"-42"`, -42, false},
		{`null`, 0, false},
		{`""`, 0, false},
		{`9223372036854775808`, 0, true},
		{`1.5`, 0, true},
		{`1e3`, 0, true},
		{`"12a"`, 0, true},
		{`true`, 0, true},
		{`{}`, 0, true},
		{`[1]`, 0, true},
		{``, 0, true},
		{`01`, 0, true},
	}
	for _, tt := range tests {
		got, err := Int64([]byte(tt.in))
		if tt.err {
			require.Error(t, err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		require.Equal(t, tt.want, got, tt.in)
	}
}

func TestInt_RejectsOverflowOnlyWhenIntIsSmaller(t *testing.T) {
	n, err := Int([]byte(`"12"`))
	require.NoError(t, err)
	require.Equal(t, 12, n)
}

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		`"abc"`:          "abc",
		`"caf\u00e9 \""`: `café "`,
		`42`:             "42",
		`-1.5e3`:         "-1.5e3",
		`null`:           "",
		`"Иван"`:         "Иван",
	} {
		got, err := Text([]byte(in))
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{`true`, `{}`, `[]`, `"unterminated`, `12abc`} {
		_, err := Text([]byte(in))
		require.Error(t, err, in)
	}
}

func TestTime_EveryAcceptedLayout(t *testing.T) {
	utc := time.Date(2026, 11, 22, 10, 4, 5, 0, time.UTC)
	plus3 := time.Date(2026, 11, 22, 13, 4, 5, 0, time.FixedZone("", 3*3600))
	tests := []struct {
		in   string
		want time.Time
	}{
		{`"2026-11-22T10:04:05Z"`, utc},
		{`"2026-11-22T10:04:05.123456Z"`, utc.Add(123456 * time.Microsecond)},
		{`"2026-11-22T13:04:05+03:00"`, plus3},
		{`"2026-11-22T13:04:05.5+03:00"`, plus3.Add(500 * time.Millisecond)},
		{`"2026-11-22 10:04:05"`, utc},
		{`"2026-11-22T10:04:05"`, utc},
		{`"2026-11-22 13:04:05+03:00"`, plus3},
		{`"20261122T13:04:05+03:00"`, plus3},
		{`"20261122T10:04:05"`, utc},
		{`"2026-11-22"`, time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		// PHP's DATE_ISO8601 and Java's offsets without a colon.
		{`"2026-11-22T13:04:05+0300"`, plus3},
		{`"2026-11-22T10:04:05+0000"`, utc},
		{`"2026-11-22T10:04:05.123+0000"`, utc.Add(123 * time.Millisecond)},
		{`"2026-11-22T13:04:05+03"`, plus3},
		{`"2026-11-22 13:04:05+0300"`, plus3},
		{`"20261122T13:04:05+0300"`, plus3},
		{`"20261122T130405+0300"`, plus3},
		{`"20261122T100405Z"`, utc},
		{`"20261122T13:04:05.250+03:00"`, plus3.Add(250 * time.Millisecond)},
		// Unix seconds, where the spec says timestamp.
		{`1795341845`, utc},
		{`"1795341845"`, utc},
		{`0`, time.Unix(0, 0)},
		{`null`, time.Time{}},
		{`""`, time.Time{}},
	}
	for _, tt := range tests {
		got, err := Time([]byte(tt.in))
		require.NoError(t, err, tt.in)
		require.True(t, tt.want.Equal(got), "%s: got %v want %v", tt.in, got, tt.want)
	}
	for _, in := range []string{`"yesterday"`, `1700000000.5`, `"2026-13-01T00:00:00Z"`, `{}`, `true`, `253402300800`, `"99999999999999"`, `"+0300"`} {
		_, err := Time([]byte(in))
		require.Error(t, err, in)
	}
}

func TestBool(t *testing.T) {
	for in, want := range map[string]bool{
		`true`: true, `1`: true, `"1"`: true, `"true"`: true,
		`false`: false, `0`: false, `"0"`: false, `"false"`: false, `""`: false, `null`: false,
	} {
		got, err := Bool([]byte(in))
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{`2`, `"yes"`, `{}`, `[]`, ``, `tru`, `"1 "`} {
		got, err := Bool([]byte(in))
		require.Error(t, err, in)
		// A caller that logs the error and reads on must see false, never
		// a success that was not sent.
		require.False(t, got, in)
	}
}

func FuzzInt64(f *testing.F) {
	for _, s := range []string{`1000000000000000001`, `"9223372036854775807"`, `null`, `""`, `-1`, `1.0`, `"\u0031"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := Int64(b)
		if err != nil {
			return
		}
		// Whatever was accepted round-trips exactly through both encodings.
		for _, enc := range []string{strconv.FormatInt(n, 10), strconv.Quote(strconv.FormatInt(n, 10))} {
			m, err := Int64([]byte(enc))
			if err != nil || m != n {
				t.Fatalf("%q accepted as %d, but %s decodes as %d, %v", b, n, enc, m, err)
			}
		}
	})
}

func FuzzTime(f *testing.F) {
	for _, s := range []string{`"2026-11-22T10:04:05Z"`, `"2026-11-22 10:04:05"`, `"20261122T13:04:05+03:00"`, `"2026-11-22T10:04:05+0000"`, `1795341845`, `"1795341845"`, `null`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Time(b)
		if err != nil {
			return
		}
		if got.IsZero() {
			return
		}
		again, err := ParseTime(got.Format(time.RFC3339Nano))
		if err != nil || !again.Equal(got) {
			t.Fatalf("%q accepted as %v but its RFC 3339 form does not parse back: %v", b, got, err)
		}
	})
}

func FuzzText(f *testing.F) {
	for _, s := range []string{`"abc"`, `42`, `null`, `"\ud800"`, `"a\"b"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = Text(b) // must not panic on any input
	})
}
