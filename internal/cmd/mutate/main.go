// Command mutate measures how well the tests of a package catch changes to
// its code (mutation testing). It applies one classic mutation at a time to
// the named source files, runs the package's tests against each mutant
// through `go test -overlay` (so the working tree is never touched), and
// reports the mutants the tests killed and those that survived.
//
// Usage, from the module root:
//
//	go run ./internal/cmd/mutate [flags] file.go[=TestRegexp] ...
//
// A regular expression after a file limits the first run of its mutants to
// those tests (the -run flag of go test), which keeps a run short; with
// -confirm every survivor is then run again against the whole package, so
// that only mutants no test at all kills are reported as survivors.
//
// The mutations: relational operators to their boundary and their negation
// (< to <= and >=, == to !=, ...), && and || swapped, arithmetic, shift and
// bitwise operators swapped (+ and -, * and /, % to *, << and >>, & and |),
// ! and unary - removed, ++ and -- swapped, op-assignments swapped (+= and
// -=), integer literals to 0 and to one more, a string result returned as ""
// and an error result returned as nil, and the removal of a call or
// assignment statement. A mutant that does not compile is counted neither
// killed nor survived; a test run that times out counts as killed.
//
// The score printed is killed / (killed + survived), per file and overall.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	timeout := flag.Duration("timeout", 2*time.Minute, "time limit of one filtered test run")
	confirm := flag.Bool("confirm", false, "run each survivor again against the whole package")
	confirmTimeout := flag.Duration("confirm-timeout", 5*time.Minute, "time limit of one confirming run")
	list := flag.Bool("list", false, "list the mutants without running any test")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: mutate [flags] file.go[=TestRegexp] ...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}

	tmp, err := os.MkdirTemp("", "mutate")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(tmp)

	var total tally
	for _, arg := range flag.Args() {
		file, run, _ := strings.Cut(arg, "=")
		path, err := filepath.Abs(file)
		if err != nil {
			fatal(err)
		}
		src, err := os.ReadFile(path)
		if err != nil {
			fatal(err)
		}
		mutants, err := mutantsOf(path, src)
		if err != nil {
			fatal(err)
		}
		var t tally
		for i, m := range mutants {
			if *list {
				fmt.Printf("%s:%d: %s\n", file, m.line, m.desc)
				continue
			}
			r := runMutant(tmp, path, src, m, run, *timeout)
			if r == survived && *confirm && run != "" {
				r = runMutant(tmp, path, src, m, "", *confirmTimeout)
			}
			t.add(r)
			if r == survived {
				fmt.Printf("SURVIVED %s:%d: %s\n", file, m.line, m.desc)
			}
			fmt.Fprintf(os.Stderr, "%s %d/%d %s\n", file, i+1, len(mutants), r)
		}
		if !*list {
			fmt.Printf("%s: %s\n", file, t)
			total.merge(t)
		}
	}
	if !*list {
		fmt.Printf("total: %s\n", total)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mutate:", err)
	os.Exit(1)
}

// A mutant replaces the bytes [start, end) of a file with text.
type mutant struct {
	start, end int
	text       string
	line       int
	desc       string
}

// result is what the tests made of one mutant.
type result int

const (
	killed result = iota
	survived
	notViable // does not compile
)

func (r result) String() string {
	return [...]string{"killed", "survived", "not viable"}[r]
}

type tally struct{ killed, survived, notViable int }

func (t *tally) add(r result) {
	switch r {
	case killed:
		t.killed++
	case survived:
		t.survived++
	default:
		t.notViable++
	}
}

func (t *tally) merge(o tally) {
	t.killed += o.killed
	t.survived += o.survived
	t.notViable += o.notViable
}

func (t tally) String() string {
	score := 0.0
	if n := t.killed + t.survived; n > 0 {
		score = 100 * float64(t.killed) / float64(n)
	}
	return fmt.Sprintf("%d killed, %d survived, %d not viable: score %.1f%%", t.killed, t.survived, t.notViable, score)
}

// runMutant runs the tests of the file's package with the mutant in place
// of the file.
func runMutant(tmp, path string, src []byte, m mutant, run string, timeout time.Duration) result {
	mutated := make([]byte, 0, len(src)+len(m.text))
	mutated = append(append(append(mutated, src[:m.start]...), m.text...), src[m.end:]...)
	file := filepath.Join(tmp, filepath.Base(path))
	overlay := filepath.Join(tmp, "overlay.json")
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": {path: file}})
	if err := os.WriteFile(file, mutated, 0o644); err != nil {
		fatal(err)
	}
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		fatal(err)
	}
	args := []string{"test", "-overlay", overlay, "-count=1", "-vet=off", "-failfast", "-timeout", timeout.String()}
	if run != "" {
		args = append(args, "-run", run)
	}
	args = append(args, "./"+relDir(path))
	// The go command gets a little longer than the tests, so that a hung
	// test binary still reports as a timeout rather than leaving us stuck.
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	switch {
	case err == nil:
		return survived
	case bytes.Contains(out.Bytes(), []byte("[build failed]")), bytes.Contains(out.Bytes(), []byte("[setup failed]")):
		return notViable
	}
	return killed
}

