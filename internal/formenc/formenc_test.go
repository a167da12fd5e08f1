package formenc

import (
	"net/url"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

type cardInput struct {
	Number string `url:"number"`
	Month  int    `url:"expiration_month"`
	Holder string `url:"holder,omitempty"`
}

type secret string

type embedded struct {
	Locale string `url:"locale,omitempty"`
}

type chargeLike struct {
	embedded
	User     string            `url:"user"`
	Token    string            `url:"card_token,omitempty"`
	Card     *cardInput        `url:"card"`
	Price    decimal.Decimal   `url:"price"`
	Fee      decimal.Decimal   `url:"fee,omitempty"`
	ThreeDS  bool              `url:"3ds,omitempty"`
	Remember bool              `url:"remember"`
	Verify   *bool             `url:"verify_card"`
	Interval *int              `url:"recurring_interval"`
	Trial    int               `url:"recurring_trial,omitempty"`
	ID       int64             `url:"id,omitempty"`
	Limit    uint              `url:"limit,omitempty"`
	From     time.Time         `url:"created[from],omitempty"`
	Code     secret            `url:"security_code,omitempty"`
	Attrs    map[string]string `url:"attr_,prefix"`
	Extra    map[string]string `url:",inline"`
	Ignored  string            `url:"-"`
	//lint:ignore U1000 present to show that unexported fields are skipped
	unexposed string
}

func TestAppend_FlattensEveryKind(t *testing.T) {
	f := false
	zero := 0
	p := &chargeLike{
		embedded: embedded{Locale: "de"},
		User:     "1001",
		Card:     &cardInput{Number: "4242424242424242", Month: 7},
		Price:    decimal.RequireFromString("1234567.10"),
		ThreeDS:  true,
		Verify:   &f,
		Interval: &zero,
		ID:       1000000000000000001,
		Limit:    50,
		From:     time.Date(2026, 11, 1, 10, 0, 0, 0, time.FixedZone("CET", 3600)),
		Code:     "123",
		Attrs:    map[string]string{"realm": "eu", "campaign": "x y"},
		Extra:    map[string]string{"firstName": "Jane"},
		Ignored:  "no",
	}
	pairs, err := Append(nil, p)
	require.NoError(t, err)
	require.Equal(t, Pairs{
		{"locale", "de"}, // embedded fields are flattened in place
		{"user", "1001"},
		{"card[number]", "4242424242424242"},
		{"card[expiration_month]", "7"},
		{"price", "1234567.10"},
		{"3ds", "1"},
		{"remember", "0"},
		{"verify_card", "0"},
		{"recurring_interval", "0"},
		{"id", "1000000000000000001"},
		{"limit", "50"},
		{"created[from]", "2026-11-01T09:00:00Z"},
		{"security_code", "123"},
		{"attr_campaign", "x y"},
		{"attr_realm", "eu"},
		{"firstName", "Jane"},
	}, pairs)
}

func TestAppend_DecimalIsPlainNeverExponent(t *testing.T) {
	type p struct {
		Price decimal.Decimal `url:"price"`
	}
	for in, want := range map[string]string{
		"1e3":                    "1000",
		"0.0000001":              "0.0000001",
		"12345678901234567890.5": "12345678901234567890.5",
		"10.50":                  "10.50",
	} {
		pairs, err := Append(nil, p{decimal.RequireFromString(in)})
		require.NoError(t, err)
		require.Equal(t, want, pairs[0].Value, in)
	}
}

func TestAppend_NilAndOmitted(t *testing.T) {
	pairs, err := Append(nil, (*chargeLike)(nil))
	require.NoError(t, err)
	require.Empty(t, pairs)

	pairs, err = Append(nil, &chargeLike{})
	require.NoError(t, err)
	require.Equal(t, Pairs{{"user", ""}, {"price", "0"}, {"remember", "0"}}, pairs,
		"nil pointers are never sent, omitempty drops zero values, the rest is sent")
}

func TestAppend_RejectsUnsupportedTypes(t *testing.T) {
	type bad struct {
		F float64 `url:"price"`
	}
	_, err := Append(nil, bad{})
	require.ErrorContains(t, err, "unsupported type float64")
	_, err = Append(nil, 42)
	require.Error(t, err)
	type badMap struct {
		M map[string]string `url:"m"`
	}
	_, err = Append(nil, badMap{})
	require.ErrorContains(t, err, "prefix or inline")
}

func TestAppendEncoded_MatchesNetURL(t *testing.T) {
	pairs := Pairs{
		{"card[number]", "4242 4242"},
		{"description", "Оплата & co=1+2/3?"},
		{"empty", ""},
		{"tilde", "a~b-c_d.e"},
	}
	got := string(AppendEncoded(nil, pairs))
	parsed, err := url.ParseQuery(got)
	require.NoError(t, err)
	for _, p := range pairs {
		require.Equal(t, p.Value, parsed.Get(p.Key))
	}
	want := url.Values{}
	for _, p := range pairs {
		want.Add(p.Key, p.Value)
	}
	require.Equal(t, want.Encode(), got, "same escaping as net/url (pairs here are in key order)")
}

func BenchmarkAppend(b *testing.B) {
	zero := 0
	p := &chargeLike{User: "1001", Card: &cardInput{Number: "4242424242424242", Month: 7},
		Price: decimal.RequireFromString("10.00"), Interval: &zero}
	dst := make(Pairs, 0, 32)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var err error
		dst, err = Append(dst[:0], p)
		if err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzDecimalString holds the direct formatting of amounts to what
// decimal's own StringFixed (or String, for a non-negative exponent)
// writes.
func FuzzDecimalString(f *testing.F) {
	for _, seed := range []string{"0", "0.00", "-0.05", "149.90", "1e3", "0e2", "-12.5", "0.0000001",
		"999999999999999999", "-999999999999999999.99", "123456789012345678901", "1e-18", "5e-19"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := decimal.NewFromString(s)
		if err != nil || d.Exponent() < -1000 || d.Exponent() > 1000 {
			return
		}
		want := d.String()
		if e := d.Exponent(); e < 0 {
			want = d.StringFixed(-e)
		}
		if got := decimalString(d); got != want {
			t.Fatalf("decimalString(%s) = %q, want %q", s, got, want)
		}
	})
}

func TestAppend_NamedMapTypeIsSortedLikeAPlainMap(t *testing.T) {
	type attributes map[string]string
	type p struct {
		Attrs attributes `url:"attr_,prefix"`
	}
	for _, v := range []any{p{attributes{"b": "2", "a": "1"}}, &p{attributes{"b": "2", "a": "1"}}} {
		pairs, err := Append(nil, v)
		require.NoError(t, err)
		require.Equal(t, Pairs{{"attr_a", "1"}, {"attr_b", "2"}}, pairs)
	}
}
