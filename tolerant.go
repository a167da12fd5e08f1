package paygate

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go/internal/jsonscalar"
)

// DecodeWarning is a field of an answer that could not be read and was left
// at its zero value. Only informational fields are treated so: a field that
// decides what happened (each answer type names them in its doc comment)
// fails the call instead.
//
// Every warning is logged at warn level through the client's logger (see
// WithLogger) and is visible on the result: in the Warnings field of the
// struct results, and, for the calls that return a slice or an id, through
// [WithDecodeWarnings].
type DecodeWarning struct {
	// Field is the field's path in the answer, for example card.expiresAt
	// or transactions[2].fee.
	Field string
	// Problem says what was wrong with it, without quoting the value.
	Problem string
}

// String returns "field: problem".
func (w DecodeWarning) String() string { return w.Field + ": " + w.Problem }

// WithDecodeWarnings appends the warnings of the call's answer to *dst. It
// is the way to see them for calls whose result has no Warnings field
// (Payouts.Types, Payouts.Parameters, Users.Resolve, and the calls that
// return only an error).
func WithDecodeWarnings(dst *[]DecodeWarning) CallOption {
	return func(s *callSettings) { s.warnings = dst }
}

// decodeRules name, per endpoint (its answer field in endpoints), the fields
// that decide what happened. Paths are JSON paths with "[]" for any array
// index, for example "transactions[].id"; "" is the body itself.
type decodeRules struct {
	// required fields must be present and not null; 0, "", false and
	// "0.00" are values.
	required []string
	// essential fields, and everything inside them, must decode when
	// present. Required fields are essential too.
	essential []string
}

// warned is implemented by results that carry their decode warnings.
type warned interface{ setWarnings([]DecodeWarning) }

// tolerantDecoder decodes an answer field by field: a field that cannot be
// read is left zero and reported as a warning, unless the rules name it
// essential; a required field that is absent or null fails the decoding.
// Keys match in the field's own spelling, its snake or camel case twin
// (order_id and orderId), or, like encoding/json, without regard to case.
type tolerantDecoder struct {
	rules    *decodeRules
	warnings []DecodeWarning
	fatal    *fieldError
	// at is where the value being decoded sits; one stack, pushed and
	// popped down the recursion, so that reading a field allocates no path.
	at fieldPath
}

// decodeTolerant decodes body into out (a pointer) under rules.
func decodeTolerant(body []byte, out any, rules *decodeRules) ([]DecodeWarning, error) {
	var segs [8]pathSegment
	d := &tolerantDecoder{rules: rules, at: segs[:0]}
	if !json.Valid(body) {
		// The error of encoding/json says where, and the body is broken
		// anyway: this path need not be cheap.
		err := json.Unmarshal(body, new(struct{}))
		return nil, &fieldError{err: err}
	}
	d.value(json.RawMessage(body), reflect.ValueOf(out).Elem())
	if d.fatal != nil {
		return nil, d.fatal
	}
	return d.warnings, nil
}

// unmarshalAnswer is the UnmarshalJSON of the answer types a merchant may
// also decode with encoding/json (a page or a parameter list kept, an
// answer queued): the client's own field-by-field reading, so that the two
// cannot disagree, except that the first unreadable field is an error, as
// encoding/json has it. Fields the JSON leaves out keep their values.
func unmarshalAnswer(body []byte, out any) error {
	if string(body) == "null" {
		return nil // encoding/json's rule: null decodes to no change
	}
	var segs [8]pathSegment
	d := &tolerantDecoder{rules: &decodeRules{}, at: segs[:0]}
	d.value(json.RawMessage(body), reflect.ValueOf(out).Elem())
	switch {
	case d.fatal != nil:
		return d.fatal
	case len(d.warnings) > 0:
		return errors.New("paygate: " + d.warnings[0].String())
	}
	return nil
}

// essential reports whether the field at pattern must decode: it is
// essential or required, lies inside an essential field, or holds a
// required one (an array element that is not an object cannot hold its
// id).
func (d *tolerantDecoder) essential(pattern string) bool {
	if pattern == "" {
		return true // a body that is not what the type expects at all
	}
	for _, e := range d.rules.essential {
		if pattern == e || within(pattern, e) {
			return true
		}
	}
	for _, r := range d.rules.required {
		if pattern == r || within(r, pattern) {
			return true
		}
	}
	return false
}

// within reports whether pattern names a field inside outer.
func within(pattern, outer string) bool {
	return len(pattern) > len(outer) && strings.HasPrefix(pattern, outer) &&
		(pattern[len(outer)] == '.' || pattern[len(outer)] == '[')
}

// required reports whether the field being decoded is a required one.
func (d *tolerantDecoder) required() bool {
	for _, r := range d.rules.required {
		if d.at.is(r) {
			return true
		}
	}
	return false
}

