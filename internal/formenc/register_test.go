package formenc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// hiddenPair is a registered type: its value sits behind a pointer in an
// unexported field, where the reflective walk cannot reach it.
type hiddenPair struct{ p *[2]string }

func init() {
	Register(func(dst Pairs, key string, name func(string) string, v hiddenPair) Pairs {
		if v.p == nil {
			return dst
		}
		return append(dst, Pair{key, v.p[0]}, Pair{name("other"), v.p[1]})
	})
}

func TestRegister_WritesUnderTheFieldKeyAndScope(t *testing.T) {
	type card struct {
		Secret hiddenPair `url:"secret"`
	}
	type params struct {
		Top  hiddenPair  `url:"top"`
		Card *card       `url:"card"`
		None hiddenPair  `url:"none"`
		Ptr  *hiddenPair `url:"ptr"`
	}
	got, err := Append(nil, &params{
		Top:  hiddenPair{&[2]string{"a", "b"}},
		Card: &card{Secret: hiddenPair{&[2]string{"c", "d"}}},
	})
	require.NoError(t, err)
	require.Equal(t, Pairs{{"top", "a"}, {"other", "b"}, {"card[secret]", "c"}, {"card[other]", "d"}}, got)
}
