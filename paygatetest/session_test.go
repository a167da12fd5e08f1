package paygatetest

import (
	"testing"
	"time"
)

// FuzzSessionCookie sends arbitrary cookie values: only the value a
// sign-in issued opens a session, and nothing panics.
func FuzzSessionCookie(f *testing.F) {
	now := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	ss := newSessions(now)
	p := &Project{Key: "k", Secret: NewSecret("s")}
	issued := ss.start(p)
	lookup := func(key string) *Project {
		if key == p.Key {
			return p
		}
		return nil
	}
	f.Add(issued)
	f.Add(issued[:len(issued)-1] + "0")
	f.Add("." + issued)
	f.Add("")
	f.Add(".")
	f.Fuzz(func(t *testing.T, v string) {
		if _, _, ok := ss.check(v, lookup); ok && v != issued {
			t.Fatalf("cookie %q opened the session of %q", v, issued)
		}
	})
}

func TestSessions_ExpireAndEndAtTheNextSignIn(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ss := newSessions(func() time.Time { return at })
	p := &Project{Key: "k", Secret: NewSecret("s")}
	lookup := func(string) *Project { return p }
	first := ss.start(p)
	if _, _, ok := ss.check(first, lookup); !ok {
		t.Fatal("a new session is open")
	}
	at = at.Add(sessionLifetime + time.Second)
	if _, _, ok := ss.check(first, lookup); ok {
		t.Fatal("a session past its lifetime is closed")
	}
	second := ss.start(p)
	if _, _, ok := ss.check(second, lookup); !ok {
		t.Fatal("signing in again opens a session")
	}
	other := &Project{Key: "k", Secret: NewSecret("another key")}
	if _, _, ok := ss.check(second, func(string) *Project { return other }); ok {
		t.Fatal("the session is bound to the project's key")
	}
}
