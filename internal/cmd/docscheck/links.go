package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var (
	link     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	anchorID = regexp.MustCompile(`<a id="([^"]+)">`)
)

// checkLinks reports the relative links of a Markdown file that lead
// nowhere: a file that does not exist, or a heading that a .md file does
// not have. A guide links to the reference instead of restating it, so a
// moved file or a renamed section must not leave it pointing at nothing.
func checkLinks(path string) ([]string, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var problems []string
	for i, line := range strings.Split(string(text), "\n") {
		for _, m := range link.FindAllStringSubmatch(line, -1) {
			if msg := badLink(path, string(text), m[1]); msg != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: link %s: %s", path, i+1, m[1], msg))
			}
		}
	}
	return problems, nil
}

// badLink says what is wrong with one link target, "" when nothing is.
func badLink(from, fromText, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	file, anchor, _ := strings.Cut(target, "#")
	text := fromText
	if file != "" {
		dest := filepath.Join(filepath.Dir(from), file)
		if _, err := os.Stat(dest); err != nil {
			return "no such file"
		}
		if anchor == "" || !strings.HasSuffix(file, ".md") {
			return ""
		}
		b, err := os.ReadFile(dest)
		if err != nil {
			return err.Error()
		}
		text = string(b)
	}
	if anchor != "" && !hasAnchor(text, anchor) {
		return "no such heading"
	}
	return ""
}

// hasAnchor reports whether a Markdown text has a heading whose GitHub
// anchor is anchor, or an explicit <a id>.
func hasAnchor(text, anchor string) bool {
	for _, m := range anchorID.FindAllStringSubmatch(text, -1) {
		if m[1] == anchor {
			return true
		}
	}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if !inFence && strings.HasPrefix(line, "#") && slug(strings.TrimLeft(line, "# ")) == anchor {
			return true
		}
	}
	return false
}

// slug is GitHub's anchor of a heading: lower case, punctuation dropped,
// spaces as hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
