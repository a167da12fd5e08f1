package paygatetest

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"time"
)

// controlAuth is the project a control-plane request acts for, and how it
// was authorised.
type controlAuth struct {
	project *Project
	session string // the dashboard session's id; "" for the bearer key
	browser bool   // authorised by the dashboard's session cookie
}

// authorize finds the project whose private key authorises r, as a bearer
// token (the scheme in any case, as HTTP has it) or through the
// dashboard's session cookie. A valid session is no guess, and is never
// refused. A wrong key or cookie counts against the client's guess budget
// (its answer held while all clients together are past theirs: see
// guessLimiter); a client out of its own budget waits (wait > 0) whatever
// it sends, so that a refusal tells nothing about the key. A request with
// neither is no guess.
func (s *Server) authorize(r *http.Request) (a controlAuth, wait time.Duration, ok bool) {
	scheme, key, hasBearer := strings.Cut(r.Header.Get("Authorization"), " ")
	hasBearer = hasBearer && strings.EqualFold(scheme, "Bearer")
	cookie, err := r.Cookie(sessionCookie)
	if !hasBearer && err != nil {
		return controlAuth{}, 0, false
	}
	if !hasBearer {
		if p, id, ok := s.sessions.check(cookie.Value, s.controlProject); ok {
			return controlAuth{project: p, session: id, browser: true}, 0, true
		}
	}
	if wait := s.guesses.wait(clientAddress(r)); wait > 0 {
		return controlAuth{}, wait, false
	}
	if hasBearer {
		if p, ok := s.ProjectBySecret(key); ok {
			return controlAuth{project: &p}, 0, true
		}
	}
	s.holdWrongGuess(r)
	return controlAuth{}, 0, false
}

// controlProject is the project with public key key, as the control
// plane's sessions and links hold it (a copy); nil for none.
func (s *Server) controlProject(key string) *Project {
	if p, ok := s.Project(key); ok {
		return &p
	}
	return nil
}

// equalSecret compares a received secret with the expected one in
// constant time.
func equalSecret(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// sameOriginForm guards the dashboard's forms against cross-site requests:
// the cookie is SameSite=Strict, the Origin or Referer (when the browser
// sends one) must be this host, and the form must carry the token of the
// page, bound to the session.
func (s *Server) sameOriginForm(r *http.Request, a controlAuth) bool {
	if s.foreignOrigin(r) {
		return false
	}
	r.Body = http.MaxBytesReader(nil, r.Body, maxControlBody)
	if err := r.ParseForm(); err != nil {
		return false
	}
	return equalSecret(r.PostForm.Get("csrf"), s.sessions.formToken(a.project, a.session))
}

// writeAuthError answers a control-plane request authorize refused: 429
// with Retry-After for a client out of guesses, 403 otherwise.
func writeAuthError(w http.ResponseWriter, wait time.Duration) {
	if wait > 0 {
		retryAfter(w, wait)
		WriteError(w, NewError(CodeTooManyGuesses, "too many wrong keys from this address: try again later"))
		return
	}
	WriteError(w, NewError(CodeForbidden, "the header Authorization: Bearer followed by a project's private key is required"))
}
