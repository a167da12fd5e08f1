package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodFunc = "<!-- docs: func -->\n```go\n" +
	"payment, err := client.Cards.Charge(ctx, &paygate.ChargeParams{User: userID, Price: decimal.RequireFromString(\"1.00\"), Currency: \"EUR\"})\n" +
	"if err != nil {\n\tlog.Fatal(err)\n}\nfmt.Println(payment.Status)\n```\n"

const goodFile = "<!-- docs: file -->\n```go\npackage main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n```\n"

func writeDoc(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "guide.md")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheck_PassesBlocksThatBuild(t *testing.T) {
	path := writeDoc(t, "# Guide\n\n"+goodFunc+"\ntext\n\n"+goodFile)
	report, err := check([]string{path})
	if err != nil || report != "" {
		t.Fatalf("check = %q, %v; want no report", report, err)
	}
}

// reportOf checks one Markdown text written as guide.md and returns the
// file's path and the report.
func reportOf(t *testing.T, text string) (string, string) {
	t.Helper()
	path := writeDoc(t, text)
	report, err := check([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	return path, report
}

func TestCheck_BrokenBlocksNameFileAndLine(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []string // in the report, after the file's path
	}{{
		name: "renamed method in a func block",
		// Lines: 1 title, 2 blank, 3-10 goodFile, 11 blank, 12 marker,
		// 13 fence, 14 the call.
		text: "# Guide\n\n" + goodFile + "\n" + strings.Replace(goodFunc, "Cards.Charge(", "Cards.Chargee(", 1),
		want: []string{":14", "Chargee", "block at <path>:13"},
	}, {
		name: "wrong type in a whole file",
		text: strings.Replace(goodFile, `fmt.Println("hi")`, `var n int = "hi"; fmt.Println(n)`, 1),
		want: []string{":7"},
	}, {
		name: "staticcheck finding", // compiles and vets; the first err is never read
		text: "<!-- docs: func -->\n```go\n_, err := client.Users.Resolve(ctx, nil)\n" +
			"_, err = client.Users.Resolve(ctx, nil)\nif err != nil {\n\tlog.Fatal(err)\n}\n```\n",
		want: []string{":3", "SA4006"},
	}, {
		name: "block without a kind",
		text: "# Guide\n\n```go\nfmt.Println(1)\n```\n",
		want: []string{":3", "docs: func"},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, report := reportOf(t, c.text)
			if !strings.Contains(report, path+c.want[0]) {
				t.Errorf("report does not name %s%s:\n%s", path, c.want[0], report)
			}
			for _, w := range c.want[1:] {
				if w = strings.ReplaceAll(w, "<path>", path); !strings.Contains(report, w) {
					t.Errorf("report does not say %q:\n%s", w, report)
				}
			}
		})
	}
}

func TestCheck_LinkToNothingNamesFileAndLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "other.md"), []byte("# Other\n\n## The handler\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "guide.md")
	text := "# Guide\n\n[ok](other.md#the-handler) [here](#guide)\n[gone](missing.md)\n[renamed](other.md#the-old-handler)\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	report, err := check([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{path + ":4: link missing.md: no such file", path + ":5: link other.md#the-old-handler: no such heading"} {
		if !strings.Contains(report, want) {
			t.Errorf("report does not say %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, ":3:") {
		t.Errorf("report names a link that leads somewhere:\n%s", report)
	}
}
