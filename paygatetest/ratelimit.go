package paygatetest

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Bounds of key guessing (the dashboard's key form, and a control-plane
// request with a wrong key or session): per client address a burst of
// guessBurst, then guessRate a second; all addresses together a burst of
// globalGuessBurst, then globalGuessRate a second. A client past its
// budget gets 429 with Retry-After, whatever key it sends.
const (
	guessRate        = 2.0
	guessBurst       = 20
	globalGuessRate  = 20.0
	globalGuessBurst = 100
	// maxGuessers bounds the addresses remembered; beyond it, addresses
	// whose budget refilled are forgotten, and a new address waits when
	// none has.
	maxGuessers = 10000
)

// guessLimiter counts wrong keys per client address and in all, in token
// buckets on real time: the sandbox's clock may stand still or jump.
type guessLimiter struct {
	mu     sync.Mutex
	now    func() time.Time
	global bucket
	byAddr map[string]*bucket
}

// bucket is a token bucket: tokens refill at rate a second up to burst. A
// guess takes one; tokens may go below zero (guesses that raced past the
// check), which makes the wait longer, down to -burst.
type bucket struct {
	tokens float64
	at     time.Time
}

func newGuessLimiter(now func() time.Time) *guessLimiter {
	return &guessLimiter{now: now, global: bucket{tokens: globalGuessBurst, at: now()}, byAddr: make(map[string]*bucket)}
}

// wait is how long the client at addr must wait before its next guess
// counts; 0 when it may guess now. Asking while it must wait counts
// against its own budget, so a client that keeps hammering keeps waiting.
func (l *guessLimiter) wait(addr string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	w := l.global.wait(now, globalGuessRate, globalGuessBurst)
	if b := l.byAddr[addr]; b != nil {
		if b.wait(now, guessRate, guessBurst) > 0 {
			b.take(now, guessRate, guessBurst)
		}
		w = max(w, b.wait(now, guessRate, guessBurst))
	} else if len(l.byAddr) >= maxGuessers {
		w = max(w, time.Second)
	}
	return w
}

// wrong counts a wrong key from addr.
func (l *guessLimiter) wrong(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.global.take(now, globalGuessRate, globalGuessBurst)
	b := l.byAddr[addr]
	if b == nil {
		if len(l.byAddr) >= maxGuessers {
			l.forgetRefilled(now)
		}
		if len(l.byAddr) >= maxGuessers {
			return // the global bucket still counted it
		}
		b = &bucket{tokens: guessBurst, at: now}
		l.byAddr[addr] = b
	}
	b.take(now, guessRate, guessBurst)
}

// forgetRefilled drops the addresses whose budget is full again: they are
// as good as new.
func (l *guessLimiter) forgetRefilled(now time.Time) {
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

// clientAddress is the address a request came from, without the port.
// Forwarding headers are not read: anyone can write them.
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// retryAfter sets Retry-After to wait in whole seconds, at least 1.
func retryAfter(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(max(wait, time.Second).Seconds()))))
}
