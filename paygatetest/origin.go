package paygatetest

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
)

// foreignOrigin reports whether a browser says r comes from a page of
// another site: its Origin, or without one its Referer, names another host
// than the one the sandbox listens at (URL) and the one browsers reach it
// at (WithPublicURL, for a proxy or a 0.0.0.0 listener). The Host header
// is never trusted: a page of evil.example whose name was made to point at
// the sandbox (DNS rebinding), or a proxy that passes Host on, sends
// "Host: evil.example" with "Origin: https://evil.example". "Origin:
// null" (a sandboxed frame, a data: page) is foreign. A request with
// neither header (a non-browser client) is not: the forms' tokens guard
// those.
func (s *Server) foreignOrigin(r *http.Request) bool {
	from := r.Header.Get("Origin")
	if from == "" {
		from = r.Header.Get("Referer")
	}
	if from == "" {
		return false
	}
	u, err := url.Parse(from)
	if err != nil || u.Host == "" {
		return true
	}
	return !slices.Contains(s.ownHosts, u.Host)
}

// ownHosts are the hosts (host:port) of url and of publicURL: those of
// the sandbox's own pages.
func ownHosts(urls ...string) []string {
	var hosts []string
	for _, raw := range urls {
		if u, err := url.Parse(raw); err == nil && u.Host != "" && !slices.Contains(hosts, u.Host) {
			hosts = append(hosts, u.Host)
		}
	}
	return hosts
}

// denyFraming keeps the page out of other sites' frames, where a payer or
// a developer could be made to click a button they cannot see.
func denyFraming(w http.ResponseWriter) {
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'")
	w.Header().Set("Cache-Control", "no-store")
}

// randomHex is n random bytes in hex: a token nobody can guess.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	return hex.EncodeToString(b)
}
