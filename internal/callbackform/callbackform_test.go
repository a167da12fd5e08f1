package callbackform

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"
)

// TestEncode_KeepsTheGatewaysFieldOrder re-encodes the callback fixtures,
// which are in the order the gateway sends (the Events table's, then
// attr_*, then the signature), and expects them back byte for byte.
func TestEncode_KeepsTheGatewaysFieldOrder(t *testing.T) {
	for _, name := range []string{"extended_completed.txt", "extended_refund_completed.txt", "basic_completed.txt", "basic_reversed.txt"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "callbacks", name))
			if err != nil {
				t.Fatal(err)
			}
			v, err := url.ParseQuery(string(raw))
			if err != nil {
				t.Fatal(err)
			}
			if got := Encode(v); got != string(raw) {
				t.Errorf("Encode =\n%s\nwant\n%s", got, raw)
			}
		})
	}
}

// TestValues_TypesMoneyByForm checks the spec's typing of the Events
// table: decimal(9,2) and decimal(12,4) strings in the extended form,
// numbers in the basic form, which has no type and no reason.
func TestValues_TypesMoneyByForm(t *testing.T) {
	f := Fields{Price: mustDecimal(t, "10.5"), Amount: mustDecimal(t, "10.5"), Earned: mustDecimal(t, "-10.5"), Reason: "r"}
	ext := Values(f)
	f.Basic = true
	basic := Values(f)
	for k, want := range map[string][2]string{"amount": {"10.50", "10.5"}, "price": {"10.5000", "10.5"}, "earned": {"-10.5000", "-10.5"}, "deposit": {"0.0000", "0"}} {
		if got := ext.Get(k); got != want[0] {
			t.Errorf("extended %s = %q, want %q", k, got, want[0])
		}
		if got := basic.Get(k); got != want[1] {
			t.Errorf("basic %s = %q, want %q", k, got, want[1])
		}
	}
	if ext.Get("type") != "transaction" || !ext.Has("reason") {
		t.Errorf("extended form without type or reason: %v", ext)
	}
	if basic.Has("type") || basic.Has("reason") {
		t.Errorf("basic form with type or reason: %v", basic)
	}
}

func mustDecimal(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
