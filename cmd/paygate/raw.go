package main

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"
)

func newRawCmd(cfg *config, method string) *cobra.Command {
	upper := strings.ToUpper(method)
	return &cobra.Command{
		Use:   method + " PATH [name=value ...]",
		Short: "A raw signed " + upper + " to any endpoint, the answer pretty-printed",
		Long: `Send a signed ` + upper + ` to PATH below /v1/ (for example transaction/status, or an
endpoint the SDK does not model yet) with the name=value parameters and the
project key, through the SDK's Client.Call: signed (the unsigned GETs aside),
` + map[bool]string{true: "retried on network errors and 429/5xx", false: "never retried once it may have reached the gateway"}[upper == "GET"] + `,
redirects refused, and the gateway's error object reported as an error (exit
1). The answer is printed as indented JSON.`,
		Example: "  paygate " + method + " " + map[bool]string{true: "transaction/status order_id=order-1001", false: "user/resolve identifier=cust-42 ip=203.0.113.7 locale=de"}[upper == "GET"],
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("%s needs a PATH", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			params, err := parseParams(args[1:])
			if err != nil {
				return err
			}
			client, err := cfg.client()
			if err != nil {
				return err
			}
			var answer json.RawMessage
			if err := client.Call(cmd.Context(), upper, args[0], params, &answer); err != nil {
				return err
			}
			var out bytes.Buffer
			if err := json.Indent(&out, answer, "", "  "); err != nil {
				return err
			}
			out.WriteByte('\n')
			_, err = cfg.env.stdout.Write(jsonPrintable(out.Bytes()))
			return err
		},
	}
}
