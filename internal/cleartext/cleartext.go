// Package cleartext holds the SDK's rule for plain HTTP: an http:// address
// is used only when its host is loopback, where nothing crosses a network.
// The client (NewClient) and the merchant's command (every command, the
// sandbox's control plane with its bearer key included) apply this one
// rule, so that they refuse and accept the same addresses.
package cleartext

import (
	"net"
	"net/url"
	"strings"
)

// Exposed reports whether a request to u would cross a network in clear
// text: u is http:// and its host is not loopback. An https:// address,
// or one of another scheme, is not exposed.
func Exposed(u *url.URL) bool {
	return u.Scheme == "http" && !Loopback(u.Hostname())
}

// Loopback reports whether host (a name or an IP address, without port or
// brackets) is this machine: localhost, a name under .localhost (which
// RFC 6761 reserves for loopback), or a loopback IP address. Any other
// name counts as another machine, whatever it resolves to now: the
// resolver's answer can change between the check and the connection.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
