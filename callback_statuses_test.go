package paygate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/callback"
)

// Every callback status of the spec has its row in callbackStatuses, the
// one table of what a status means to the client: without one, a genuine
// callback would never confirm, observe nothing and read as a live payout.
func TestCallbackStatuses_EveryStatusHasARow(t *testing.T) {
	t.Parallel()
	for _, s := range callback.Statuses() {
		if _, ok := callbackStatuses[s]; !ok {
			t.Errorf("callback status %q has no row in callbackStatuses (callback_statuses.go)", s)
		}
	}
	for s := range callbackStatuses {
		assert.True(t, s.Known(), "row %q is a callback status of the spec", s)
	}
}

// join lists words as a sentence does: "a", "a or b", "a, b or c".
func join[T ~string](words []T) string {
	s := make([]string, len(words))
	for i, w := range words {
		s[i] = string(w)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// describeShapes is the line of CallbackShapes' doc table for s, made from
// callbackStatuses.
func describeShapes(s callback.Status) string {
	var parts []string
	for _, sh := range callbackStatuses[s].shapes {
		p := join(sh.Types)
		if sh.Child {
			p += " (child)"
		}
		p += ": " + join(sh.Statuses)
		if sh.BasicOnly {
			p = "basic form: " + p
		}
		parts = append(parts, p)
	}
	return strings.TrimSpace(fmt.Sprintf("%-20s %s", s, strings.Join(parts, "; ")))
}

// The table in CallbackShapes' documentation says what callbackStatuses
// holds, status by status, so the two cannot drift apart.
func TestCallbackShapes_DocTableIsTheTable(t *testing.T) {
	t.Parallel()
	file, err := parser.ParseFile(token.NewFileSet(), "callbacks_confirm.go", nil, parser.ParseComments)
	require.NoError(t, err)
	var doc string
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "CallbackShapes" {
			doc = fn.Doc.Text()
		}
	}
	var lines []string
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "\t") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	for i, s := range callback.Statuses() {
		want := describeShapes(s)
		if i >= len(lines) {
			t.Errorf("CallbackShapes' doc table has no line for %s; want\n\t%s", s, want)
			continue
		}
		assert.Equal(t, want, lines[i], "line %d of CallbackShapes' doc table, for %s", i+1, s)
	}
	assert.LessOrEqual(t, len(lines), len(callback.Statuses()), "CallbackShapes' doc table has a line for each status, no more")
}

// ObserveCallback's documentation names the statuses that observe nothing;
// it says what callbackStatuses holds.
func TestObserveCallback_DocNamesTheStatusesThatObserveNothing(t *testing.T) {
	t.Parallel()
	file, err := parser.ParseFile(token.NewFileSet(), "order.go", nil, parser.ParseComments)
	require.NoError(t, err)
	var doc string
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "ObserveCallback" {
			doc = strings.Join(strings.Fields(fn.Doc.Text()), " ")
		}
	}
	sentence, _, found := strings.Cut(doc, " observe nothing.")
	require.True(t, found, "ObserveCallback's doc says which statuses observe nothing")
	sentence = sentence[strings.LastIndex(sentence, ". ")+2:]
	sentence = regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(sentence, "")
	named := map[callback.Status]bool{}
	for _, name := range regexp.MustCompile(`[a-z_]+\*?`).FindAllString(sentence, -1) {
		for _, s := range callback.Statuses() {
			if prefix, glob := strings.CutSuffix(name, "*"); s == callback.Status(name) || glob && strings.HasPrefix(string(s), prefix) {
				named[s] = true
			}
		}
	}
	for _, s := range callback.Statuses() {
		assert.Equal(t, named[s], callbackStatuses[s].observes == observedNothing,
			"ObserveCallback's doc and callbackStatuses on whether %s observes nothing", s)
	}
}