// relDir is the directory of path relative to the working directory.
func relDir(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		fatal(err)
	}
	rel, err := filepath.Rel(wd, filepath.Dir(path))
	if err != nil {
		fatal(err)
	}
	return filepath.ToSlash(rel)
}

// swaps are the operator replacements, each tried on its own.
var swaps = map[token.Token][]token.Token{
	token.LSS:        {token.LEQ, token.GEQ},
	token.LEQ:        {token.LSS, token.GTR},
	token.GTR:        {token.GEQ, token.LEQ},
	token.GEQ:        {token.GTR, token.LSS},
	token.EQL:        {token.NEQ},
	token.NEQ:        {token.EQL},
	token.LAND:       {token.LOR},
	token.LOR:        {token.LAND},
	token.ADD:        {token.SUB},
	token.SUB:        {token.ADD},
	token.MUL:        {token.QUO},
	token.QUO:        {token.MUL},
	token.REM:        {token.MUL},
	token.SHL:        {token.SHR},
	token.SHR:        {token.SHL},
	token.AND:        {token.OR},
	token.OR:         {token.AND},
	token.INC:        {token.DEC},
	token.DEC:        {token.INC},
	token.ADD_ASSIGN: {token.SUB_ASSIGN},
	token.SUB_ASSIGN: {token.ADD_ASSIGN},
}

// mutantsOf lists every mutant of one source file, in source order.
func mutantsOf(path string, src []byte) ([]mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var ms []mutant
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	add := func(start, end int, text, desc string) {
		ms = append(ms, mutant{start: start, end: end, text: text, line: fset.Position(fset.File(f.Pos()).Pos(start)).Line, desc: desc})
	}
	swap := func(pos token.Pos, op token.Token) {
		for _, to := range swaps[op] {
			add(off(pos), off(pos)+len(op.String()), to.String(), op.String()+" -> "+to.String())
		}
	}
	// results holds the result types of the enclosing functions.
	var results []*ast.FieldList
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body == nil {
				return false
			}
			results = append(results, n.Type.Results)
			ast.Inspect(n.Body, visit)
			results = results[:len(results)-1]
			return false
		case *ast.FuncLit:
			results = append(results, n.Type.Results)
			ast.Inspect(n.Body, visit)
			results = results[:len(results)-1]
			return false
		case *ast.BinaryExpr:
			swap(n.OpPos, n.Op)
		case *ast.UnaryExpr:
			if n.Op == token.NOT || n.Op == token.SUB {
				add(off(n.OpPos), off(n.OpPos)+1, "", "remove "+n.Op.String())
			}
		case *ast.IncDecStmt:
			swap(n.TokPos, n.Tok)
		case *ast.AssignStmt:
			swap(n.TokPos, n.Tok)
		case *ast.CallExpr:
			// The capacity of a slice is a hint: changing it changes no
			// behaviour, so it is not mutated.
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "make" && len(n.Args) == 3 {
				ast.Inspect(n.Fun, visit)
				for _, a := range n.Args[:2] {
					ast.Inspect(a, visit)
				}
				return false
			}
		case *ast.BasicLit:
			if n.Kind == token.INT {
				v, err := strconv.ParseInt(n.Value, 0, 64)
				if err != nil {
					break
				}
				if v != 0 {
					add(off(n.Pos()), off(n.End()), "0", n.Value+" -> 0")
				}
				add(off(n.Pos()), off(n.End()), strconv.FormatInt(v+1, 10), n.Value+" -> "+strconv.FormatInt(v+1, 10))
			}
		case *ast.ReturnStmt:
			if len(results) > 0 && len(n.Results) == 1 {
				if typ := soleResult(results[len(results)-1]); typ != "" {
					e := n.Results[0]
					switch lit, _ := e.(*ast.Ident); {
					case typ == "string" && !isEmptyString(e):
						add(off(e.Pos()), off(e.End()), `""`, "return \"\" instead")
					case typ == "error" && (lit == nil || lit.Name != "nil"):
						add(off(e.Pos()), off(e.End()), "nil", "return nil instead")
					}
				}
			}
		case *ast.BlockStmt:
			for _, s := range n.List {
				if removable(s) {
					add(off(s.Pos()), off(s.End()), "{}", "remove statement "+firstLine(src[off(s.Pos()):off(s.End())]))
				}
			}
		}
		return true
	}
	for _, d := range f.Decls {
		ast.Inspect(d, visit)
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].start < ms[j].start })
	return ms, nil
}

// soleResult is the type of a function's only result, when it is a plain
// identifier such as string or error.
func soleResult(fl *ast.FieldList) string {
	if fl == nil || len(fl.List) != 1 || len(fl.List[0].Names) > 1 {
		return ""
	}
	if id, ok := fl.List[0].Type.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func isEmptyString(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.STRING && (lit.Value == `""` || lit.Value == "``")
}

// removable reports whether a statement can go without breaking the
// syntax: a call, or an assignment to something already declared.
func removable(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ExprStmt:
		_, ok := s.X.(*ast.CallExpr)
		return ok
	case *ast.AssignStmt:
		return s.Tok != token.DEFINE
	case *ast.IncDecStmt:
		return true
	}
	return false
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return strconv.Quote(string(line))
}
