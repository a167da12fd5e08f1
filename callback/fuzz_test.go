package callback

import (
	"errors"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/paygate/paygate-go/internal/signing"
	"github.com/shopspring/decimal"
)

// FuzzParseCallbackRequest feeds arbitrary bodies to the parser. It must
// never panic, must accept only bodies whose signature verifies, and, once
// the same fields are signed correctly, must either decode them faithfully
// or reject them as malformed; never as a signature failure. The seed
// corpus is in testdata/fuzz/FuzzParseCallbackRequest.
func FuzzParseCallbackRequest(f *testing.F) {
	for _, name := range callbackFixtureNames {
		f.Add(fixture(f, "callbacks/"+name))
	}
	v := testVerifier(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		cb, err := v.ParseRequest(callbackRequest(string(body)))
		if err == nil {
			values, perr := url.ParseQuery(string(body))
			if perr != nil || signing.New(testSecret).Verify(values) != nil {
				t.Fatalf("accepted a body whose signature does not verify: %q", body)
			}
			checkDecoded(t, cb, values)
		} else if cb != nil {
			t.Fatalf("returned a callback with error %v", err)
		}

		values, err := url.ParseQuery(string(body))
		if err != nil {
			return
		}
		values.Del(signing.Param)
		values.Set(signing.Param, sign(values, testSecret))
		cb, err = v.ParseRequest(callbackRequest(values.Encode()))
		switch {
		case err == nil:
			checkDecoded(t, cb, values)
		case errors.Is(err, ErrSignatureMissing), errors.Is(err, ErrSignatureInvalid):
			t.Fatalf("rejected a correctly signed body: %v", err)
		case !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooLarge):
			t.Fatalf("unexpected error: %v", err)
		}
	})
}

// FuzzCallbackTamper changes, adds or drops one field of a genuine signed
// callback (one of the fixtures) and requires the result to be rejected:
// whatever the change, a callback whose values differ from what the gateway
// signed is never accepted. (Moving values between fields keeps them the
// same and does verify; see TestCallback_SwappedValuesStillVerify.) The
// seed corpus is in testdata/fuzz/FuzzCallbackTamper.
func FuzzCallbackTamper(f *testing.F) {
	f.Add(uint8(0), "status", "completed", false)
	f.Add(uint8(1), "price", "100.0000", false)
	f.Add(uint8(3), "reason", "", true)
	f.Add(uint8(4), "attr_realm", "x", false)
	v := testVerifier(f)
	bodies := make([]string, len(callbackFixtureNames))
	for i, name := range callbackFixtureNames {
		bodies[i] = callbackFixture(f, name)
	}
	f.Fuzz(func(t *testing.T, which uint8, field, value string, drop bool) {
		values, err := url.ParseQuery(bodies[int(which)%len(bodies)])
		if err != nil {
			t.Fatal(err)
		}
		if field == signing.Param {
			return
		}
		old, present := values[field]
		switch {
		case drop && !present:
			return
		case drop:
			values.Del(field)
		case present && len(old) == 1 && old[0] == value:
			return // unchanged
		default:
			values[field] = []string{value}
		}
		cb, err := v.ParseValues(values)
		if !errors.Is(err, ErrSignatureInvalid) || cb != nil {
			t.Fatalf("changed field %q (drop=%v) was not rejected as a bad signature: %v", field, drop, err)
		}
		if cb, err := v.ParseRequest(callbackRequest(values.Encode())); err == nil || cb != nil {
			t.Fatalf("changed field %q (drop=%v) was accepted through a request", field, drop)
		}
	})
}

// checkDecoded requires the typed callback to say what its fields say.
func checkDecoded(t *testing.T, cb *Callback, values url.Values) {
	t.Helper()
	// Both are present; either may be empty ("all parameters are present
	// but may be empty"), an empty id reading as zero.
	if !values.Has("id") || !values.Has("status") {
		t.Fatalf("accepted without an id or a status: %v", values)
	}
	if s := values.Get("id"); s == "" {
		if cb.ID != 0 {
			t.Fatalf("empty id decoded as %d", cb.ID)
		}
	} else if id, err := strconv.ParseInt(s, 10, 64); err != nil || ID(id) != cb.ID || cb.ID < 0 {
		t.Fatalf("id %q decoded as %d", s, cb.ID)
	}
	if string(cb.Status) != values.Get("status") {
		t.Fatalf("status %q decoded as %q", values.Get("status"), cb.Status)
	}
	if cb.OrderID != values.Get("order_id") || string(cb.User) != values.Get("user") || cb.Currency != values.Get("currency") {
		t.Fatal("string fields changed in decoding")
	}
	for name, got := range map[string]decimal.Decimal{
		"amount": cb.Amount, "price": cb.Price, "deposit": cb.Deposit,
		"earned": cb.Earned, "vat_rate": cb.VATRate, "vat_amount": cb.VATAmount,
	} {
		if p := values.Get(name); p != "" {
			if d, err := decimal.NewFromString(p); err != nil || !reflect.DeepEqual(d, got) {
				t.Fatalf("%s %q decoded as %#v", name, p, got)
			}
		} else if !got.IsZero() {
			t.Fatalf("empty %s decoded as %s", name, got)
		}
	}
	attrs := map[string]string{}
	for k, vs := range values {
		if name, ok := strings.CutPrefix(k, attrPrefix); ok {
			attrs[name] = vs[0]
		}
	}
	if len(attrs) > 0 && !reflect.DeepEqual(attrs, cb.Attrs) || len(attrs) == 0 && cb.Attrs != nil {
		t.Fatalf("attributes %v decoded as %v", attrs, cb.Attrs)
	}
	for k, vs := range values {
		if len(vs) != 1 {
			t.Fatalf("accepted field %q sent %d times", k, len(vs))
		}
		if cb.Value(k) != vs[0] {
			t.Fatalf("raw field %q changed", k)
		}
	}
}

// FuzzParseCallbackForm requires parseCallbackForm to read every body
// exactly as url.ParseQuery does, and to reject the same bodies.
func FuzzParseCallbackForm(f *testing.F) {
	for _, name := range callbackFixtureNames {
		f.Add(string(fixture(f, "callbacks/"+name)))
	}
	for _, body := range []string{"", "&&", "a=1&a=2&b", "=x&k=", "a=%zz", "a;b=1", "a=1;", "x=%E2%82%AC+1&y=a+b", "a=1&b=%41&c=x+y&d=2"} {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		got, err := parseCallbackForm(body)
		want, werr := url.ParseQuery(body)
		if (err == nil) != (werr == nil) {
			t.Fatalf("parseCallbackForm error %v, url.ParseQuery error %v", err, werr)
		}
		if err == nil && !reflect.DeepEqual(got.values(), want) {
			t.Fatalf("parseCallbackForm = %v, url.ParseQuery = %v", got, want)
		}
	})
}
