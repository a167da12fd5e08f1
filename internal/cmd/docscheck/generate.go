package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
)

// imports are the package names a "func" block may use without importing
// them, with their import paths.
var imports = map[string]string{
	"context":     "context",
	"errors":      "errors",
	"fmt":         "fmt",
	"http":        "net/http",
	"httptest":    "net/http/httptest",
	"io":          "io",
	"json":        "encoding/json",
	"log":         "log",
	"os":          "os",
	"slog":        "log/slog",
	"sort":        "sort",
	"strings":     "strings",
	"testing":     "testing",
	"time":        "time",
	"url":         "net/url",
	"decimal":     "github.com/shopspring/decimal",
	"paygate":     "github.com/paygate/paygate-go",
	"callback":    "github.com/paygate/paygate-go/callback",
	"paygatetest": "github.com/paygate/paygate-go/paygatetest",
	"redisdedup":  "github.com/paygate/paygate-go/dedup/redisdedup",
	"pgdedup":     "github.com/paygate/paygate-go/dedup/pgdedup",
	"paygateotel": "github.com/paygate/paygate-go/paygateotel",
	"redis":       "github.com/redis/go-redis/v9",
	"pgxpool":     "github.com/jackc/pgx/v5/pgxpool",
}

// source is one generated Go file.
type source struct {
	name string // file name inside the block's package directory
	text string
}

// generate turns a block into the files of its package. abs is the
// absolute path of its Markdown file, named in the //line directive.
func generate(b block, abs string) ([]source, error) {
	directive := fmt.Sprintf("//line %s:%d\n", abs, b.line)
	switch b.kind {
	case "file":
		name := "block.go"
		if strings.Contains(b.code, "\nfunc Test") || strings.Contains(b.code, "\nfunc Example") {
			name = "block_test.go"
		}
		return []source{{name, directive + b.code}}, nil
	case "func":
		text, err := wrapFunc(b.code, directive)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", b.file, b.line, err)
		}
		return []source{{"block.go", text}, {"prelude.go", prelude}}, nil
	case "":
		return nil, fmt.Errorf("%s:%d: ```go block without a <!-- docs: file --> or <!-- docs: func --> line before it", b.file, b.line-1)
	default:
		return nil, fmt.Errorf("%s:%d: unknown block kind %q (file or func)", b.file, b.line-1, b.kind)
	}
}

// wrapFunc makes a "func" block the body of a function. Every name the
// block declares at its top level is then used once (`_ = name`) at its
// end, so that a fragment may end where its story ends without the
// compiler's "declared and not used", while a value overwritten before it
// is read is still staticcheck's finding.
func wrapFunc(code, directive string) (string, error) {
	text := "package blk\n\nfunc _() {\n" + directive + code + "}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", text, parser.ParseComments)
	if err != nil {
		return "", err
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	var uses []string
	for _, st := range body.List {
		for _, n := range declared(st) {
			uses = append(uses, "_ = "+n)
		}
	}
	at := fset.Position(body.Rbrace).Offset
	if n := len(body.List); n > 0 && terminates(body.List[n-1]) {
		at = fset.Position(body.List[n-1].Pos()).Offset
	}
	if len(uses) > 0 {
		text = text[:at] + strings.Join(uses, "; ") + "\n" + text[at:]
	}
	return strings.Replace(text, "package blk\n", "package blk\n\n"+importDecl(f), 1), nil
}

// terminates reports whether a statement ends the function, so that the
// uses go before it rather than out of reach.
func terminates(st ast.Stmt) bool {
	if _, ok := st.(*ast.ReturnStmt); ok {
		return true
	}
	if e, ok := st.(*ast.ExprStmt); ok {
		if c, ok := e.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	}
	return false
}

// declared lists the names a top-level statement of a block declares.
func declared(st ast.Stmt) []string {
	var names []string
	add := func(id *ast.Ident) {
		if id.Name != "_" {
			names = append(names, id.Name)
		}
	}
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			for _, e := range st.Lhs {
				if id, ok := e.(*ast.Ident); ok {
					add(id)
				}
			}
		}
	case *ast.DeclStmt:
		if g, ok := st.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, s := range g.Specs {
				for _, id := range s.(*ast.ValueSpec).Names {
					add(id)
				}
			}
		}
	}
	return names
}

// importDecl imports the packages a block names: identifiers left
// unresolved by the parser (not declared in the block) that are known
// package names.
func importDecl(f *ast.File) string {
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil && imports[id.Name] != "" {
				used[id.Name] = true
			}
		}
		return true
	})
	if len(used) == 0 {
		return ""
	}
	var paths []string
	for name := range used {
		paths = append(paths, fmt.Sprintf("\t%s %q\n", name, imports[name]))
	}
	sort.Strings(paths)
	return "import (\n" + strings.Join(paths, "") + ")\n"
}

// packageDir names a block's package directory after its file and line.
func packageDir(b block) string {
	base := strings.TrimSuffix(filepath.Base(b.file), ".md")
	clean := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(base))
	return fmt.Sprintf("%s_%d", clean, b.line)
}
