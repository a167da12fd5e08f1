// Package formenc flattens request parameter structs into ordered key/value
// pairs and writes them as an application/x-www-form-urlencoded string.
//
// The tags follow go-querystring's `url:"name,omitempty"` convention so the
// parameter structs read the same, but the walk is done here because the
// gateway needs three things go-querystring cannot give: decimal.Decimal
// values written as plain strings (go-querystring silently emits nothing for
// them, since it recurses into their unexported fields), booleans always as
// 1/0, and flat `attr_<name>` keys from a map. The field plan of each struct
// type is computed once and cached, so encoding a request does no tag parsing.
//
// Supported field kinds: strings, booleans, signed and unsigned integers,
// decimal.Decimal (plain, with the fraction digits it was given), time.Time
// (RFC 3339, UTC), nested structs (as
// scope[name]), pointers to any of these (nil is never sent), and
// map[string]string with the "prefix" option (keys written as name+key, in
// sorted order) or the "inline" option (keys written as they are). A type
// given to Register writes its own parameters.
package formenc

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
)

// Pair is one parameter as it is sent.
type Pair struct {
	Key   string
	Value string
}

// Pairs is an ordered list of parameters.
type Pairs []Pair

// Get returns the first value of key, and whether it is present.
func (p Pairs) Get(key string) (string, bool) {
	for _, kv := range p {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}

type kind uint8

const (
	kString kind = iota
	kBool
	kInt
	kUint
	kDecimal
	kTime
	kStruct
	kPrefixMap
	kInlineMap
	kRegistered
)

type field struct {
	index     int
	key       string
	kind      kind
	omitEmpty bool
	ptr       bool    // the field is a pointer to its kind
	nested    []field // for kStruct
	scope     string  // for kRegistered: the scope its parameters are named in
	encode    encoder // for kRegistered
}

// encoder writes a registered type's parameters under the field's key, or
// under names scoped as that key is (see Register).
type encoder func(dst Pairs, key string, name func(string) string, v reflect.Value) Pairs

// registered maps a type given to Register to its encoder.
var registered sync.Map // reflect.Type -> encoder

// Register makes fields of type T write their own parameters with fn, which
// gets the field's key and value, and name, the function that scopes a
// parameter name as the key is scoped ("number" to "card[number]" inside a
// card object), for a type that writes more than one. It is meant for
// types whose value fmt must not reach by reflection, such as secrets kept
// behind a pointer, and must be called before the first Append of a struct
// holding T (from an init function).
func Register[T any](fn func(dst Pairs, key string, name func(string) string, v T) Pairs) {
	registered.Store(reflect.TypeFor[T](), encoder(func(dst Pairs, key string, name func(string) string, v reflect.Value) Pairs {
		return fn(dst, key, name, valueOf[T](v))
	}))
}

// scoped names a parameter inside scope.
func scoped(scope, name string) string {
	if scope == "" {
		return name
	}
	return scope + "[" + name + "]"
}

var (
	plans         sync.Map // reflect.Type -> []field
	decimalType   = reflect.TypeOf(decimal.Decimal{})
	timeType      = reflect.TypeOf(time.Time{})
	stringMapType = reflect.TypeOf(map[string]string(nil))
)

// Append flattens v (a struct or a pointer to one; nil appends nothing) onto dst.
func Append(dst Pairs, v any) (Pairs, error) {
	if v == nil {
		return dst, nil
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return dst, nil
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return dst, fmt.Errorf("form: cannot encode %s, want a struct", rv.Type())
	}
	fields, err := planFor(rv.Type())
	if err != nil {
		return dst, err
	}
	return appendFields(dst, rv, fields), nil
}

func planFor(t reflect.Type) ([]field, error) {
	if p, ok := plans.Load(t); ok {
		return p.([]field), nil
	}
	fields, err := buildPlan(t, "")
	if err != nil {
		return nil, err
	}
	plans.Store(t, fields)
	return fields, nil
}

func buildPlan(t reflect.Type, scope string) ([]field, error) {
	var fields []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("url")
		if tag == "-" || (!sf.IsExported() && !sf.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		f := field{index: i, omitEmpty: hasOpt(opts, "omitempty")}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			f.ptr = true
			ft = ft.Elem()
		}
		if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			nested, err := buildPlan(ft, scope)
			if err != nil {
				return nil, err
			}
			f.kind, f.nested = kStruct, nested
			fields = append(fields, f)
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f.key = scoped(scope, name)
		if enc, ok := registered.Load(ft); ok {
			f.kind, f.scope, f.encode = kRegistered, scope, enc.(encoder)
			fields = append(fields, f)
			continue
		}
		switch {
		case ft == decimalType:
			f.kind = kDecimal
		case ft == timeType:
			f.kind = kTime
		case ft.Kind() == reflect.String:
			f.kind = kString
		case ft.Kind() == reflect.Bool:
			f.kind = kBool
		case ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Int64:
			f.kind = kInt
		case ft.Kind() >= reflect.Uint && ft.Kind() <= reflect.Uint64:
			f.kind = kUint
		case ft.Kind() == reflect.Map && ft.ConvertibleTo(stringMapType):
			switch {
			case hasOpt(opts, "prefix"):
				f.kind = kPrefixMap
			case hasOpt(opts, "inline"):
				f.kind = kInlineMap
			default:
				return nil, fmt.Errorf("form: map field %s needs the prefix or inline option", sf.Name)
			}
		case ft.Kind() == reflect.Struct:
			nested, err := buildPlan(ft, f.key)
			if err != nil {
				return nil, err
			}
			f.kind, f.nested = kStruct, nested
		default:
			return nil, fmt.Errorf("form: field %s has unsupported type %s", sf.Name, sf.Type)
		}
		fields = append(fields, f)
	}
	return fields, nil
}

