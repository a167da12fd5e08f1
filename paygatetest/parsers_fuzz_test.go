package paygatetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// FuzzFlattenJSON: any body is read or refused, never a panic, within a
// budget of time and memory per byte; what is read is what encoding/json
// reads of it (see referenceFlatten), within the bounds, and every number
// keeps its literal text.
func FuzzFlattenJSON(f *testing.F) {
	for _, seed := range []string{
		`{"project":"p","id":1000000000000000001,"card":{"number":"4242424242424242","expiration_month":12},"remember":true,"x":false,"y":null}`,
		`{"a":[1,{"b":2.50}],"c":-1e3}`,
		`[]`, `{`, `{"a":1}{"b":2}`, ``, `  `, `{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":1}}}}}}}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var params url.Values
		var err error
		read := func() { params, err = flattenJSON(bytes.NewReader(body)) }
		// A second read over the time budget is the reader's fault, not a
		// pause of a machine shared with other work.
		if took := timed(read); took > time.Second && timed(read) > time.Second {
			t.Fatalf("%d bytes took %v to read, twice", len(body), took)
		}
		allocated := allocatedBy(read)
		// A buffer and the kept keys and values; never a multiple of the
		// body per value, as a reader that rebuilds long keys spends.
		if budget := uint64(readBuffer + 64<<10 + 8*len(body)); allocated > budget {
			t.Fatalf("%d bytes cost %d bytes of memory, the budget is %d", len(body), allocated, budget)
		}
		want, wantErr := referenceFlatten(body)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%q: read %v (%v), the reference reads %v (%v)", body, params, err, want, wantErr)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(params, want) {
			t.Fatalf("read %q as %v, the reference reads %v", body, params, want)
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

// timed returns how long f took.
func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// allocatedBy returns the bytes allocated while f ran.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// referenceFlatten reads body as flattenJSON does, but with
// encoding/json's tokenizer and with the bounds checked on what it built:
// the reading the sandbox had before its reader was bounded, kept to check
// the bounded one.
func referenceFlatten(body []byte) (url.Values, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	r := reference{dec: dec, out: url.Values{}}
	tok, err := dec.Token()
	switch {
	case errors.Is(err, io.EOF):
		return r.out, nil
	case err != nil:
		return nil, err
	case tok != json.Delim('{'):
		return nil, errors.New("not an object")
	}
	if err := r.value("", tok, 1); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the object")
	}
	return r.out, nil
}

type reference struct {
	dec    *json.Decoder
	out    url.Values
	values int
}

// value reads the value that starts with tok under key.
func (r *reference) value(key string, tok json.Token, depth int) error {
	if len(key) > maxKeyLength {
		return errors.New("key too long")
	}
	switch v := tok.(type) {
	case json.Delim:
		return r.container(key, v, depth)
	case string:
		r.out.Add(key, v)
	case json.Number:
		r.out.Add(key, string(v))
	case bool:
		r.out.Add(key, map[bool]string{true: "1"}[v])
	default:
		r.out.Add(key, "")
	}
	if v := r.out[key]; len(v[len(v)-1]) > maxParamLength {
		return errors.New("value too long")
	}
	return nil
}

// container reads the members or elements of an object or array.
func (r *reference) container(key string, open json.Delim, depth int) error {
	if depth > maxJSONDepth {
		return errors.New("too deep")
	}
	for i := 0; r.dec.More(); i++ {
		name := "[" + strconv.Itoa(i) + "]"
		if open == '{' {
			t, err := r.dec.Token()
			if err != nil {
				return err
			}
			if name = t.(string); key != "" {
				name = "[" + name + "]"
			}
		}
		if r.values++; r.values > maxParams {
			return errors.New("too many values")
		}
		t, err := r.dec.Token()
		if err != nil {
			return err
		}
		if err := r.value(key+name, t, depth+1); err != nil {
			return err
		}
	}
	_, err := r.dec.Token()
	return err
}

// FuzzReadForm: any query string or form body is read as url.ParseQuery
// reads it, or refused; refused only past a bound or where ParseQuery
// fails too, and within a budget of memory per byte.
func FuzzReadForm(f *testing.F) {
	for _, seed := range []string{
		"project=p&signature=s&card%5Bnumber%5D=4242+4242&a=1&a=2", "", "&&=&a", "a=1;b=2", "a=%zz", "x=" + strings.Repeat("v", 4097),
		strings.Repeat("k", 257) + "=1", strings.Repeat("a=&", 300),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, form string) {
		p := paramReader{out: url.Values{}}
		var err error
		allocated := allocatedBy(func() { err = p.form(strings.NewReader(form)) })
		if budget := uint64(64<<10 + 8*len(form)); allocated > budget {
			t.Fatalf("%d bytes cost %d bytes of memory, the budget is %d", len(form), allocated, budget)
		}
		want, wantErr := url.ParseQuery(form)
		if err == nil {
			if wantErr != nil || !reflect.DeepEqual(p.out, want) {
				t.Fatalf("read %q as %v, ParseQuery reads %v (%v)", form, p.out, want, wantErr)
			}
			return
		}
		if wantErr == nil && withinBounds(want) {
			t.Fatalf("%q refused (%v), but ParseQuery reads it within the bounds: %v", form, err, want)
		}
	})
}

// withinBounds reports whether params keep the bounds on names, values and
// their number.
func withinBounds(params url.Values) bool {
	n := 0
	for k, vs := range params {
		n += len(vs)
		if len(k) > maxKeyLength {
			return false
		}
		for _, v := range vs {
			if len(v) > maxParamLength {
				return false
			}
		}
	}
	return n <= maxParams
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

// FuzzParseFilterTime: any text is a time or refused, never a panic; a
// value no longer than maxFilterTimeLength is read as referenceFilterTime
// reads it, a longer one is refused.
func FuzzParseFilterTime(f *testing.F) {
	for _, seed := range []string{
		"2026-03-01T12:00:00Z", "2026-03-01T12:00:00 01:00", "20260301T12:00:00+03:00", "1772366400", "2026-03-01",
		"2026-03-01 12:00:00 00 00 00", "2026-03-01 12:00:00 0300", "2026-03-01T12:00:00.123456789 03:00", "2026-03-01T12:00:00 03:00 ",
		"+1772366400", " 1772366400", "2026-03-01T12:00:00." + strings.Repeat("0", 60) + "Z",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, ok := parseFilterTime(v)
		if len(v) > maxFilterTimeLength {
			if ok {
				t.Fatalf("%d bytes read as %v, beyond the bound", len(v), got)
			}
			return
		}
		want, wantOK := referenceFilterTime(v)
		if ok != wantOK || !got.Equal(want) {
			t.Fatalf("%q read as %v (%v), the reference reads %v (%v)", v, got, ok, want, wantOK)
		}
	})
}

// TestParseFilterTime_SpacesCostNoMoreThanTheValue: a value full of spaces,
// each of which may be a "+" a query string turned into a space, costs no
// more memory than the value itself, not a copy of it per space.
func TestParseFilterTime_SpacesCostNoMoreThanTheValue(t *testing.T) {
	for _, v := range []string{
		strings.Repeat(" ", 4<<10),
		"2026-03-01T12:00:00" + strings.Repeat(" ", 4<<10-19),
		"2026-03-01 12:00:00" + strings.Repeat(" 1", 2<<10-10),
	} {
		var ok bool
		allocated := allocatedBy(func() { _, ok = parseFilterTime(v) })
		if ok {
			t.Errorf("%d bytes of spaces read as a time", len(v))
		}
		if allocated > uint64(len(v)) {
			t.Errorf("%d bytes cost %d bytes of memory, more than the value", len(v), allocated)
		}
	}
}

// referenceFilterTime reads v as parseFilterTime did before its value was
// bounded: trying again after each space after the date, from the last,
// turned into a "+", kept to check the bounded reading.
func referenceFilterTime(v string) (time.Time, bool) {
	if t, ok := readFilterTime(v); ok {
		return t, true
	}
	if i := strings.LastIndexByte(v, ' '); i > len("2006-01-02") {
		return referenceFilterTime(v[:i] + "+" + v[i+1:])
	}
	return time.Time{}, false
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
