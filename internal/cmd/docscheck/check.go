package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

//go:embed prelude.go.txt
var prelude string

// staticcheck is the version .ci/run uses.
const staticcheck = "honnef.co/go/tools/cmd/staticcheck@v0.8.2"

// check compiles, vets and staticchecks every Go block of the files, and
// follows their relative links, and returns what failed ("" when nothing
// did), each message naming the Markdown file and line.
func check(files []string) (string, error) {
	var (
		blocks []block
		broken []string
	)
	for _, f := range files {
		bs, err := readBlocks(f)
		if err != nil {
			return "", err
		}
		blocks = append(blocks, bs...)
		bad, err := checkLinks(f)
		if err != nil {
			return "", err
		}
		broken = append(broken, bad...)
	}
	if len(broken) > 0 {
		return "docs: links that lead nowhere:\n" + strings.Join(broken, "\n") + "\n", nil
	}
	tmp, err := os.MkdirTemp("", "docscheck-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	var problems []string
	placed := map[string]placement{}
	for _, b := range blocks {
		if err := writeBlock(tmp, b, placed); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return strings.Join(problems, "\n") + "\n", nil
	}
	if err := writeModule(tmp); err != nil {
		return "", err
	}
	out := run(tmp, "go", "vet", "./...")
	if out == "" {
		out = run(tmp, "go", "run", staticcheck, "./...")
	}
	if out == "" {
		return "", nil
	}
	return explain(out, tmp, blocks, placed), nil
}

// placement is where a block's first line sits in its generated file.
type placement struct {
	block block
	first int // the generated file's line holding the block's first line
}

// writeBlock writes a block's package under dir and records in placed
// where its code went (keyed by the path relative to dir), for the tools
// that report generated positions rather than those of //line directives.
func writeBlock(dir string, b block, placed map[string]placement) error {
	abs, err := filepath.Abs(b.file)
	if err != nil {
		return err
	}
	srcs, err := generate(b, abs)
	if err != nil {
		return err
	}
	pkg := filepath.Join(dir, packageDir(b))
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		return err
	}
	if i := strings.Index(srcs[0].text, "//line "); i >= 0 {
		first := strings.Count(srcs[0].text[:i], "\n") + 2
		placed[filepath.Join(packageDir(b), srcs[0].name)] = placement{b, first}
	}
	for _, s := range srcs {
		if err := os.WriteFile(filepath.Join(pkg, s.name), []byte(s.text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeModule makes dir a module joined to every module of the
// repository's workspace, with the workspace's replacements (the root at
// the version the nested modules require, which is not published before
// its release), so that the blocks build offline against the code beside
// them, as a merchant's program would against the release.
func writeModule(dir string) error {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}")
	mods, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("listing the workspace's modules: %v", err)
	}
	work := "go 1.26.0\n\nuse (\n\t.\n"
	for _, m := range strings.Fields(string(mods)) {
		work += fmt.Sprintf("\t%q\n", m)
	}
	work += ")\n"
	replaces, err := workspaceReplaces()
	if err != nil {
		return err
	}
	work += replaces
	if err := os.WriteFile(filepath.Join(dir, "go.work"), []byte(work), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module docsblocks\n\ngo 1.26.0\n"), 0o644)
}

// workspaceReplaces returns the replace directives of the repository's
// go.work, a directory made absolute.
func workspaceReplaces() (string, error) {
	gowork, err := exec.Command("go", "env", "GOWORK").Output()
	if err != nil {
		return "", fmt.Errorf("finding the workspace: %v", err)
	}
	path := strings.TrimSpace(string(gowork))
	if path == "" || path == "off" {
		return "", nil
	}
	out, err := exec.Command("go", "work", "edit", "-json", path).Output()
	if err != nil {
		return "", fmt.Errorf("reading %s: %v", path, err)
	}
	type mod struct{ Path, Version string }
	var w struct{ Replace []struct{ Old, New mod } }
	if err := json.Unmarshal(out, &w); err != nil {
		return "", fmt.Errorf("reading %s: %v", path, err)
	}
	var b strings.Builder
	for _, r := range w.Replace {
		target := strconv.Quote(r.New.Path) + " " + r.New.Version
		if r.New.Version == "" { // a directory, relative to go.work
			dir := r.New.Path
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(filepath.Dir(path), dir)
			}
			target = strconv.Quote(dir)
		}
		fmt.Fprintf(&b, "replace %s %s => %s\n", r.Old.Path, r.Old.Version, target)
	}
	return b.String(), nil
}

// run runs a command in dir with dir's go.work and returns its output when
// it fails.
func run(dir, name string, args ...string) string {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(dir, "go.work"), "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return ""
	}
	if len(out) == 0 {
		return err.Error() + "\n"
	}
	return string(out)
}

var (
	mdPosition = regexp.MustCompile(`(\S+\.md):(\d+)`)
	goPosition = regexp.MustCompile(`(\S+\.go):(\d+)`)
)

// explain makes a tool's output name the Markdown file and line of each
// message (go vet follows the //line directives, staticcheck names the
// generated files), as the files were named on the command line, and adds
// which block each message is in.
func explain(out, dir string, blocks []block, placed map[string]placement) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if strings.HasPrefix(l, "# ") || strings.HasPrefix(l, "exit status") {
			continue // a generated package's name, the tool's exit code
		}
		if m := goPosition.FindStringSubmatchIndex(l); m != nil {
			if p, ok := placed[strings.TrimPrefix(l[m[2]:m[3]], "./")]; ok {
				n, _ := strconv.Atoi(l[m[4]:m[5]])
				abs, _ := filepath.Abs(p.block.file)
				l = l[:m[2]] + fmt.Sprintf("%s:%d", abs, p.block.line+n-p.first) + l[m[5]:]
			}
		}
		if m := mdPosition.FindStringSubmatchIndex(l); m != nil {
			path := l[m[2]:m[3]]
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			n, _ := strconv.Atoi(l[m[4]:m[5]])
			if b, ok := blockAt(blocks, path, n); ok {
				l = l[:m[2]] + b.file + l[m[3]:] + fmt.Sprintf("  (in the %s block at %s:%d)", b.kind, b.file, b.line-1)
			}
		}
		lines = append(lines, l)
	}
	return "docs: a Go block of the documentation does not build, vet or pass staticcheck:\n" + strings.Join(lines, "\n") + "\n"
}

// blockAt finds the block holding line n of a Markdown file, given by its
// absolute path.
func blockAt(blocks []block, abs string, n int) (block, bool) {
	for _, b := range blocks {
		end := b.line + strings.Count(b.code, "\n")
		if babs, _ := filepath.Abs(b.file); babs == abs && n >= b.line && n < end {
			return b, true
		}
	}
	return block{}, false
}
