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

func TestCheck_BrokenBlockNamesFileAndLine(t *testing.T) {
	broken := strings.Replace(goodFunc, "Cards.Charge(", "Cards.Chargee(", 1)
	// Lines: 1 title, 2 blank, 3-10 goodFile, 11 blank, 12 marker,
	// 13 fence, 14 the call.
	path := writeDoc(t, "# Guide\n\n"+goodFile+"\n"+broken)
	report, err := check([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{path + ":14", "Chargee", "block at " + path + ":13"} {
		if !strings.Contains(report, want) {
			t.Errorf("report does not name %q:\n%s", want, report)
		}
	}
}

func TestCheck_WrongTypeInAWholeFileFails(t *testing.T) {
	path := writeDoc(t, strings.Replace(goodFile, `fmt.Println("hi")`, `var n int = "hi"; fmt.Println(n)`, 1))
	report, err := check([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(report, path+":7") {
		t.Errorf("report does not name %s:7:\n%s", path, report)
	}
}

func TestCheck_StaticcheckFindingFails(t *testing.T) {
	// Compiles and vets, but staticcheck finds the first err never read.
	block := "<!-- docs: func -->\n```go\n_, err := client.Users.Resolve(ctx, nil)\n" +
		"_, err = client.Users.Resolve(ctx, nil)\nif err != nil {\n\tlog.Fatal(err)\n}\n```\n"
	path := writeDoc(t, block)
	report, err := check([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(report, path+":3") || !strings.Contains(report, "SA4006") {
		t.Errorf("report does not name the staticcheck finding at %s:3:\n%s", path, report)
	}
}

func TestCheck_BlockWithoutKindFails(t *testing.T) {
	path := writeDoc(t, "# Guide\n\n```go\nfmt.Println(1)\n```\n")
	report, err := check([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(report, path+":3") || !strings.Contains(report, "docs: func") {
		t.Errorf("report does not ask for the block's kind at %s:3:\n%s", path, report)
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
