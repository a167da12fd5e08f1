package paygate

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/shopspring/decimal"
)

// Limits on what a response may hold, so that a broken or hostile answer
// (a proxy's garbage, a misconfigured gateway) is an error rather than a
// value that hangs the merchant's program or passes for a real amount.
const (
	// maxDigitRun bounds a run of digits anywhere in a body. Parsing a
	// decimal is quadratic in its length (a million digits take seconds),
	// and no id or amount the gateway sends has more than a few dozen.
	maxDigitRun = 1000
	// maxMoneyIntegerDigits and maxMoneyFractionDigits bound a decoded
	// amount: the gateway's amounts are decimal(12,2) and decimal(12,4).
	maxMoneyIntegerDigits  = 30
	maxMoneyFractionDigits = 30
)

var errNullBody = errors.New("the body is JSON null")

// screenBody rejects a body before it is decoded: JSON null (which would
// decode as "nothing" into every type) and absurdly long numbers.
func screenBody(body []byte) error {
	if string(bytes.TrimSpace(body)) == "null" {
		return errNullBody
	}
	run := 0
	for _, c := range body {
		if '0' <= c && c <= '9' {
			if run++; run > maxDigitRun {
				return fmt.Errorf("a number of more than %d digits", maxDigitRun)
			}
		} else {
			run = 0
		}
	}
	return nil
}

var decimalType = reflect.TypeFor[decimal.Decimal]()

// checkMoney walks a decoded response and rejects any amount beyond the
// limits above, returning the JSON path of the first one (for example
// "transactions[2].price"). It only visits fields that can hold an amount,
// and builds the path only for the amount at fault, so a valid response
// costs no allocations.
func checkMoney(v reflect.Value) (string, error) {
	path, err := moneyAt(v)
	return strings.TrimPrefix(path, "."), err
}

func moneyAt(v reflect.Value) (string, error) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", nil
		}
		return moneyAt(v.Elem())
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if path, err := moneyAt(v.Index(i)); err != nil {
				return "[" + strconv.Itoa(i) + "]" + path, err
			}
		}
	case reflect.Struct:
		if v.Type() == decimalType {
			return "", checkDecodedAmount(decimalOf(v))
		}
		for _, f := range moneyFields(v.Type()) {
			if path, err := moneyAt(v.Field(f.index)); err != nil {
				if f.name != "" {
					path = "." + f.name + path
				}
				return path, err
			}
		}
	}
	return "", nil
}

func decimalOf(v reflect.Value) decimal.Decimal {
	if v.CanAddr() {
		return *v.Addr().Interface().(*decimal.Decimal)
	}
	return v.Interface().(decimal.Decimal)
}

// moneyField is a field of a response struct that holds an amount, or may
// hold one deeper down; name is its JSON name, empty for an embedded struct.
type moneyField struct {
	index int
	name  string
}

var moneyPlans sync.Map // reflect.Type -> []moneyField

func moneyFields(t reflect.Type) []moneyField {
	if plan, ok := moneyPlans.Load(t); ok {
		return plan.([]moneyField)
	}
	var plan []moneyField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || !holdsMoney(f.Type, map[reflect.Type]bool{}) {
			continue
		}
		name := ""
		if !f.Anonymous {
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == "-" {
				continue
			}
			if name = tag; name == "" {
				name = f.Name
			}
		}
		plan = append(plan, moneyField{index: i, name: name})
	}
	moneyPlans.Store(t, plan)
	return plan
}

// holdsMoney reports whether a value of type t can contain a decimal.
func holdsMoney(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsMoney(t.Elem(), seen)
	case reflect.Struct:
		if t == decimalType {
			return true
		}
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holdsMoney(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

func checkDecodedAmount(d decimal.Decimal) error {
	exp := int(d.Exponent())
	switch {
	case exp < -maxMoneyFractionDigits:
		return fmt.Errorf("an amount with more than %d decimals", maxMoneyFractionDigits)
	case !d.IsZero() && d.NumDigits()+exp > maxMoneyIntegerDigits:
		return fmt.Errorf("an amount of more than %d digits", maxMoneyIntegerDigits)
	}
	return nil
}
