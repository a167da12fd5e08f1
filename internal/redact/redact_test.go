package redact

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestExcerpt_MasksCardNumbersAndCuts(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"<html>502 Bad Gateway</html>", 200, "<html>502 Bad Gateway</html>"},
		{"card 4242424242424242 declined", 200, "card ************4242 declined"},
		{"card 4242 4242 4242 4242 declined", 200, "card **** **** **** 4242 declined"},
		{"order 1000000000000000001", 200, "order ***************0001"},
		{"year 2026, id 12345", 200, "year 2026, id 12345"},
		{"abcdefghij", 4, "abcd"},
		{"Иван", 3, "И"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, Excerpt([]byte(tt.in), tt.max), tt.in)
	}
}

func TestExcerpt_InvalidUTF8BecomesValid(t *testing.T) {
	got := Excerpt([]byte{'a', 0xff, 'b'}, 10)
	require.True(t, utf8.ValidString(got))
	require.Equal(t, "a\uFFFDb", got)
}

func TestCardNumber(t *testing.T) {
	require.Equal(t, "************4242", CardNumber("4242424242424242"))
	require.Equal(t, "****", CardNumber("123"))
	require.Equal(t, "", CardNumber(""))
}

func FuzzExcerpt(f *testing.F) {
	f.Add([]byte("card 4242424242424242"), 20)
	f.Add([]byte{0xff, '1', '2'}, 2)
	f.Fuzz(func(t *testing.T, b []byte, max int) {
		if max < 0 || max > 1<<16 {
			return
		}
		got := Excerpt(b, max)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 from %q", b)
		}
	})
}

func TestExcerpt_NumberCutByTheLimitIsStillMasked(t *testing.T) {
	body := []byte(strings.Repeat("x", 190) + "4242424242424242 tail")
	got := Excerpt(body, 200)
	require.Len(t, got, 200)
	require.NotContains(t, got, "4242424242")
	require.True(t, strings.HasSuffix(got, "**********"), got)
}
