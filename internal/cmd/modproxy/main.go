// Command modproxy publishes modules of a git working tree to a directory
// laid out as a Go module proxy (GOPROXY=file:///that/dir), at a version
// that need not be tagged yet:
//
//	go run ./internal/cmd/modproxy -out DIR -version v0.1.0 . ./cmd/paygate ...
//
// For each module directory it writes <module>/@v/list, <version>.info,
// <version>.mod and <version>.zip, and prints the module's path, version
// and go.sum hash. .ci/release-check uses it to show that what a merchant
// runs, go get and go install at the release version, works before
// anything is tagged; a release is nothing but tags, so what it publishes
// here is what the module proxy will serve.
//
// A zip holds what git would archive at a tag: the module's tracked files
// and its untracked files that .gitignore does not name, as they are in the
// working tree, without nested modules (golang.org/x/mod/zip leaves them
// out), and with the repository's LICENSE when a nested module has none, as
// the go command does when it fetches a module from a subdirectory.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("out", "", "directory to publish to (made when missing)")
	version := flag.String("version", "", "version to publish at, such as v0.1.0")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: modproxy -out DIR -version VERSION MODULE_DIR...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || *version == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	for _, dir := range flag.Args() {
		p, err := publish(*out, dir, *version)
		if err != nil {
			fmt.Fprintln(os.Stderr, "modproxy:", err)
			os.Exit(1)
		}
		fmt.Printf("%s %s %s (%d files)\n", p.Path, p.Version, p.Sum, p.Files)
	}
}
