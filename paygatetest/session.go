package paygatetest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"time"
)

// sessionLifetime is how long a dashboard sign-in lasts, in real time.
const sessionLifetime = 12 * time.Hour

// sessions are the dashboard's sign-ins: one live session per project, so
// that signing in again ends the session before it (a cookie that leaked
// stops working). A cookie holds a random session id and an HMAC, under a
// secret the server draws at start, of the id and the project with its key:
// never the key, and worthless on another server or for another project.
type sessions struct {
	secret []byte
	now    func() time.Time

	mu   sync.Mutex
	byID map[string]session
	live map[string]string // session id by project key
}

type session struct {
	project string // key
	started time.Time
}

func newSessions(now func() time.Time) *sessions {
	return &sessions{secret: []byte(randomHex(32)), now: now, byID: make(map[string]session), live: make(map[string]string)}
}

// start signs p in and returns the cookie's value; p's previous session
// ends.
func (ss *sessions) start(p *Project) string {
	id := randomHex(16)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.byID, ss.live[p.Key])
	ss.live[p.Key] = id
	ss.byID[id] = session{project: p.Key, started: ss.now()}
	return id + "." + ss.mac("session", p, id)
}

// check returns the session id of cookie value v, when it is the live
// session of a project in projects and has not expired.
func (ss *sessions) check(v string, projects func(key string) *Project) (*Project, string, bool) {
	id, mac, ok := strings.Cut(v, ".")
	if !ok {
		return nil, "", false
	}
	ss.mu.Lock()
	sess, found := ss.byID[id]
	ss.mu.Unlock()
	if !found || ss.now().Sub(sess.started) > sessionLifetime {
		return nil, "", false
	}
	p := projects(sess.project)
	if p == nil || !equalSecret(mac, ss.mac("session", p, id)) {
		return nil, "", false
	}
	return p, id, true
}

// formToken is the token of the dashboard's forms in session id of p ("":
// a page opened with the bearer key, whose forms no browser can send
// without a session anyway).
func (ss *sessions) formToken(p *Project, id string) string { return ss.mac("form", p, id) }

func (ss *sessions) mac(purpose string, p *Project, id string) string {
	m := hmac.New(sha256.New, ss.secret)
	for _, part := range []string{purpose, p.Key, p.Secret.Reveal(), id} {
		m.Write([]byte(part))
		m.Write([]byte{0})
	}
	return hex.EncodeToString(m.Sum(nil))
}