func hasOpt(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

func appendFields(dst Pairs, v reflect.Value, fields []field) Pairs {
	for i := range fields {
		f := &fields[i]
		fv := v.Field(f.index)
		if f.ptr {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		switch f.kind {
		case kStruct:
			dst = appendFields(dst, fv, f.nested)
		case kString:
			if s := fv.String(); s != "" || !f.omitEmpty {
				dst = append(dst, Pair{f.key, s})
			}
		case kBool:
			switch {
			case fv.Bool():
				dst = append(dst, Pair{f.key, "1"})
			case !f.omitEmpty || f.ptr:
				dst = append(dst, Pair{f.key, "0"})
			}
		case kInt:
			if n := fv.Int(); n != 0 || !f.omitEmpty || f.ptr {
				dst = append(dst, Pair{f.key, strconv.FormatInt(n, 10)})
			}
		case kUint:
			if n := fv.Uint(); n != 0 || !f.omitEmpty || f.ptr {
				dst = append(dst, Pair{f.key, strconv.FormatUint(n, 10)})
			}
		case kDecimal:
			d := valueOf[decimal.Decimal](fv)
			if !d.IsZero() || !f.omitEmpty || f.ptr {
				dst = append(dst, Pair{f.key, decimalString(d)})
			}
		case kTime:
			t := valueOf[time.Time](fv)
			if !t.IsZero() || !f.omitEmpty {
				dst = append(dst, Pair{f.key, t.UTC().Format(time.RFC3339)})
			}
		case kPrefixMap, kInlineMap:
			dst = appendMap(dst, fv, f)
		case kRegistered:
			dst = f.encode(dst, f.key, func(name string) string { return scoped(f.scope, name) }, fv)
		}
	}
	return dst
}

func appendMap(dst Pairs, m reflect.Value, f *field) Pairs {
	if m.Type() != stringMapType {
		m = m.Convert(stringMapType) // a named map type; copies the field
	}
	start := len(dst)
	for k, v := range m.Interface().(map[string]string) {
		if f.kind == kPrefixMap {
			k = f.key + k
		}
		dst = append(dst, Pair{k, v})
	}
	slices.SortFunc(dst[start:], func(a, b Pair) int { return strings.Compare(a.Key, b.Key) })
	return dst
}

// valueOf returns the T that v holds. Through a pointer when v is
// addressable (as the fields of a params struct passed by pointer are), so
// that the value is not copied into an interface, which allocates.
func valueOf[T any](v reflect.Value) T {
	if v.CanAddr() {
		return *v.Addr().Interface().(*T)
	}
	return v.Interface().(T)
}

// decimalString writes d without an exponent and with the fraction digits it
// was given ("149.90" stays "149.90"), so what the merchant wrote is what is
// sent and signed. Amounts whose digits fit in an int64, which is every
// amount the gateway takes, are written directly; StringFixed, which
// allocates several times, handles the rest.
func decimalString(d decimal.Decimal) string {
	e := d.Exponent()
	if d.NumDigits() > 18 || e < -18 || e > 18 {
		if e < 0 {
			return d.StringFixed(-e)
		}
		return d.String()
	}
	c := d.CoefficientInt64()
	var buf [48]byte
	b := buf[:0]
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	if e >= 0 {
		b = strconv.AppendInt(b, c, 10)
		for range e {
			b = append(b, '0')
		}
		if c == 0 {
			b = b[:len(b)-int(e)] // zero is "0" whatever its exponent
		}
		return string(b)
	}
	var digits [20]byte
	ds := strconv.AppendInt(digits[:0], c, 10)
	if frac := int(-e); len(ds) > frac {
		b = append(b, ds[:len(ds)-frac]...)
		b = append(b, '.')
		b = append(b, ds[len(ds)-frac:]...)
	} else {
		b = append(b, '0', '.') // 0.05: zeros between the point and the digits
		for range frac - len(ds) {
			b = append(b, '0')
		}
		b = append(b, ds...)
	}
	return string(b)
}

// AppendEncoded writes pairs as an application/x-www-form-urlencoded string
// onto dst, keys in the order given.
func AppendEncoded(dst []byte, pairs Pairs) []byte {
	for i, kv := range pairs {
		if i > 0 {
			dst = append(dst, '&')
		}
		dst = appendEscaped(dst, kv.Key)
		dst = append(dst, '=')
		dst = appendEscaped(dst, kv.Value)
	}
	return dst
}

const upperhex = "0123456789ABCDEF"

// appendEscaped escapes s as url.QueryEscape does, without allocating.
func appendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '~':
			dst = append(dst, c)
		case c == ' ':
			dst = append(dst, '+')
		default:
			dst = append(dst, '%', upperhex[c>>4], upperhex[c&15])
		}
	}
	return dst
}
