package paygatetest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// FuzzFlattenJSON: any body is read or refused, never a panic; what is
// read was a JSON object within the bounds, and every number keeps its
// literal text.
func FuzzFlattenJSON(f *testing.F) {
	for _, seed := range []string{
		`{"project":"p","id":1000000000000000001,"card":{"number":"4242424242424242","expiration_month":12},"remember":true,"x":false,"y":null}`,
		`{"a":[1,{"b":2.50}],"c":-1e3}`,
		`[]`, `{`, `{"a":1}{"b":2}`, ``, `  `, `{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":1}}}}}}}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		params, err := flattenJSON(bytes.NewReader(body))
		if err != nil {
			return
		}
		if len(bytes.TrimSpace(body)) > 0 && !json.Valid(body) {
			t.Fatalf("read %q, which is no JSON", body)
		}
		n := 0
		for _, vs := range params {
			n += len(vs)
		}
		if n > maxParams {
			t.Fatalf("%d parameters read, the bound is %d", n, maxParams)
		}
		// Every number of the body is one of the values, to the letter.
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			if num, ok := tok.(json.Number); ok && !hasValue(params, string(num)) {
				t.Fatalf("number %s of %q was not kept as written: %v", num, body, params)
			}
		}
	})
}

func hasValue(params map[string][]string, v string) bool {
	for _, vs := range params {
		for _, x := range vs {
			if x == v {
				return true
			}
		}
	}
	return false
}

// FuzzParseAmount: an accepted amount is within the bounds and reads back
// as itself; nothing panics.
func FuzzParseAmount(f *testing.F) {
	for _, seed := range []string{"10.00", "0", "-1", "1e999999999", "999999999999999.99", "0.000000000001", strings.Repeat("9", 40), ".5", "1_000"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := parseAmount(v)
		if !ok {
			return
		}
		if !d.Abs().LessThan(maxAmount) || d.Exponent() < -maxAmountScale || len(v) > maxAmountLength {
			t.Fatalf("%q accepted as %s, beyond the bounds", v, d)
		}
		if back, err := decimal.NewFromString(d.String()); err != nil || !back.Equal(d) {
			t.Fatalf("%q read as %s, which does not read back", v, d)
		}
	})
}

// FuzzParseFilterTime: any text is a time or refused, never a panic or an
// endless loop.
func FuzzParseFilterTime(f *testing.F) {
	for _, seed := range []string{"2026-03-01T12:00:00Z", "2026-03-01T12:00:00 01:00", "20260301T12:00:00+03:00", "1772366400", "2026-03-01", "2026-03-01 12:00:00 00 00 00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		parseFilterTime(v)
	})
}

// FuzzListPaging: whatever page and limit say, the page is at least 1 and
// the limit between 1 and maxListLimit.
func FuzzListPaging(f *testing.F) {
	for _, seed := range []string{"", "0", "-1", "3", "99999999999999999999", "-99999999999999999999", "abc", "9223372036854775807"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if page, _ := listPage(v); page < 1 {
			t.Fatalf("page %q read as %d", v, page)
		}
		if limit := listLimit(v); limit < 1 || limit > maxListLimit {
			t.Fatalf("limit %q read as %d", v, limit)
		}
	})
}
