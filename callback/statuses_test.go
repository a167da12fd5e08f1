package callback

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCallbackStatuses_AreTheKnownOnes(t *testing.T) {
	t.Parallel()
	all := Statuses()
	require.Len(t, all, len(statusRules))
	for _, s := range all {
		assert.True(t, s.Known(), s)
	}
	all[0] = "changed"
	assert.Equal(t, Completed, Statuses()[0], "each call returns a new slice")
	assert.False(t, Status("refunded").Known())
}

// statusConstants reads the Status constants declared in callback.go, by
// name, with their values.
func statusConstants(t *testing.T) map[string]Status {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "callback.go", nil, 0)
	require.NoError(t, err)
	out := map[string]Status{}
	ast.Inspect(file, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Status" {
			return true
		}
		for i, name := range vs.Names {
			lit, ok := vs.Values[i].(*ast.BasicLit)
			require.True(t, ok, "%s is a string literal", name.Name)
			v, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			out[name.Name] = Status(v)
		}
		return true
	})
	require.NotEmpty(t, out, "callback.go declares the Status constants")
	return out
}

// Every status the package declares has its row in statusRules, the one
// table of what a status means here, and no row names anything else:
// Statuses, Known, Key.Stage and the order of follow-up callbacks read it.
func TestStatusRules_EveryConstantHasARow(t *testing.T) {
	t.Parallel()
	consts := statusConstants(t)
	for name, s := range consts {
		if !s.Known() {
			t.Errorf("callback status %s (%q) has no row in statusRules", name, s)
		}
	}
	declared := map[Status]bool{}
	for _, s := range consts {
		declared[s] = true
	}
	seen := map[Status]bool{}
	for _, r := range statusRules {
		assert.False(t, seen[r.status], "%s has one row", r.status)
		seen[r.status] = true
		assert.True(t, declared[r.status], "row %s is a declared constant", r.status)
		assert.NotZero(t, r.stage, "row %s has a stage", r.status)
	}
}

// Key.Stage's documentation names the statuses of each stage; it says
// what statusRules holds, so that the two cannot drift apart.
func TestKeyStage_DocSaysWhatTheTableHolds(t *testing.T) {
	t.Parallel()
	file, err := parser.ParseFile(token.NewFileSet(), "store.go", nil, parser.ParseComments)
	require.NoError(t, err)
	var doc string
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "Stage" {
			doc = strings.Join(strings.Fields(fn.Doc.Text()), " ")
		}
	}
	documented := map[Status]int{}
	for _, m := range regexp.MustCompile(`(\d) [^(]*\(([^)]*)\)`).FindAllStringSubmatch(doc, -1) {
		stage, _ := strconv.Atoi(m[1])
		for _, name := range strings.Split(m[2], ", ") {
			for _, s := range Statuses() {
				if prefix, glob := strings.CutSuffix(name, "*"); s == Status(name) || glob && strings.HasPrefix(string(s), prefix) {
					documented[s] = stage
				}
			}
		}
	}
	for _, s := range Statuses() {
		assert.Equal(t, documented[s], Key{Status: s}.Stage(), "Key.Stage's doc and statusRules on the stage of %s", s)
	}
}
