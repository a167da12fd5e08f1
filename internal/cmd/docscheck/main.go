// Command docscheck proves that every Go block of the documentation
// compiles, vets and passes staticcheck, so that a rename in the SDK cannot
// leave a guide showing code that no longer builds. .ci/docs runs it over
// README.md and docs/*.md.
//
// Each ```go block must be preceded by a line naming its kind:
//
//	<!-- docs: file -->   the block is a whole Go file (package clause, imports)
//	<!-- docs: func -->   the block is the body of a function; the names
//	                      declared in prelude.go.txt (ctx, client, srv, ...)
//	                      are in scope and imports are added for the
//	                      package names it uses
//
// No block is exempt: a block without that line fails. Every block becomes a
// package of its own in a temporary module joined to the repository's
// go.work, and one `go vet` and one staticcheck run over all of them. A
// //line directive maps each block back to its Markdown file, so a failure
// names the file and the line inside the block.
//
// Relative links are followed too: a link to a file that does not exist,
// or to a heading a Markdown file does not have, fails with its file and
// line, so that a guide pointing to the reference cannot point at nothing.
//
// Usage, from the repository root:
//
//	go run ./internal/cmd/docscheck README.md docs/*.md
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: docscheck FILE.md...")
		os.Exit(2)
	}
	report, err := check(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "docscheck:", err)
		os.Exit(2)
	}
	if report != "" {
		fmt.Fprint(os.Stderr, report)
		os.Exit(1)
	}
}
