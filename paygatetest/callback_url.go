package paygatetest

import (
	"errors"
	"fmt"
	"net/url"
)

var (
	// ErrInvalidCallbackURL reports a callback URL SetCallbackURL refuses.
	ErrInvalidCallbackURL = errors.New("paygatetest: invalid callback URL")
	// ErrUnknownProject reports a project key no project of the server has.
	ErrUnknownProject = errors.New("paygatetest: unknown project")
)

// SetCallbackURL changes the callback URL of the server's project: later
// callbacks go there. An empty u records callbacks without sending them.
// Otherwise u must be an absolute http or https URL of at most 2048 bytes
// (ErrInvalidCallbackURL).
func (s *Server) SetCallbackURL(u string) error {
	_, err := s.SetProjectCallbackURL(s.ProjectKey, u)
	return err
}

// SetProjectCallbackURL is SetCallbackURL for the project with public key
// key; it returns the URL it replaced, so that a test that points
// callbacks elsewhere for a while can put back exactly that. An unknown key
// is ErrUnknownProject.
func (s *Server) SetProjectCallbackURL(key, u string) (previous string, err error) {
	if u != "" {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || len(u) > maxControlValue {
			return "", fmt.Errorf("%w: %q is not an absolute http(s) URL", ErrInvalidCallbackURL, u)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.st.projects[key]
	if p == nil {
		return "", fmt.Errorf("%w: %q", ErrUnknownProject, key)
	}
	previous = p.CallbackURL
	p.CallbackURL = u
	return previous, nil
}

// ProjectCallbackURL is the callback URL of the project with public key
// key: empty when its callbacks are recorded only, or when no project has
// that key.
func (s *Server) ProjectCallbackURL(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.st.projects[key]; p != nil {
		return p.CallbackURL
	}
	return ""
}
