package paygatetest

import (
	"strconv"

	"github.com/paygate/paygate-go"
)

// user is a user of a project.
type user struct {
	id          string
	project     *Project
	identifier  string
	displayName string
	email       string
	phone       string
	ip          string
	locale      string
}

// resolveUser serves user/resolve: 40002 without identifier, 40010 without
// email in the basic form, 40011 without ip. A known identifier returns the
// existing id.
func (s *Server) resolveUser(c *call) (any, *apiError) {
	in := userInput{
		identifier: c.get("identifier"), displayName: c.get("display_name"), email: c.get("email"),
		phone: c.get("phone"), ip: c.get("ip"), locale: c.get("locale"),
	}
	if in.identifier == "" {
		return nil, newError(paygate.CodeUserIdentifierMissing, "")
	}
	if c.basic() && in.email == "" {
		return nil, newError(paygate.CodeUserEmailMissing, "")
	}
	if in.ip == "" {
		return nil, newError(paygate.CodeUserIPMissing, "")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.st.resolveUser(c.project, in)
	n, _ := strconv.ParseInt(u.id, 10, 64)
	return map[string]any{"id": n}, nil
}

type userInput struct {
	identifier, displayName, email, phone, ip, locale string
}

// resolveUser returns the project's user with in.identifier, creating it if
// needed; fields given anew fill fields still empty.
func (s *state) resolveUser(p *Project, in userInput) *user {
	key := p.Key + "\x00" + in.identifier
	u := s.identifiers[key]
	if u == nil {
		u = &user{id: strconv.FormatInt(s.nextUser, 10), project: p, identifier: in.identifier}
		s.nextUser++
		s.identifiers[key] = u
		s.users[u.id] = u
	}
	fill := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	fill(&u.displayName, in.displayName)
	fill(&u.email, in.email)
	fill(&u.phone, in.phone)
	fill(&u.ip, in.ip)
	fill(&u.locale, in.locale)
	return u
}

// lookupUser finds the project's user by internal id: 40002 when id is
// empty, 40406 when unknown.
func (s *state) lookupUser(p *Project, id string) (*user, *apiError) {
	if id == "" {
		return nil, newError(paygate.CodeUserIdentifierMissing, "")
	}
	u := s.users[id]
	if u == nil || u.project != p {
		return nil, newError(paygate.CodeUserNotFound, "")
	}
	return u, nil
}

// userJSON is the User object of responses.
func userJSON(u *user) map[string]any {
	if u == nil {
		return nil
	}
	return map[string]any{
		"id": u.id, "identifier": u.identifier, "displayName": u.displayName, "email": u.email,
		"phone": u.phone, "ip": u.ip, "locale": u.locale,
	}
}
