package paygatetest

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
)

// foreignOrigin reports whether a browser says r comes from a page of
// another site: its Origin, or without one its Referer, names another host
// than the one r is sent to and the one browsers reach the sandbox at
// (WithPublicURL, for a proxy that rewrites Host). "Origin: null" (a
// sandboxed frame, a data: page) is foreign. A request with neither header
// (a non-browser client) is not: the forms' tokens guard those.
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
	public, err := url.Parse(s.publicURL)
	return u.Host != r.Host && (err != nil || u.Host != public.Host)
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
