package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/paygate/paygate-go/internal/buildversion"
)

const versionLong = `Print the version paygate was built from, the SDK's version compiled into it
and the Go release that built it, as the binary's build information records
them: "go install github.com/paygate/paygate-go/cmd/paygate@v0.1.0" gives
v0.1.0; a build from a working tree of the repository gives "(devel)".

  paygate v0.1.0 (github.com/paygate/paygate-go v0.1.0) go1.27.3 linux/amd64

A release's binaries (goreleaser) carry the release's version the same way.`

func newVersionCmd(cfg *config) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version paygate was built from",
		Long:  versionLong,
		Args:  exactArgs(0),
		RunE: func(*cobra.Command, []string) error {
			info := buildversion.Read()
			return cfg.emit(info, func(w io.Writer) {
				fmt.Fprintf(w, "paygate %s (%s %s) %s %s\n", info.Version, buildversion.SDKModule, info.SDK, info.Go, info.Platform)
			})
		},
	}
}
