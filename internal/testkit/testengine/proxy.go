package testengine

import (
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to an engine and can stall them, as a
// network path that stops delivering packets does: the connections stay
// open and what is sent is never answered. A client waiting on a stalled
// connection learns nothing until it gives up on it.
type Proxy struct {
	l      net.Listener
	target string

	mu      sync.Mutex
	stalled Direction
	conns   map[net.Conn]struct{}
}

// Direction says which way a Proxy stops forwarding.
type Direction int

const (
	// Forward is no stall: both ways are forwarded.
	Forward Direction = iota
	// StallAnswers drops what the engine sends: requests reach it and are
	// carried out, their answers are lost.
	StallAnswers
	// StallBoth drops what either side sends: nothing reaches the engine.
	StallBoth
)

// NewProxy listens on a free loopback port and forwards each connection to
// target (host:port); it is closed when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{l: l, target: target, conns: make(map[net.Conn]struct{})}
	go p.accept()
	t.Cleanup(func() {
		_ = l.Close()
		p.closeAll()
	})
	return p
}

// Addr returns the address clients connect to, host:port.
func (p *Proxy) Addr() string { return p.l.Addr().String() }

// Stall stops forwarding in direction d on every connection, open or new,
// until Resume.
func (p *Proxy) Stall(d Direction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stalled = d
}

// Resume closes the connections that were stalled, as the kernels at
// either end eventually do, and forwards again.
func (p *Proxy) Resume() {
	p.mu.Lock()
	p.stalled = Forward
	p.mu.Unlock()
	p.closeAll()
}

func (p *Proxy) accept() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *Proxy) forward(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	p.mu.Lock()
	p.conns[client], p.conns[server] = struct{}{}, struct{}{}
	p.mu.Unlock()
	go p.copy(server, client, StallBoth)
	p.copy(client, server, StallAnswers)
}

// copy forwards src to dst, dropping what it reads while the proxy is
// stalled at level or beyond, and closes both when either ends.
func (p *Proxy) copy(dst, src net.Conn, level Direction) {
	defer p.close(dst, src)
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.drops(level) {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // closed by either side, or by Resume
		}
	}
}

// drops reports whether what flows in the direction level stalls is
// dropped now.
func (p *Proxy) drops(level Direction) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stalled >= level
}

func (p *Proxy) close(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

func (p *Proxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}
