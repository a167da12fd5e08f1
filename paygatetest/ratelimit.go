package paygatetest

import (
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// Bounds of key guessing: a wrong key on the dashboard's key form or a
// login link, a wrong bearer key or session cookie on the control plane,
// a wrong signature on /v1 (40301). Per client address a burst of
// guessBurst, then guessRate a second: an address past its budget gets
// 429 with Retry-After whatever it sends, its key not looked at. All
// addresses together a burst of globalGuessBurst, then globalGuessRate a
// second: past that, a key is still looked at, so that the right one gets
// in whoever else guesses, but the answer to a wrong one is held (up to
// maxGuessHold) until the shared budget has room for it. The holder of
// the key is so never refused by others' guesses, while a guesser with
// many addresses waits for every answer on a connection of the bounded
// number the server holds (maxConnections).
const (
	guessRate        = 2.0
	guessBurst       = 20
	globalGuessRate  = 20.0
	globalGuessBurst = 100
	// maxGuessHold is the longest a wrong guess's answer is held: the
	// shared budget's deficit is bounded by its burst.
	maxGuessHold = time.Duration((1 + globalGuessBurst) / globalGuessRate * float64(time.Second))
	// maxGuessers bounds the addresses remembered. When it is reached,
	// the addresses whose budget refilled are forgotten (at most once a
	// second: it looks at every one); an address that finds no room is
	// counted in the shared budget only, and so never refused.
	maxGuessers = 10000
)

// guessLimiter counts wrong keys per client address and in all, in token
// buckets on real time: the sandbox's clock may stand still or jump. Its
// state is bounded: maxGuessers addresses and one shared bucket.
type guessLimiter struct {
	mu     sync.Mutex
	now    func() time.Time
	global bucket
	byAddr map[string]*bucket
	swept  time.Time // when forgetRefilled last ran
}

// bucket is a token bucket: tokens refill at rate a second up to burst. A
// guess takes one; tokens may go below zero (guesses that raced past the
// check, or that were held), which makes the wait longer, down to -burst.
type bucket struct {
	tokens float64
	at     time.Time
}

func newGuessLimiter(now func() time.Time) *guessLimiter {
	return &guessLimiter{now: now, global: bucket{tokens: globalGuessBurst, at: now()}, byAddr: make(map[string]*bucket)}
}

// wait is how long the client at addr must wait before a key it sends is
// looked at; 0 when it may guess now. Only its own wrong guesses make it
// wait, never others'. Asking while it must wait counts against its
// budget, so a client that keeps hammering keeps waiting.
func (l *guessLimiter) wait(addr string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.byAddr[addr]
	if b == nil {
		return 0
	}
	now := l.now()
	if b.wait(now, guessRate, guessBurst) > 0 {
		b.take(now, guessRate, guessBurst)
	}
	return b.wait(now, guessRate, guessBurst)
}

// wrong counts a wrong key from addr, and returns how long its answer is
// to be held: 0 while all addresses together are within the shared
// budget, else until it has room for this guess (at most maxGuessHold).
func (l *guessLimiter) wrong(addr string) (hold time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	hold = min(l.global.wait(now, globalGuessRate, globalGuessBurst), maxGuessHold)
	l.global.take(now, globalGuessRate, globalGuessBurst)
	b := l.byAddr[addr]
	if b == nil {
		if len(l.byAddr) >= maxGuessers && now.Sub(l.swept) >= time.Second {
			l.forgetRefilled(now)
		}
		if len(l.byAddr) >= maxGuessers {
			return hold // the shared budget counted it
		}
		b = &bucket{tokens: guessBurst, at: now}
		l.byAddr[addr] = b
	}
	b.take(now, guessRate, guessBurst)
	return hold
}

// forgetRefilled drops the addresses whose budget is full again: they are
// as good as new.
func (l *guessLimiter) forgetRefilled(now time.Time) {
	l.swept = now
	for addr, b := range l.byAddr {
		if b.refill(now, guessRate, guessBurst) >= guessBurst {
			delete(l.byAddr, addr)
		}
	}
}

func (b *bucket) refill(now time.Time, rate, burst float64) float64 {
	if now.After(b.at) {
		b.tokens = math.Min(burst, b.tokens+now.Sub(b.at).Seconds()*rate)
		b.at = now
	}
	return b.tokens
}

func (b *bucket) wait(now time.Time, rate, burst float64) time.Duration {
	if t := b.refill(now, rate, burst); t < 1 {
		return time.Duration((1 - t) / rate * float64(time.Second))
	}
	return 0
}

func (b *bucket) take(now time.Time, rate, burst float64) {
	b.tokens = math.Max(-burst, b.refill(now, rate, burst)-1)
}

// clientAddress is the address a request came from, without the port;
// an IPv6 address stands for its /64, which one host is commonly given
// whole. Forwarding headers are not read: anyone can write them.
func clientAddress(r *http.Request) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	a := ap.Addr().Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// holdWrongGuess counts a wrong key from r's client and holds the answer
// as long as guessLimiter.wrong says, or until the client goes away or
// the server closes.
func (s *Server) holdWrongGuess(r *http.Request) {
	hold := s.guesses.wrong(clientAddress(r))
	if hold <= 0 {
		return
	}
	t := time.NewTimer(hold)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	case <-s.closed:
	}
}

// retryAfter sets Retry-After to wait in whole seconds, at least 1.
func retryAfter(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(max(wait, time.Second).Seconds()))))
}
