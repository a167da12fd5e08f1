package paygate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// Every transaction status models.go declares is Known: a status added to
// the constants but not to Known would be treated as one the spec does not
// list, kept as sent and never confirmed.
func TestStatus_EveryConstantIsKnown(t *testing.T) {
	t.Parallel()
	file, err := parser.ParseFile(token.NewFileSet(), "models.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(file, func(node ast.Node) bool {
		vs, ok := node.(*ast.ValueSpec)
		if !ok || identName(vs.Type) != "Status" {
			return true
		}
		for i, name := range vs.Names {
			lit, ok := vs.Values[i].(*ast.BasicLit)
			if !ok {
				t.Fatalf("%s is not a string literal", name.Name)
			}
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			n++
			if !Status(v).Known() {
				t.Errorf("%s (%q) is not Known: add it to Status.Known", name.Name, v)
			}
		}
		return true
	})
	if n == 0 {
		t.Fatal("models.go declares no Status constant: has its layout changed?")
	}
}
