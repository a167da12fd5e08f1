package callback

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/paygate/paygate-go/internal/signing"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A field sent twice is malformed, whichever field it is: one the callback
// types, the signature, an attribute or any other, also among many fields.
func TestParseRequest_EveryRepeatedFieldIsMalformed(t *testing.T) {
	s := newTestCallbackSigner(testSecret, FormExtended)
	many := url.Values{}
	for i := range 20 {
		many.Set(fmt.Sprintf("x%02d", i), "v")
	}
	for _, name := range []string{"id", "price", "attr_realm", "extra", "x07"} {
		t.Run(name, func(t *testing.T) {
			extra := url.Values{}
			for k, vs := range many {
				extra[k] = vs
			}
			extra[name] = []string{"1", "2"}
			cb, err := testVerifier(t).ParseRequest(s.Request("/cb", Completed, extra))
			require.ErrorIs(t, err, ErrMalformed)
			assert.Nil(t, cb)
			assert.Contains(t, err.Error(), fmt.Sprintf("%q is sent more than once", name))
		})
	}
	body := s.Body(Completed, nil)
	cb, err := testVerifier(t).ParseRequest(callbackRequest(body + "&" + signing.Param + "=" + strings.Repeat("0", 64)))
	require.ErrorIs(t, err, ErrMalformed, "a second signature, after the one checked")
	assert.Nil(t, cb)
}

// Only the fields holding an escape are unescaped; the others are read
// as they are, before and after an escaped one.
func TestParseCallbackForm_EscapesInSomeFields(t *testing.T) {
	got, err := parseCallbackForm("a=1&b=%41%2B&c=x+y&d=2&e%3D=&&f=%7C&g")
	require.NoError(t, err)
	assert.Equal(t, callbackFields{{"a", "1"}, {"b", "A+"}, {"c", "x y"}, {"d", "2"}, {"e=", ""}, {"f", "|"}, {"g", ""}}, got)
	_, err = parseCallbackForm("a=1&b=%4")
	require.Error(t, err)
	_, err = parseCallbackForm(strings.Repeat("a=1&", maxFormFields))
	require.Error(t, err, "more fields than url.ParseQuery takes")
}

func TestCallbackFields_Lookup(t *testing.T) {
	f := callbackFields{{"a", "1"}, {"e", ""}, {"a", "2"}}
	assert.Equal(t, "1", f.Get("a"), "the first value, as url.Values.Get")
	assert.True(t, f.Has("e"))
	assert.Equal(t, "", f.Get("missing"))
	assert.False(t, f.Has("missing"))
	assert.Equal(t, url.Values{"a": {"1", "2"}, "e": {""}}, f.values())
}

// The digest is the SHA-256 of what the signature covers, whatever the
// order the fields came in.
func TestCallbackFields_DigestIsTheCanonicalString(t *testing.T) {
	f := callbackFields{{"b", "y"}, {signing.Param, "s"}, {"a", "x"}, {"c", ""}}
	want := valuesDigest(url.Values{"a": {"x"}, "b": {"y"}, "c": {""}})
	assert.Equal(t, want, f.digest())
	assert.Equal(t, want, callbackFields{{"c", ""}, {"a", "x"}, {"b", "y"}}.digest())
}

// callbackMoney gives exactly what decimal.NewFromString gives, down to
// the representation, for every plain decimal; it refuses what is not one.
func TestCallbackMoney_AsNewFromString(t *testing.T) {
	for _, s := range []string{
		"0", "0.00", "-0.00", "0.0000", "10.00", "10.0000", "9.7100", "-1.5", "007.50",
		"123456789012345678", "12345678901234567.8", "-12345678901234567", "-1234567890123456.78",
		"1234567890123456789", "0.00000000000000000", "0.000000000000000000", "999999999999999999.99",
	} {
		want, err := decimal.NewFromString(s)
		require.NoError(t, err)
		got, err := callbackMoney("price", s)
		require.NoError(t, err, s)
		assert.True(t, reflect.DeepEqual(want, got), "%s: %#v, want %#v", s, got, want)
	}
	for _, s := range []string{".5", "5.", "-", "+1", "1e3", "1.2.3", " 1", "1,5", "0x10", "--1"} {
		_, err := callbackMoney("price", s)
		assert.ErrorIs(t, err, ErrMalformed, s)
	}
}

// FuzzCallbackMoney compares callbackMoney with the reference it stands
// for: the plain-decimal check, then decimal.NewFromString.
func FuzzCallbackMoney(f *testing.F) {
	for _, s := range []string{"10.00", "-0.0000", "123456789012345678", "-12345678901234567.8", "1e3", ".5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := callbackMoney("amount", s)
		if s == "" {
			if err != nil || !got.Equal(decimal.Zero) {
				t.Fatalf("empty money: %v, %v", got, err)
			}
			return
		}
		digits := strings.TrimPrefix(s, "-")
		whole, frac, hasPoint := strings.Cut(digits, ".")
		plain := whole != "" && strings.Trim(whole, "0123456789") == "" &&
			(!hasPoint || frac != "" && strings.Trim(frac, "0123456789") == "")
		want, werr := decimal.NewFromString(s)
		switch {
		case !plain || werr != nil:
			if err == nil {
				t.Fatalf("%q accepted as %v", s, got)
			}
		case err != nil:
			t.Fatalf("%q refused: %v", s, err)
		case !reflect.DeepEqual(want, got):
			t.Fatalf("%q: %#v, want %#v", s, got, want)
		}
	})
}

// A verifier not made by NewVerifier holds no key: it accepts
// nothing, and does not panic.
func TestCallbackVerifier_ZeroValueAcceptsNothing(t *testing.T) {
	var v Verifier
	cb, err := v.ParseRequest(callbackRequest(callbackFixture(t, "extended_completed.txt")))
	require.ErrorIs(t, err, ErrSignatureInvalid)
	assert.Nil(t, cb)
}
