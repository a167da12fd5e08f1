// Command paygate is the merchant's terminal for the Payment Gateway: it
// serves the sandbox, fires the callbacks a webhook handler must survive,
// signs and verifies parameters (the tool for error 40301), makes raw
// signed calls to any endpoint, and reads transactions and the balance of
// a real gateway or a sandbox. "paygate help" describes every command.
//
// It is configured by flags, then by the environment variables
// PAYGATE_PROJECT, PAYGATE_SECRET and PAYGATE_BASE_URL. It never prints the
// private key. Every command that prints data prints JSON with --json.
//
// Exit codes: 0 success; 1 an error (network, gateway error, unreadable
// input); 2 a usage error (unknown command or flag, wrong arguments,
// missing configuration, a parameter the SDK refuses before sending); 3 a check that failed (a signature that does not
// verify, a callback the receiver refused).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], environ{getenv: os.Getenv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr})
	stop()
	os.Exit(code)
}
