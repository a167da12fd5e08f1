package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/paygate/paygate-go/internal/version"
)

func newVersionCmd(cfg *config) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, and the Go release and platform it was built with",
		Args:  exactArgs(0),
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(cfg.env.stdout, version.Line("paygate"))
			return err
		},
	}
}
