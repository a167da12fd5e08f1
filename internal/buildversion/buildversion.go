// Package buildversion reads which versions a binary of this repository
// was built from out of its build information (runtime/debug), so that
// "paygate version" and "paygate-sandbox -version" answer from what was
// compiled in, never from a constant someone forgot to bump.
//
// go install .../cmd/paygate@v0.1.0 records v0.1.0; a build inside the
// repository's workspace records "(devel)", which is printed as it is: it
// is the honest answer for a binary built from a working tree. A release
// build (goreleaser, the image) is made in the workspace too, so it stamps
// the release's version with -ldflags "-X" (see stamped).
package buildversion

import (
	"runtime"
	"runtime/debug"
)

// SDKModule is the path of the SDK's module, which holds the sandbox.
const SDKModule = "github.com/paygate/paygate-go"

// Unknown is the version of a module the binary's build information does
// not name, or of a binary built without build information.
const Unknown = "unknown"

// stamped is a release build's version, set with -ldflags "-X
// github.com/paygate/paygate-go/internal/buildversion.stamped=v1.2.3"
// (.goreleaser.yaml, .ci/image): built from the workspace, a release
// binary's build information says "(devel)".
var stamped string

// Info is what a binary was built from.
type Info struct {
	Path     string `json:"path"`     // the main module: the one the binary's package is in
	Version  string `json:"version"`  // the main module's version
	SDK      string `json:"sdk"`      // the version of SDKModule compiled in
	Go       string `json:"go"`       // the Go release that built it: it decides which standard-library fixes the binary has
	Platform string `json:"platform"` // GOOS/GOARCH
}

// Read returns what the running binary was built from.
func Read() Info {
	info := Info{Version: Unknown, SDK: Unknown, Go: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info = FromBuildInfo(bi)
	}
	info = Stamp(info, stamped)
	info.Platform = runtime.GOOS + "/" + runtime.GOARCH
	return info
}

// Stamp returns info as a release build stamped with version release
// reports it: the release is the binary's version, and the SDK's too when
// the SDK came from the same working tree ("(devel)"). An empty release
// leaves info as it is.
func Stamp(info Info, release string) Info {
	if release == "" {
		return info
	}
	info.Version = release
	if info.SDK == "(devel)" {
		info.SDK = release
	}
	return info
}

// FromBuildInfo returns what the binary described by bi was built from.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	info := Info{Path: bi.Main.Path, Version: version(bi.Main), SDK: Unknown, Go: bi.GoVersion}
	if bi.Main.Path == SDKModule {
		info.SDK = info.Version
	}
	for _, dep := range bi.Deps {
		if dep.Path == SDKModule {
			info.SDK = version(*dep)
		}
	}
	if info.Go == "" {
		info.Go = runtime.Version()
	}
	return info
}

// version is the version of m as compiled in: a replacement's when it is
// replaced, "(devel)" when that replacement is a directory (its version is
// whatever the directory held).
func version(m debug.Module) string {
	if r := m.Replace; r != nil {
		if r.Version == "" {
			return "(devel)"
		}
		return r.Version
	}
	if m.Version == "" {
		return Unknown
	}
	return m.Version
}
