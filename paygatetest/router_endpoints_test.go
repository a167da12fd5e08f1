package paygatetest_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// sdkEndpoint is one row of the SDK's endpoint table.
type sdkEndpoint struct {
	name, method, path     string
	unsigned, extendedOnly bool
}

// readEndpointTable reads the SDK's one table of endpoints from its source:
// the table is not part of the SDK's API, and a test of another package
// cannot reach it otherwise.
func readEndpointTable(t *testing.T) []sdkEndpoint {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "../endpoints.go", nil, 0)
	require.NoError(t, err)
	var table *ast.CompositeLit
	ast.Inspect(file, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == 1 && vs.Names[0].Name == "endpoints" {
			table, _ = vs.Values[0].(*ast.CompositeLit)
		}
		return table == nil
	})
	require.NotNil(t, table, "endpoints.go declares no endpoints table")
	var rows []sdkEndpoint
	for _, elt := range table.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		require.True(t, ok, "every row of the table is keyed by its name")
		row := sdkEndpoint{name: fmt.Sprint(kv.Key)}
		for _, f := range kv.Value.(*ast.CompositeLit).Elts {
			field := f.(*ast.KeyValueExpr)
			switch key, v := fmt.Sprint(field.Key), field.Value; key {
			case "method":
				row.method = map[string]string{"MethodGet": http.MethodGet, "MethodPost": http.MethodPost}[v.(*ast.SelectorExpr).Sel.Name]
			case "path":
				row.path, err = strconv.Unquote(v.(*ast.BasicLit).Value)
				require.NoError(t, err)
			case "unsigned":
				row.unsigned = fmt.Sprint(v) == "true"
			case "extendedOnly":
				row.extendedOnly = fmt.Sprint(v) == "true"
			case "idempotent":
				// the SDK's own rule, tested beside the table
			default:
				t.Fatalf("row %s: unknown column %s", row.name, key)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// The sandbox must serve exactly the SDK's endpoints, with the same
// signing and form rules, or tests against it prove nothing about the
// gateway the SDK speaks to.
func TestRoutesMatchEndpointTable(t *testing.T) {
	t.Parallel()
	rows := readEndpointTable(t)
	require.Len(t, rows, 16, "the spec lists 16 endpoints")
	routes := paygatetest.Routes()
	seen := map[string]bool{}
	for _, row := range rows {
		desc := fmt.Sprintf("row %s (%s %s)", row.name, row.method, row.path)
		if seen[row.path] {
			t.Errorf("%s: the path appears twice in the table", desc)
		}
		seen[row.path] = true
		// The router reads a request's parameters from the query and, for a
		// POST, from the body too, so it keeps no method to compare: the
		// method must at least be one the router reads.
		if row.method != http.MethodGet && row.method != http.MethodPost {
			t.Errorf("%s: method must be GET or POST", desc)
		}
		rt, ok := routes[row.path]
		if !ok {
			t.Errorf("%s: the sandbox's router has no route for it", desc)
			continue
		}
		if rt.Unsigned != row.unsigned {
			t.Errorf("%s: unsigned is %v in the table, %v in the router", desc, row.unsigned, rt.Unsigned)
		}
		if rt.ExtendedOnly != row.extendedOnly {
			t.Errorf("%s: extendedOnly is %v in the table, %v in the router", desc, row.extendedOnly, rt.ExtendedOnly)
		}
	}
	for path := range routes {
		if !seen[path] {
			t.Errorf("route %s: the router serves it, but the SDK's endpoint table has no row for it", path)
		}
	}
}
