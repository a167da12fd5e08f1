package ascii

import "testing"

func TestDigits(t *testing.T) {
	for s, want := range map[string]bool{
		"0042": true,
		"7":    true,
		"":     false,
		"12a":  false,
		"+49":  false,
		"1.5":  false,
		"４２":   false, // full-width digits
	} {
		if got := Digits(s); got != want {
			t.Errorf("Digits(%q) = %v, want %v", s, got, want)
		}
	}
}
