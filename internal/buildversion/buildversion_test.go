package buildversion

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	sdk := func(v string, r *debug.Module) *debug.Module {
		return &debug.Module{Path: SDKModule, Version: v, Replace: r}
	}
	tests := map[string]struct {
		bi   debug.BuildInfo
		want Info
	}{
		"paygate installed at a release": {
			debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: SDKModule + "/cmd/paygate", Version: "v0.1.0"},
				Deps: []*debug.Module{{Path: "github.com/spf13/cobra", Version: "v1.10.2"}, sdk("v0.1.0", nil)}},
			Info{Path: SDKModule + "/cmd/paygate", Version: "v0.1.0", SDK: "v0.1.0", Go: "go1.26.8"},
		},
		"paygate-sandbox installed at a release: the SDK is the main module": {
			debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: SDKModule, Version: "v0.1.0"}},
			Info{Path: SDKModule, Version: "v0.1.0", SDK: "v0.1.0", Go: "go1.26.8"},
		},
		"built in the workspace": {
			debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: SDKModule + "/cmd/paygate", Version: "(devel)"},
				Deps: []*debug.Module{sdk("(devel)", nil)}},
			Info{Path: SDKModule + "/cmd/paygate", Version: "(devel)", SDK: "(devel)", Go: "go1.26.8"},
		},
		"the SDK replaced by a directory": {
			debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "example.com/shop", Version: "(devel)"},
				Deps: []*debug.Module{sdk("v0.1.0", &debug.Module{Path: "../paygate-go"})}},
			Info{Path: "example.com/shop", Version: "(devel)", SDK: "(devel)", Go: "go1.26.8"},
		},
		"the SDK replaced by another version": {
			debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "example.com/shop", Version: "v1.0.0"},
				Deps: []*debug.Module{sdk("v0.1.0", &debug.Module{Path: "example.com/fork", Version: "v0.1.1"})}},
			Info{Path: "example.com/shop", Version: "v1.0.0", SDK: "v0.1.1", Go: "go1.26.8"},
		},
		"no SDK, no versions": {
			debug.BuildInfo{Main: debug.Module{Path: "example.com/other"}},
			Info{Path: "example.com/other", Version: Unknown, SDK: Unknown, Go: runtime.Version()},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := FromBuildInfo(&tt.bi); got != tt.want {
				t.Errorf("FromBuildInfo = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestRead: a test binary of this package is built from the SDK's module,
// so the SDK's version is the main module's, and the Go is the running one.
func TestRead(t *testing.T) {
	got := Read()
	if got.Path != SDKModule || got.SDK != got.Version || got.SDK == Unknown || got.Go != runtime.Version() {
		t.Errorf("Read() = %+v, want the SDK's module as the main one, built by %s", got, runtime.Version())
	}
}

// A release built in the workspace reports the stamped version for itself
// and for the SDK it compiled from the same tree; a module version the
// build information recorded for the SDK stays.
func TestStamp(t *testing.T) {
	devel := Info{Path: SDKModule + "/cmd/paygate", Version: "(devel)", SDK: "(devel)", Go: "go1.27.3"}
	if got := Stamp(devel, ""); got != devel {
		t.Errorf("Stamp(no release) = %+v, want %+v", got, devel)
	}
	want := Info{Path: SDKModule + "/cmd/paygate", Version: "v0.1.0", SDK: "v0.1.0", Go: "go1.27.3"}
	if got := Stamp(devel, "v0.1.0"); got != want {
		t.Errorf("Stamp(v0.1.0) = %+v, want %+v", got, want)
	}
	pinned := Info{Path: "example.com/tool", Version: "(devel)", SDK: "v0.0.9", Go: "go1.27.3"}
	if got := Stamp(pinned, "v1.0.0"); got.SDK != "v0.0.9" || got.Version != "v1.0.0" {
		t.Errorf("Stamp kept %+v", got)
	}
}
