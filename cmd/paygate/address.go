package main

import (
	"net/url"

	"github.com/paygate/paygate-go/internal/cleartext"
)

// Where the command sends what. Every address obeys the SDK's rule for
// plain HTTP (internal/cleartext, which NewClient applies): https://, or
// http:// to a loopback host, or --insecure-http. The control plane's
// commands send the private key itself, as a bearer token, so their
// address must also be a sandbox: one on this machine, or one that
// --remote-sandbox names as such. An unauthenticated probe could not tell
// that: it identifies only a host that answers truthfully, and any host can
// answer as a sandbox would. The flag makes it the merchant's decision,
// stated on each command.

// checkedURL parses raw, the value of flag, as an absolute http(s) URL that
// obeys the rule for plain HTTP; sent says what would cross the network in
// clear, for the refusal.
func (c *config) checkedURL(flag, raw, sent string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// Not quoted: the address may carry credentials.
		return nil, usagef("%s must be an absolute http(s) URL", flag)
	}
	if cleartext.Exposed(u) && !c.insecure {
		return nil, usagef("%s: plain http:// to %s, a host that is not loopback, would send %s in clear text: use https://, or --insecure-http on a private test network",
			flag, u.Hostname(), sent)
	}
	return u, nil
}

// gatewayBase is --base-url, else $PAYGATE_BASE_URL, checked by the rule
// for plain HTTP; empty for the SDK's default.
func (c *config) gatewayBase() (string, error) {
	b := c.base()
	if b == "" {
		return "", nil
	}
	_, err := c.checkedURL("--base-url", b, "signed requests and card data")
	return b, err
}

// sandboxBase is the address of the sandbox whose control plane the
// command calls with the private key: --base-url or $PAYGATE_BASE_URL,
// which it requires, checked by the rule for plain HTTP, and on this
// machine unless --remote-sandbox says it is a sandbox elsewhere.
func (c *config) sandboxBase() (string, error) {
	b := c.base()
	if b == "" {
		return "", usagef("no sandbox address: give --base-url or set PAYGATE_BASE_URL")
	}
	u, err := c.checkedURL("--base-url", b, "the private key")
	if err != nil {
		return "", err
	}
	if !cleartext.Loopback(u.Hostname()) && !c.remoteSandbox {
		return "", usagef("--base-url: %s is not this machine, and the sandbox's control plane is sent the private key: "+
			"give --remote-sandbox if %s is a sandbox (never a real gateway)", u.Hostname(), u.Hostname())
	}
	return b, nil
}
