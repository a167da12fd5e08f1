package paygatetest

import (
	"net/http"
	"net/url"
	"sync"
	"time"
)

// A login link opens the dashboard once, without typing the key: for a
// scripted browser, and for the person who started the sandbox from a
// terminal (paygate-sandbox prints one). It is single use and expires
// after loginLinkLifetime, so that one found later in a terminal's
// scrollback or a CI log opens nothing.
const (
	loginLinkLifetime = 5 * time.Minute
	// maxLoginLinks bounds the links not used yet; beyond it the oldest
	// stops working.
	maxLoginLinks = 100
)

// loginLinks are the login links made and not used yet.
type loginLinks struct {
	now func() time.Time

	mu    sync.Mutex
	links map[string]loginLink // by token
	order []string             // tokens, oldest first
}

type loginLink struct {
	project string // key
	expires time.Time
}

func newLoginLinks(now func() time.Time) *loginLinks {
	return &loginLinks{now: now, links: make(map[string]loginLink)}
}

// make returns a new token for project p.
func (ll *loginLinks) make(p *Project) string {
	tok := randomHex(32)
	ll.mu.Lock()
	defer ll.mu.Unlock()
	now := ll.now()
	// The oldest goes when the links are at their bound, and when it was
	// used or has expired, so that order stays as short as links.
	for len(ll.order) > 0 {
		oldest, kept := ll.links[ll.order[0]]
		if kept && len(ll.links) < maxLoginLinks && now.Before(oldest.expires) {
			break
		}
		delete(ll.links, ll.order[0])
		ll.order = ll.order[1:]
	}
	ll.links[tok] = loginLink{project: p.Key, expires: now.Add(loginLinkLifetime)}
	ll.order = append(ll.order, tok)
	return tok
}

// use takes the token: the project's key when it is a link not used and
// not expired. Either way it never works again.
func (ll *loginLinks) use(tok string) (string, bool) {
	ll.mu.Lock()
	defer ll.mu.Unlock()
	l, ok := ll.links[tok]
	delete(ll.links, tok)
	return l.project, ok && ll.now().Before(l.expires)
}

// LoginURL returns a link that opens the dashboard of the server's
// project in a browser once, within 5 minutes, without the key: the
// browser gets the dashboard's usual session cookie and lands on
// {URL}/sandbox/. Each call makes a new link; a used or expired one shows
// the key form. The link is on WithPublicURL's address when given.
func (s *Server) LoginURL() string { return s.loginURL(s.controlProject(s.ProjectKey)) }

func (s *Server) loginURL(p *Project) string {
	return s.publicURL + "/sandbox/login?" + url.Values{"token": {s.logins.make(p)}}.Encode()
}

// serveLoginLink serves GET /sandbox/login?token=: a valid link starts a
// session of its project, as the key form does, and goes to the
// dashboard; any other token counts against the client's guess budget
// and shows the key form.
func (s *Server) serveLoginLink(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if wait := s.guesses.wait(clientAddress(r)); wait > 0 {
		s.renderLogin(w, wait, "")
		return
	}
	key, ok := s.logins.use(r.URL.Query().Get("token"))
	p := s.controlProject(key)
	if !ok || p == nil {
		s.holdWrongGuess(r)
		s.renderLogin(w, 0, "this login link was used already or has expired: sign in with the key, or get a new link (paygate dashboard, or POST /sandbox/login-url)")
		return
	}
	s.startSession(w, r, p)
}

// controlLoginURL serves POST login-url: a login link of project p (see
// LoginURL), for a browser a test in any language drives.
func (s *Server) controlLoginURL(p *Project, _ url.Values, _ string) (any, *Error) {
	return map[string]any{"url": s.loginURL(p), "expires_in": int(loginLinkLifetime.Seconds())}, nil
}
