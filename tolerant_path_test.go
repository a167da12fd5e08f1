package paygate

import "testing"

// The decoder asks fieldPath.is, not pattern, whether an absent field is a
// required one; the two must agree on every shape of path and rule.
func TestFieldPath_IsAgreesWithPattern(t *testing.T) {
	paths := []fieldPath{
		{},
		{{name: "id"}},
		{{index: 3}},
		{{index: 0}, {name: "name"}},
		{{name: "types"}, {index: 2}, {name: "id"}},
		{{name: "transactions"}, {index: 1}, {name: "card"}, {name: "x"}},
		{{name: "transactions"}, {index: 1}, {index: 4}},
		{{name: "ids"}},
	}
	rules := []string{
		"", "id", "[]", "[].name", "[]name", ".name", "types[].id", "types[]id",
		"types[].", "types", "transactions[].card.x", "transactions[].card",
		"transactions[][]", "transactions.card.x", "id.", "ids", "i", "[].",
	}
	for _, p := range paths {
		for _, r := range rules {
			if got, want := p.is(r), p.pattern() == r; got != want {
				t.Errorf("path %q is %q = %v, want %v", p.pattern(), r, got, want)
			}
		}
	}
	if got := (fieldPath{{name: "transactions"}, {index: 12}, {name: "id"}}).String(); got != "transactions[12].id" {
		t.Errorf("String = %q, want transactions[12].id", got)
	}
}
