// Package buildversion reads which versions a binary of this repository
// was built from out of its build information (runtime/debug), so that
// "paygate version" and "paygate-sandbox -version" answer from what was
// compiled in, never from a constant someone forgot to bump.
//
// go install .../cmd/paygate@v0.1.0 records v0.1.0; a build inside the
// repository's workspace records "(devel)", which is printed as it is: it
// is the honest answer for a binary built from a working tree.
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

// Info is what a binary was built from.
type Info struct {
	Path    string `json:"path"`    // the main module: the one the binary's package is in
	Version string `json:"version"` // the main module's version
	SDK     string `json:"sdk"`     // the version of SDKModule compiled in
	Go      string `json:"go"`      // the Go release that built it
}

// Read returns what the running binary was built from.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: Unknown, SDK: Unknown, Go: runtime.Version()}
	}
	return FromBuildInfo(bi)
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
