package paygatetest

import "time"

// AgeLoginLinks moves the time the server's login links are checked
// against d ahead, so that a test of their expiry does not wait.
func (s *Server) AgeLoginLinks(d time.Duration) {
	s.logins.mu.Lock()
	defer s.logins.mu.Unlock()
	now := s.logins.now
	s.logins.now = func() time.Time { return now().Add(d) }
}
