package paygate_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// modulePath is the SDK module's import path; every package of the
// workspace's modules lives under it.
const modulePath = "github.com/paygate/paygate-go"

// The two parts of internal/ that are not libraries (CONTRIBUTING.md,
// "Internal packages"): the repository's programs and the bodies they share,
// and the packages only tests import.
const (
	programsDir = "internal/cmd"
	testKitDir  = "internal/testkit"
)

// goFile is one Go source file of the repository: its slash-separated path
// from the repository's root and the import paths it names.
type goFile struct {
	path    string
	imports []string
}

// test reports whether the file is compiled only into tests.
func (f goFile) test() bool { return strings.HasSuffix(f.path, "_test.go") }

// within reports whether the file lies under the slash-separated directory
// dir.
func (f goFile) within(dir string) bool { return strings.HasPrefix(f.path, dir+"/") }

// repoGoFiles parses the imports of every Go file under the repository's
// root, in every module of the workspace and under every build constraint:
// a file the current platform leaves out still enters the graph elsewhere.
// testdata and hidden directories hold no package of the repository.
func repoGoFiles(t *testing.T) []goFile {
	t.Helper()
	var files []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		gf := goFile{path: filepath.ToSlash(path)}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			gf.imports = append(gf.imports, p)
		}
		files = append(files, gf)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// ofModule returns the slash-separated directory of an import path of the
// workspace's modules ("" for the root package) and whether it is one.
func ofModule(importPath string) (dir string, ok bool) {
	if importPath == modulePath {
		return "", true
	}
	dir, ok = strings.CutPrefix(importPath, modulePath+"/")
	return dir, ok
}

// isLibrary reports whether the slash-separated directory dir is one of
// the libraries of internal/: every directory under it but the programs
// and the test kit.
func isLibrary(dir string) bool {
	return strings.HasPrefix(dir, "internal/") &&
		dir != programsDir && !strings.HasPrefix(dir, programsDir+"/") &&
		dir != testKitDir && !strings.HasPrefix(dir, testKitDir+"/")
}

// kind names what a package of the workspace is, for a failure message.
func kind(dir string) string {
	switch {
	case dir == "":
		return "the root package"
	case dir == "paygatetest" || strings.HasPrefix(dir, "paygatetest/"):
		return "the sandbox (paygatetest)"
	case dir == programsDir || strings.HasPrefix(dir, programsDir+"/"):
		return "a program (" + programsDir + ")"
	case dir == testKitDir || strings.HasPrefix(dir, testKitDir+"/"):
		return "the test kit (" + testKitDir + ")"
	default:
		return "a package outside internal/"
	}
}

// The libraries of internal/ are the bottom of the package graph: the
// client, package callback, the sandbox and the commands build on them. A
// library (or its test) that imported the root package, paygatetest, a
// program, the test kit or any other package of the workspace outside the
// libraries would make the graph run back up: a cycle as soon as the
// package it imports needs the library, and the sandbox or a browser
// helper pulled into whatever imports the library.
func TestLayout_LibrariesImportOnlyLibraries(t *testing.T) {
	t.Parallel()
	libraries := 0
	for _, f := range repoGoFiles(t) {
		if !isLibrary(filepath.ToSlash(filepath.Dir(f.path))) {
			continue
		}
		libraries++
		for _, imp := range f.imports {
			dir, ok := ofModule(imp)
			if !ok || isLibrary(dir) {
				continue
			}
			t.Errorf("%s imports %s, %s: a library under internal/ imports only the standard library, "+
				"third-party modules and the other libraries (CONTRIBUTING.md, \"Internal packages\")",
				f.path, imp, kind(dir))
		}
	}
	if libraries == 0 {
		t.Fatal("no Go file of a library under internal/: the test no longer runs from the repository's root")
	}
}

// Tests only import the test kit: it imports package testing, starts
// engines and browsers, and a merchant's binary must never carry it. Only
// commands import a program's body (internal/cmd/sandboxcmd), so that the
// SDK's packages never depend on a command line.
func TestLayout_TestKitOnlyInTestsProgramsOnlyInCommands(t *testing.T) {
	t.Parallel()
	for _, f := range repoGoFiles(t) {
		for _, imp := range f.imports {
			dir, ok := ofModule(imp)
			if !ok {
				continue
			}
			switch {
			case strings.HasPrefix(dir, testKitDir+"/") && !f.test() && !f.within(testKitDir):
				t.Errorf("%s imports %s outside a test: the test kit (%s) is for tests only", f.path, imp, testKitDir)
			case strings.HasPrefix(dir, programsDir+"/") && !f.within("cmd") && !f.within(programsDir):
				t.Errorf("%s imports %s: only commands (cmd/, %s) import a program's body", f.path, imp, programsDir)
			}
		}
	}
}