// problem records a field that could not be read.
func (d *tolerantDecoder) problem(err error) {
	if d.essential(d.at.pattern()) {
		if d.fatal == nil {
			d.fatal = &fieldError{field: d.at.String(), err: err}
		}
		return
	}
	d.warnings = append(d.warnings, DecodeWarning{Field: d.at.String(), Problem: problemText(err)})
}

// problemText describes err without the value that caused it.
func problemText(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "cannot be read as " + te.Type.String()
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "is not valid JSON"
	}
	if errors.Is(err, errNotObject) || errors.Is(err, errNotArray) {
		return err.Error()
	}
	return "cannot be read"
}

// fieldPath is where a value sits in the answer, one segment per level
// below the body (the body itself has none). It becomes a string only when
// a field is reported, so that an answer read without problems builds none.
type fieldPath []pathSegment

// pathSegment is a member name, or (name "") an array index.
type pathSegment struct {
	name  string
	index int
}

// String returns the path with indices, for example transactions[2].id.
func (p fieldPath) String() string { return p.render(true) }

// pattern returns the path with "[]" for every index, as decodeRules
// spell them.
func (p fieldPath) pattern() string { return p.render(false) }

func (p fieldPath) render(indices bool) string {
	var b strings.Builder
	for i, seg := range p {
		switch {
		case seg.name == "" && indices:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(seg.index))
			b.WriteByte(']')
		case seg.name == "":
			b.WriteString("[]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(seg.name)
		}
	}
	return b.String()
}

// is reports whether p.pattern() == pattern, without building the pattern:
// it is asked for every field absent from an answer.
func (p fieldPath) is(pattern string) bool {
	for i, seg := range p {
		var ok bool
		switch {
		case seg.name == "":
			pattern, ok = strings.CutPrefix(pattern, "[]")
		case i > 0:
			if pattern, ok = strings.CutPrefix(pattern, "."); ok {
				pattern, ok = strings.CutPrefix(pattern, seg.name)
			}
		default:
			pattern, ok = strings.CutPrefix(pattern, seg.name)
		}
		if !ok {
			return false
		}
	}
	return pattern == ""
}

// push enters seg, below the value being decoded; pop leaves it.
func (d *tolerantDecoder) push(seg pathSegment) { d.at = append(d.at, seg) }
func (d *tolerantDecoder) pop()                 { d.at = d.at[:len(d.at)-1] }

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	errNotObject    = errors.New("is not a JSON object")
	errNotArray     = errors.New("is not a JSON array")
)

// value decodes raw into v and reports whether it did. raw is never null
// here for a field (the caller leaves null fields zero) but may be for the
// body.
func (d *tolerantDecoder) value(raw json.RawMessage, v reflect.Value) bool {
	t := v.Type()
	switch {
	case t.Kind() == reflect.Pointer:
		if string(raw) == "null" {
			return false
		}
		// An object that is not one stays nil, not an empty object.
		elem := reflect.New(t.Elem())
		if !d.value(raw, elem.Elem()) {
			return false
		}
		v.Set(elem)
	case isObject(t):
		return d.object(raw, v)
	case t.Kind() == reflect.Slice && !reflect.PointerTo(t).Implements(unmarshalerType):
		return d.array(raw, v)
	default:
		if err := decodeLeaf(raw, v); err != nil {
			v.SetZero()
			d.problem(err)
			return false
		}
	}
	return true
}

// isObject reports whether t is decoded field by field: a struct with JSON
// fields. Structs that decode themselves from a scalar (Time, decimal) are
// leaves.
func isObject(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && len(tolerantFields(t)) > 0
}

// Limits on a decoded amount, so that a broken or hostile answer's absurd
// amount is an error rather than a value that passes for a real one.
const (
	// maxMoneyIntegerDigits and maxMoneyFractionDigits bound a decoded
	// amount: the gateway's amounts are decimal(12,2) and decimal(12,4).
	maxMoneyIntegerDigits  = 30
	maxMoneyFractionDigits = 30
)

// verifyDecodedAmount rejects an amount beyond the limits above. The
// tolerant decoder applies it to every decimal it reads, so that an absurd
// amount is reported at its path (an error for an essential field, a
// warning otherwise).
func verifyDecodedAmount(d decimal.Decimal) error {
	exp := int(d.Exponent())
	switch {
	case exp < -maxMoneyFractionDigits:
		return fmt.Errorf("an amount with more than %d decimals", maxMoneyFractionDigits)
	case !d.IsZero() && d.NumDigits()+exp > maxMoneyIntegerDigits:
		return fmt.Errorf("an amount of more than %d digits", maxMoneyIntegerDigits)
	}
	return nil
}

