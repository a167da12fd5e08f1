package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the repository root, relative to this package.
const repoRoot = "../../.."

// TestGeneratedCodeTableMatchesTheSpec regenerates the code table from the
// spec's error table (errors.md, in the repository) and compares it with the
// committed errors_codes.go, so that a code, status or message the table
// changes cannot go unnoticed.
func TestGeneratedCodeTableMatchesTheSpec(t *testing.T) {
	const path = "errors.md"
	spec, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate(bytes.NewReader(spec))
	if err != nil {
		t.Fatalf("generating from %s: %v", path, err)
	}
	got, err := os.ReadFile(filepath.Join(repoRoot, "errors_codes.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("errors_codes.go does not match the error table of %s: run go generate in the repository root", path)
	}
	if n := strings.Count(string(want), "= codeError("); n != 42 {
		t.Errorf("the spec's error table gives %d codes, want the 42 it lists", n)
	}
}

const table = "# API\n\n## Errors\n\n| Code | HTTP status | Message meaning |\n|---|---|---|\n%s\n## Limits\n\n| 40999 | 409 | not an error row |\n"

func specWith(rows ...string) *strings.Reader {
	return strings.NewReader(strings.Replace(table, "%s", strings.Join(rows, "\n"), 1))
}

func TestParse_ReadsTheErrorTableOnly(t *testing.T) {
	rows := make([]string, 0, len(names))
	for _, n := range sortedNumbers() {
		rows = append(rows, "| "+itoa(n)+" | "+itoa(n/100)+" | meaning of "+itoa(n)+" (extended form) |")
	}
	codes, err := parse(specWith(rows...))
	if err != nil {
		t.Fatal(err)
	}
	if len(codes) != len(names) {
		t.Fatalf("got %d codes, want %d: the table under Limits must not count", len(codes), len(names))
	}
	if c := codes[0]; c.message != "meaning of 40001" || c.original != "meaning of 40001 (extended form)" || c.name != "ProjectKeyMissing" {
		t.Errorf("first code = %+v: the message drops the closing remark, the comment keeps it", c)
	}
}

func TestParse_RefusesATableTheSDKCannotFollow(t *testing.T) {
	all := func(edit func(n int) string) []string {
		var rows []string
		for _, n := range sortedNumbers() {
			rows = append(rows, edit(n))
		}
		return rows
	}
	row := func(n int) string { return "| " + itoa(n) + " | " + itoa(n/100) + " | m |" }
	tests := map[string][]string{
		"no Errors section": nil,
		"status not the first three digits": all(func(n int) string {
			if n == 40001 {
				return "| 40001 | 401 | m |"
			}
			return row(n)
		}),
		"unnamed code":       append(all(row), "| 59999 | 599 | new |"),
		"named code missing": all(row)[1:],
		"listed twice":       append(all(row)[:1], all(row)...),
	}
	for name, rows := range tests {
		t.Run(name, func(t *testing.T) {
			spec := specWith(rows...)
			if rows == nil {
				spec = strings.NewReader("# API\n\n## Limits\n")
			}
			if _, err := parse(spec); err == nil {
				t.Error("parse accepted it")
			}
		})
	}
}

func sortedNumbers() []int {
	out := make([]int, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
