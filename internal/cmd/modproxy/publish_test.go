package main

import (
	"archive/zip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// repo makes a git working tree holding a root module, a nested module
// without a LICENSE, an ignored build output and an untracked source file.
func repo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/Root\n\ngo 1.23\n")
	write("root.go", "package root\n\n// Answer is an answer.\nconst Answer = 42\n")
	write("LICENSE", "the licence\n")
	write(".gitignore", "/tool\n")
	write("tool", "a built binary\n")
	write("sub/go.mod", "module example.com/Root/sub\n\ngo 1.23\n\nrequire example.com/Root v1.2.3\n")
	write("sub/sub.go", "package sub\n\nimport root \"example.com/Root\"\n\n// Twice is twice the answer.\nconst Twice = 2 * root.Answer\n")
	cmd := exec.Command("git", "init", "-q", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return dir
}

func mvOf(p published) module.Version { return module.Version{Path: p.Path, Version: p.Version} }

func zipNames(t *testing.T, path string) []string {
	t.Helper()
	r, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var names []string
	for _, f := range r.File {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	return names
}

// TestPublish_WritesTheProxyLayout checks what the go command reads from
// a GOPROXY directory: under the escaped module path (an upper-case letter
// is "!" and the lower-case letter), the list, .info, .mod and a zip of the
// module's own files under "path@version/".
func TestPublish_WritesTheProxyLayout(t *testing.T) {
	dir, out := repo(t), t.TempDir()
	p, err := publish(out, dir, "v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	if p.Path != "example.com/Root" || !strings.HasPrefix(p.Sum, "h1:") || p.Files != 4 {
		t.Errorf("published %+v, want example.com/Root, an h1: hash and 4 files", p)
	}
	vdir := filepath.Join(out, "example.com", "!root", "@v")
	if list, err := os.ReadFile(filepath.Join(vdir, "list")); err != nil || string(list) != "v1.2.3\n" {
		t.Errorf("list = %q, %v", list, err)
	}
	var info struct{ Version string }
	if data, err := os.ReadFile(filepath.Join(vdir, "v1.2.3.info")); err != nil || json.Unmarshal(data, &info) != nil || info.Version != "v1.2.3" {
		t.Errorf("v1.2.3.info = %q, %v", data, err)
	}
	if mod, err := os.ReadFile(filepath.Join(vdir, "v1.2.3.mod")); err != nil || string(mod) != "module example.com/Root\n\ngo 1.23\n" {
		t.Errorf("v1.2.3.mod = %q, %v", mod, err)
	}
	zipPath := filepath.Join(vdir, "v1.2.3.zip")
	want := []string{"example.com/Root@v1.2.3/.gitignore", "example.com/Root@v1.2.3/LICENSE", "example.com/Root@v1.2.3/go.mod", "example.com/Root@v1.2.3/root.go"}
	if got := zipNames(t, zipPath); !slices.Equal(got, want) {
		t.Errorf("zip holds %q, want %q: no ignored file, no nested module", got, want)
	}
	if _, err := modzip.CheckZip(mvOf(p), zipPath); err != nil {
		t.Errorf("the go command would refuse the zip: %v", err)
	}
}

// TestPublish_NestedModuleGetsTheRepositoryLicense: the go command copies
// the repository's LICENSE into a nested module that has none.
func TestPublish_NestedModuleGetsTheRepositoryLicense(t *testing.T) {
	dir, out := repo(t), t.TempDir()
	p, err := publish(out, filepath.Join(dir, "sub"), "v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	got := zipNames(t, filepath.Join(out, "example.com", "!root", "sub", "@v", "v1.2.3.zip"))
	want := []string{"example.com/Root/sub@v1.2.3/LICENSE", "example.com/Root/sub@v1.2.3/go.mod", "example.com/Root/sub@v1.2.3/sub.go"}
	if !slices.Equal(got, want) || p.Files != 3 {
		t.Errorf("zip holds %q, want %q", got, want)
	}
}

// TestPublish_AddsToTheList: a second version joins the list, in order,
// and publishing one again does not list it twice.
func TestPublish_AddsToTheList(t *testing.T) {
	dir, out := repo(t), t.TempDir()
	for _, v := range []string{"v1.10.0", "v1.2.3", "v1.10.0"} {
		if _, err := publish(out, dir, v); err != nil {
			t.Fatal(err)
		}
	}
	list, err := os.ReadFile(filepath.Join(out, "example.com", "!root", "@v", "list"))
	if err != nil || string(list) != "v1.2.3\nv1.10.0\n" {
		t.Errorf("list = %q, %v", list, err)
	}
}

func TestPublish_RefusesAVersionTheGoCommandWouldNot(t *testing.T) {
	dir := repo(t)
	for _, v := range []string{"1.2.3", "v1.2", "v2.0.0", "latest"} {
		if _, err := publish(t.TempDir(), dir, v); err == nil {
			t.Errorf("published at %q", v)
		}
	}
}

// TestPublish_TheGoCommandBuildsFromIt builds the nested module's package
// in a fresh module with the directory as its only proxy: the layout is
// the one the go command reads, and the go.sum hash is the one it computes.
func TestPublish_TheGoCommandBuildsFromIt(t *testing.T) {
	dir, out := repo(t), t.TempDir()
	var sums []string
	for _, d := range []string{dir, filepath.Join(dir, "sub")} {
		p, err := publish(out, d, "v1.2.3")
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, p.Path+" v1.2.3 "+p.Sum)
	}
	user := t.TempDir()
	if err := os.WriteFile(filepath.Join(user, "go.mod"), []byte("module example.com/user\n\ngo 1.23\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "main.go"), []byte("package main\n\nimport \"example.com/Root/sub\"\n\nfunc main() { println(sub.Twice) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOWORK=off", "GOPROXY=file://"+filepath.ToSlash(out), "GONOSUMDB=example.com",
		"GOFLAGS=-modcacherw", "GOMODCACHE="+t.TempDir(), "GOTOOLCHAIN=local")
	for _, args := range [][]string{{"get", "example.com/Root/sub@v1.2.3"}, {"build", "-o", os.DevNull, "."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = user, env
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	gosum, err := os.ReadFile(filepath.Join(user, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sums {
		if !strings.Contains(string(gosum), s+"\n") {
			t.Errorf("go.sum lacks %q:\n%s", s, gosum)
		}
	}
}
