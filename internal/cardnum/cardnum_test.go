package cardnum

import "testing"

func TestValid(t *testing.T) {
	for number, want := range map[string]bool{
		"4242424242424242":     true,
		"4000000000003220":     true,
		"5555555555554444":     true,
		"4242424242424241":     false, // Luhn
		"4242 4242 4242 4242":  false, // separators
		"42424242424":          false, // too short
		"42424242424242424242": false, // too long
		"":                     false,
		"４２４２４２４２４２４２４２４２": false, // full-width digits
	} {
		if got := Valid(number); got != want {
			t.Errorf("Valid(%q) = %v, want %v", number, got, want)
		}
	}
}
