// Package version is the version the paygate and paygate-sandbox binaries
// report ("paygate version", "paygate-sandbox -version"), so that a
// merchant can say which release, and which Go, a binary was built with.
package version

import (
	"runtime"
	"runtime/debug"
)

// stamped is the release's version, set by the release build with
// -ldflags "-X github.com/paygate/paygate-go/internal/version.stamped=v1.2.3"
// (.goreleaser.yaml). A binary built from a workspace records no module
// version of its own, so without it a release would say "(devel)".
var stamped string

// String is the binary's version: the release's, else the module version
// "go install ...@version" recorded, else "(devel)".
func String() string {
	if stamped != "" {
		return stamped
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// Line is what the command name prints as its version: the name, the
// version, and the Go release and platform it was built for (the Go
// release decides which standard-library fixes a binary has).
func Line(name string) string {
	return name + " " + String() + " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}
