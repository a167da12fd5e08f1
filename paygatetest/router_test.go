package paygatetest_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// sdkEndpoint is one row of the SDK's endpoint table.
type sdkEndpoint struct {
	name, method, path                 string
	unsigned, extendedOnly, idempotent bool
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
				row.idempotent = fmt.Sprint(v) == "true"
			case "answer", "kind":
				// the SDK's own rules, tested beside the table
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
// gateway the SDK speaks to. A route reads (the state file is not written
// after it) exactly when the SDK's row is idempotent (sent again after a
// failure, which only a read allows), except the idempotent rows in
// idempotentWrites: a route marked reads that changes the state loses the
// change at the sandbox's next restart.
func TestRoutesMatchEndpointTable(t *testing.T) {
	t.Parallel()
	rows := readEndpointTable(t)
	require.NotEmpty(t, rows, "endpoints.go lists the endpoints")
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
		if why, ok := idempotentWrites[row.path]; ok {
			if !row.idempotent || rt.Reads {
				t.Errorf("%s: listed in idempotentWrites (%s), but idempotent is %v in the table and reads %v in the router", desc, why, row.idempotent, rt.Reads)
			}
		} else if rt.Reads != row.idempotent {
			t.Errorf("%s: idempotent is %v in the table, but the router's reads is %v: a route reads exactly when its row is idempotent", desc, row.idempotent, rt.Reads)
		}
	}
	for path := range routes {
		if !seen[path] {
			t.Errorf("route %s: the router serves it, but the SDK's endpoint table has no row for it", path)
		}
	}
}

// idempotentWrites are the rows the SDK may send twice that still change the
// sandbox's state, so that their routes are not marked reads: why, by path.
var idempotentWrites = map[string]string{
	"card/getToken": "each call issues a new single-use token, which the state file keeps",
}

func TestRouter_UnknownPathIs40400(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, p := range []string{"/v1/nope", "/v2/user/resolve", "/"} {
		s.rawFails(http.MethodPost, p, s.signed(nil), 40400)
	}
}

func TestRouter_ExtendedOnlyMethodsAre40400InTheBasicForm(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, paygatetest.WithForm(paygate.FormBasic))
	for _, m := range []string{"transaction/create", "payout", "balance", "transactions", "transactions/1000000000000000001"} {
		t.Run(m, func(t *testing.T) {
			s.in(t).fails(m, url.Values{"orderId": {"o"}}, 40400)
		})
	}
}

func TestRouter_ErrorStatusIsTheCodesFirstThreeDigits(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	resp, err := http.PostForm(s.srv.URL+"/v1/card/authenticate", s.signed(url.Values{"PaRes": {"x"}, "MD": {"unknown"}}))
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"error":{"code":40403,"message":"transaction does not exist"}}`, string(body))
	requireError(t, resp.StatusCode, decode(t, body), paygate.CodeTransactionNotFound)
}

func TestRouter_MalformedFormIs40000(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	resp, err := http.Post(s.srv.URL+"/v1/user/resolve", "application/x-www-form-urlencoded", strings.NewReader("project=%zz"))
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	requireError(t, resp.StatusCode, decode(t, body), 40000)
}
