package paygate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

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
// "transactions[2].price").
func checkMoney(v reflect.Value, path string) (string, error) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", nil
		}
		return checkMoney(v.Elem(), path)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if field, err := checkMoney(v.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return field, err
			}
		}
	case reflect.Struct:
		if v.Type() == decimalType {
			if !v.CanInterface() {
				return "", nil // behind an unexported embedded struct: no response type has one
			}
			return path, checkDecodedAmount(v.Interface().(decimal.Decimal))
		}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := path
			if !f.Anonymous {
				tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if tag == "-" {
					continue
				}
				if tag == "" {
					tag = f.Name
				}
				if name != "" {
					name += "."
				}
				name += tag
			}
			if field, err := checkMoney(v.Field(i), name); err != nil {
				return field, err
			}
		}
	}
	return "", nil
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

// successPresent reports whether a JSON object carries a non-null
// "success". The answers whose meaning hangs on it (charges, reversals,
// payouts) require it: read as false when absent, a broken body would pass
// for a declined request, which tells the merchant nothing happened.
func successPresent(b []byte) bool {
	var probe struct {
		Success json.RawMessage `json:"success"`
	}
	return json.Unmarshal(b, &probe) == nil && len(probe.Success) > 0 && string(probe.Success) != "null"
}