func decodeLeaf(raw json.RawMessage, v reflect.Value) error {
	if u, ok := v.Addr().Interface().(json.Unmarshaler); ok {
		if err := u.UnmarshalJSON(raw); err != nil {
			return err
		}
		if amount, ok := u.(*decimal.Decimal); ok {
			return verifyDecodedAmount(*amount)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		s, err := jsonscalar.Text(raw)
		if err != nil {
			return err
		}
		v.SetString(s)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := jsonscalar.Int64(raw)
		if err != nil {
			return err
		}
		if v.OverflowInt(n) {
			return &json.UnmarshalTypeError{Value: "out-of-range number", Type: v.Type()}
		}
		v.SetInt(n)
	case reflect.Bool:
		b, err := jsonscalar.Bool(raw)
		if err != nil {
			return err
		}
		v.SetBool(b)
	default:
		return json.Unmarshal(raw, v.Addr().Interface())
	}
	return nil
}

// shaped reports whether raw, a valid JSON value, opens with open: a null
// reads nothing, anything else but the expected shape is a problem at path.
func (d *tolerantDecoder) shaped(raw json.RawMessage, open byte, shapeErr error) bool {
	if string(raw) == "null" {
		return false
	}
	if len(raw) == 0 || raw[0] != open {
		d.problem(shapeErr)
		return false
	}
	return true
}

func (d *tolerantDecoder) array(raw json.RawMessage, v reflect.Value) bool {
	if !d.shaped(raw, '[', errNotArray) {
		return false
	}
	elems := arrayElements(raw, make([][]byte, 0, 8))
	s := reflect.MakeSlice(v.Type(), len(elems), len(elems))
	for i, e := range elems {
		if string(e) == "null" {
			continue
		}
		d.push(pathSegment{index: i})
		d.value(e, s.Index(i))
		d.pop()
	}
	v.Set(s)
	return true
}

func (d *tolerantDecoder) object(raw json.RawMessage, v reflect.Value) bool {
	if !d.shaped(raw, '{', errNotObject) {
		return false
	}
	var buf [32]member
	members := objectMembers(raw, buf[:0])
	for _, f := range tolerantFields(v.Type()) {
		member, ok := f.lookup(members)
		d.push(pathSegment{name: f.name})
		if !ok || string(member) == "null" {
			if d.fatal == nil && d.required() {
				d.fatal = &fieldError{field: d.at.String(), err: missing(d.at.String())}
			}
		} else {
			d.value(member, v.FieldByIndex(f.index))
		}
		d.pop()
	}
	return true
}

// tolerantField is a JSON field of a struct: its name as tagged, the other
// spelling of that name, and where it is (through embedded structs).
type tolerantField struct {
	name, twin string
	index      []int
}

// lookup finds the field's member: by its name, its twin, or without
// regard to case.
// A key sent twice counts by its last value, as in encoding/json.
func (f *tolerantField) lookup(members []member) (json.RawMessage, bool) {
	for _, fold := range [...]bool{false, true} {
		for _, name := range [...]string{f.name, f.twin} {
			if name == "" {
				continue
			}
			for i := len(members) - 1; i >= 0; i-- {
				if keyIs(members[i].key, name, fold) {
					return members[i].value, true
				}
			}
		}
	}
	return nil, false
}

var fieldPlans sync.Map // reflect.Type -> []tolerantField

// tolerantFields lists the JSON fields of struct type t, those of embedded
// structs included; a field of the outer struct hides one of the same name
// inside.
func tolerantFields(t reflect.Type) []tolerantField {
	if plan, ok := fieldPlans.Load(t); ok {
		return plan.([]tolerantField)
	}
	var plan []tolerantField
	seen := map[string]bool{}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		var embedded []reflect.StructField
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
				embedded = append(embedded, f)
				continue
			}
			if !f.IsExported() || tag == "-" || tag == "" || seen[tag] {
				continue
			}
			seen[tag] = true
			plan = append(plan, tolerantField{name: tag, twin: twinSpelling(tag), index: append(append([]int(nil), index...), i)})
		}
		for _, f := range embedded {
			walk(f.Type, append(append([]int(nil), index...), f.Index...))
		}
	}
	if t.Kind() == reflect.Struct {
		walk(t, nil)
	}
	fieldPlans.Store(t, plan)
	return plan
}

// twinSpelling returns the camel case spelling of a snake case name
// (order_id: orderId) or the snake case spelling of a camel case one
// (orderId: order_id), or "" when the name has no other spelling. Names
// that start with a capital (PaReq) are left alone.
func twinSpelling(name string) string {
	if name == "" || !unicode.IsLower(rune(name[0])) {
		return ""
	}
	var b strings.Builder
	switch {
	case strings.Contains(name, "_"):
		up := false
		for _, r := range name {
			switch {
			case r == '_':
				up = true
			case up:
				b.WriteRune(unicode.ToUpper(r))
				up = false
			default:
				b.WriteRune(r)
			}
		}
	case strings.IndexFunc(name, unicode.IsUpper) > 0:
		for _, r := range name {
			if unicode.IsUpper(r) {
				b.WriteByte('_')
				r = unicode.ToLower(r)
			}
			b.WriteRune(r)
		}
	default:
		return ""
	}
	return b.String()
}
