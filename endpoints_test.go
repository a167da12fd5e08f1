package paygate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Every row of the endpoint table has its row in endpointCases, with a
// call of its own and an answer to decode: the fault, logging, decoder,
// nil-params and fuzz suites range over those rows.
func TestEndpointCases_OneRowPerEndpoint(t *testing.T) {
	t.Parallel()
	cases := endpointCases()
	if len(cases) != len(endpoints) {
		t.Errorf("%d cases for %d endpoints", len(cases), len(endpoints))
	}
	for _, name := range endpointNames() {
		ec, ok := cases[name]
		row := endpoints[name]
		switch {
		case !ok:
			t.Errorf("row %s %s: no endpointCase", row.method, row.path)
		case len(ec.calls) == 0 || ec.calls[0].call == nil:
			t.Errorf("row %s %s: no call", row.method, row.path)
		case ec.answer.fixture == "" || ec.answer.decode == nil || ec.answer.into == nil:
			t.Errorf("row %s %s: no answer to decode", row.method, row.path)
		}
	}
}

// The fault and logging suites run everyEndpointCall: a row of the
// endpoint table that no call there reaches, with the row's method, is an
// endpoint those suites never prove.
func TestEveryEndpointCallCoversEndpointTable(t *testing.T) {
	t.Parallel()
	calls := everyEndpointCall()
	for _, row := range endpoints {
		covered := false
		for _, c := range calls {
			path := c.path
			if strings.HasPrefix(row.path, "transactions/") && strings.HasPrefix(path, "transactions/") {
				path = row.path // the call's path carries a real id for {id}
			}
			if path == row.path && c.method == row.method {
				covered = true
			}
		}
		if !covered {
			t.Errorf("row %s %s: no call of everyEndpointCall sends it", row.method, row.path)
		}
	}
}

// Every row says which fields of its answer decide what happened: a row
// without them would decode any answer, however broken, as a success.
func TestEndpoints_EveryRowHasAnswerRules(t *testing.T) {
	t.Parallel()
	for _, row := range endpoints {
		if len(row.answer.required) == 0 {
			t.Errorf("row %s %s: no required answer field", row.method, row.path)
		}
	}
}

// rowFor returns the row of endpoints that serves method and path (a path
// with a real id for {id}), with its path as given.
func rowFor(t testing.TB, method, path string) endpoint {
	t.Helper()
	row, ok := endpointFor(method, path)
	if !ok {
		t.Fatalf("no endpoint row serves %s %s", method, path)
	}
	return row
}

// Only a method that only reads may be sent again after it may have
// reached the gateway: every POST moves money or changes a subscription.
func TestOnlyGETEndpointsAreIdempotent(t *testing.T) {
	t.Parallel()
	for _, row := range endpoints {
		if row.idempotent != (row.method == http.MethodGet) {
			t.Errorf("row %s %s: idempotent is %v", row.method, row.path, row.idempotent)
		}
	}
}

// Every row's decoder is fuzzed: a FuzzDecode target in
// decoders_fuzz_test.go (fuzzDecoder(f, epX)) decodes into the type the
// row's answer.into returns, under the row's answer rules, which is all
// that the decoding step (Client.decode) reads of a row. Two rows with the
// same type and rules share a target (epChangeRecurring is fuzzed through
// epCancelRecurring's FuzzDecodeSuccess); a row with a new type or new
// rules needs its own, which nothing else would notice missing.
func TestEndpointCases_EveryDecoderHasAFuzzTarget(t *testing.T) {
	t.Parallel()
	idents := endpointIdents(t)
	byIdent := map[string]endpointName{}
	for i, id := range idents {
		byIdent[id] = endpointName(i)
	}
	file, err := parser.ParseFile(token.NewFileSet(), "decoders_fuzz_test.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	fuzzed := map[endpointName]string{} // row -> the target naming it
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || !strings.HasPrefix(fn.Name.Name, "Fuzz") {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 2 {
				return true
			}
			if f, ok := call.Fun.(*ast.Ident); ok && f.Name == "fuzzDecoder" {
				arg, _ := call.Args[1].(*ast.Ident)
				name, known := byIdent[identName(arg)]
				if !known {
					t.Errorf("%s: fuzzDecoder's second argument must name a row of endpoints, not %v", fn.Name.Name, call.Args[1])
					return false
				}
				fuzzed[name] = fn.Name.Name
			}
			return true
		})
	}
	cases := endpointCases()
	for _, name := range endpointNames() {
		row, into := endpoints[name], cases[name].answer.into
		if into == nil {
			continue // TestEndpointCases_OneRowPerEndpoint names it
		}
		typ := reflect.TypeOf(into())
		var targets []string
		for other, target := range fuzzed {
			if reflect.TypeOf(cases[other].answer.into()) == typ && reflect.DeepEqual(endpoints[other].answer, row.answer) {
				targets = append(targets, target)
			}
		}
		slices.Sort(targets)
		t.Logf("%s (%s %s): fuzzed by %v", idents[name], row.method, row.path, targets)
		if len(targets) == 0 {
			t.Errorf("%s (%s %s): no target in decoders_fuzz_test.go decodes its answer (%v under its answer rules): add "+
				"func FuzzDecode<Answer>(f *testing.F) { fuzzDecoder(f, %s) }", idents[name], row.method, row.path, typ, idents[name])
		}
	}
}

// endpointIdents returns the names of the endpointName constants in
// endpoints.go, by value, as the source spells them.
func endpointIdents(t *testing.T) []string {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "endpoints.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var idents []string
	for _, decl := range file.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST || len(gd.Specs) == 0 {
			continue
		}
		if first := gd.Specs[0].(*ast.ValueSpec); identName(first.Type) != "endpointName" {
			continue
		}
		for _, spec := range gd.Specs {
			for _, n := range spec.(*ast.ValueSpec).Names {
				idents = append(idents, n.Name)
			}
		}
	}
	if len(idents) != len(endpoints) {
		t.Fatalf("endpoints.go names %d endpointName constants for %d rows", len(idents), len(endpoints))
	}
	return idents
}

// identName returns the name of an identifier, "" for any other expression.
func identName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
