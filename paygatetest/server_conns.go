package paygatetest

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// maxConnections is how many connections the server holds at once. It is
// well under the common limit of 1,024 descriptors a process, so that
// idle connections can never take the descriptors a new request needs.
const maxConnections = 512

// connLimiter is a listener that holds at most max connections. When a new
// connection arrives at the cap, it closes the one that has waited longest
// without a request in progress (an idle keep-alive connection, or one that
// has not sent its request yet); when every connection is serving a
// request, the new one waits in the listen queue until one is done. So
// idle connections, however many are opened, never keep a request from
// being served, and a connection is never cut in the middle of a request.
type connLimiter struct {
	net.Listener
	max int

	mu      sync.Mutex
	changed *sync.Cond // a connection closed or became idle, or the listener closed
	conns   map[*limitedConn]struct{}
	closed  bool
}

// limitedConn is a connection counted by its connLimiter.
type limitedConn struct {
	net.Conn
	l *connLimiter
	// waitingSince is when the connection last finished a request, or was
	// accepted; zero while a request is in progress. Guarded by l.mu.
	waitingSince time.Time
}

func newConnLimiter(ln net.Listener, max int) *connLimiter {
	l := &connLimiter{Listener: ln, max: max, conns: make(map[*limitedConn]struct{})}
	l.changed = sync.NewCond(&l.mu)
	return l
}

// Accept accepts the next connection and hands it over once the server
// holds fewer than max others, making room if it can. Room is made only
// for a connection that has arrived, so that a connection is closed only
// when another needs its place.
func (l *connLimiter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	lc := &limitedConn{Conn: c, l: l}
	if err := l.admit(lc); err != nil {
		c.Close()
		return nil, err
	}
	return lc, nil
}

// admit counts c in once there is room for it.
func (l *connLimiter) admit(c *limitedConn) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.conns) >= l.max {
		if l.closed {
			return net.ErrClosed
		}
		if oldest := l.longestWaiting(); oldest != nil {
			delete(l.conns, oldest)
			_ = oldest.Conn.Close() // the server sees its read fail and lets it go
			continue
		}
		l.changed.Wait()
	}
	c.waitingSince = time.Now()
	l.conns[c] = struct{}{}
	return nil
}

// longestWaiting returns the connection that has waited longest without a
// request in progress, or nil when every one is serving a request.
func (l *connLimiter) longestWaiting() *limitedConn {
	var oldest *limitedConn
	for c := range l.conns {
		if !c.waitingSince.IsZero() && (oldest == nil || c.waitingSince.Before(oldest.waitingSince)) {
			oldest = c
		}
	}
	return oldest
}

// Close stops accepting and wakes an Accept waiting for room.
func (l *connLimiter) Close() error {
	l.mu.Lock()
	l.closed = true
	l.changed.Broadcast()
	l.mu.Unlock()
	return l.Listener.Close()
}

// track is the http.Server's ConnState hook: it learns which connections
// are serving a request.
func (l *connLimiter) track(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch state {
	case http.StateIdle:
		lc.waitingSince = time.Now()
		l.changed.Signal()
	case http.StateActive, http.StateHijacked:
		lc.waitingSince = time.Time{}
	case http.StateClosed:
		l.forget(lc)
	}
}

// Close closes the connection and counts it out.
func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	c.l.forget(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// forget counts c out; l.mu is held.
func (l *connLimiter) forget(c *limitedConn) {
	if _, ok := l.conns[c]; ok {
		delete(l.conns, c)
		l.changed.Signal()
	}
}
