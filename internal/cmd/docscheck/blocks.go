package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// block is one ```go block of a Markdown file.
type block struct {
	file string // the Markdown file, as named on the command line
	line int    // the line of the block's first line of code
	kind string // "file" or "func"; "" when no marker precedes it
	code string
}

var marker = regexp.MustCompile(`^<!--\s*docs:\s*(\S+)\s*-->\s*$`)

// readBlocks returns the ```go blocks of a Markdown file with the kind
// named by the marker line just before each fence.
func readBlocks(path string) ([]block, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		blocks []block
		cur    *block
		prev   string
		n      int
	)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		n++
		text := sc.Text()
		switch {
		case cur != nil && strings.HasPrefix(text, "```"):
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.code += text + "\n"
		case strings.TrimSpace(text) == "```go":
			cur = &block{file: path, line: n + 1}
			if m := marker.FindStringSubmatch(strings.TrimSpace(prev)); m != nil {
				cur.kind = m[1]
			}
		}
		if strings.TrimSpace(text) != "" {
			prev = text
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: ```go block never closed", path, cur.line-1)
	}
	return blocks, sc.Err()
}
