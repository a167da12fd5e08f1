package paygate

import (
	"errors"
	"net/http"
	"net/url"
	"path"
	"strings"
	"testing"
)

// FuzzRawEndpoint feeds raw calls' methods and paths, which a merchant's
// program may build from its own input (an e-mail address, an id): a path
// accepted is sent as written, stays below /v1/ whatever decodes or cleans
// it on the way, and carries no query or fragment; anything else is a
// *ValidationError naming the method or the path.
func FuzzRawEndpoint(f *testing.F) {
	for _, seed := range []string{
		"transaction/status", "/v1/transactions/42", "users/jane.roe+1@mail.example/cards", "%2e%2e/%2e%2e/admin",
		"%2E%2e/balance", "card%2fprocess", "../balance", "a/./b", "a//b", "https://evil.test/v1/balance", "balance?x=1",
		"balance#x", `..\admin`, "v1/v1/x", "~", "a/b/",
	} {
		f.Add("GET", seed)
		f.Add("post", seed)
	}
	f.Fuzz(func(t *testing.T, method, p string) {
		ep, err := rawEndpoint(method, p)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || (ve.Field != "path" && ve.Field != "method") {
				t.Fatalf("refusal of %q %q is %v, not a ValidationError of the method or path", method, p, err)
			}
			return
		}
		if ep.method != http.MethodGet && ep.method != http.MethodPost {
			t.Fatalf("method %q accepted as %q", method, ep.method)
		}
		if unescaped, err := url.PathUnescape(ep.path); err != nil || unescaped != ep.path {
			t.Fatalf("path %q is decoded as %q", ep.path, unescaped)
		}
		const base = "https://gateway.test/v1/"
		u, err := url.Parse(base + ep.path)
		if err != nil {
			t.Fatalf("path %q makes an unreadable URL: %v", ep.path, err)
		}
		switch {
		case u.Host != "gateway.test", u.RawQuery != "", u.Fragment != "", u.Opaque != "":
			t.Fatalf("path %q changes the URL's host, query or fragment: %#v", ep.path, u)
		case u.Path != "/v1/"+ep.path, u.EscapedPath() != u.Path:
			t.Fatalf("path %q is read as %q and sent as %q", ep.path, u.Path, u.EscapedPath())
		case path.Clean(u.Path) != u.Path, !strings.HasPrefix(u.Path, "/v1/"):
			t.Fatalf("path %q cleans to %q", u.Path, path.Clean(u.Path))
		}
	})
}
