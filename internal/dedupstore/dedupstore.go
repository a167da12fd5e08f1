// Package dedupstore holds what the shared callback de-duplication stores
// (dedup/redisdedup, dedup/pgdedup) have in common: their defaults and the
// tokens of the claims a process holds.
package dedupstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"
)

const (
	// DefaultLease is how long a claim blocks other replicas when the
	// replica holding it dies before completing or releasing it.
	DefaultLease = 60 * time.Second
	// DefaultRetention is how long a processed callback is remembered.
	DefaultRetention = 30 * 24 * time.Hour
)

// ErrLeaseLost is returned by Complete when the claim had expired and
// another replica claimed or processed the callback meanwhile: the
// callback was processed twice, and the lease is shorter than the merchant
// function takes. The callback is recorded as processed all the same.
var ErrLeaseLost = errors.New("callback claim expired and was taken over before Complete: processed twice; lengthen the lease")

// Abandon runs call and returns what it returns, or ctx's error as soon as
// ctx ends first. A driver that stops watching ctx once a command is sent
// (go-redis, unless the client was made with ContextTimeoutEnabled; pgx
// with a context watcher that delays the deadline) would otherwise keep
// the handler waiting on a stalled connection until the driver's own
// timeout, or for ever without one, and past the claim's lease. The call
// abandoned goes on in the background until the driver ends it; what it
// may still write is a claim that lapses after the lease, or a record
// the next delivery finds.
func Abandon[T any](ctx context.Context, call func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err // never reach the engine for an ended call
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := call()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// Tokens remembers the token of each claim this process holds, so that
// Complete and Release act only on a claim that is still this process's
// own. The zero value is ready to use.
type Tokens struct {
	mu sync.Mutex
	m  map[string]string
}

// New returns a fresh random token.
func New() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b[:])
}

// Hold records token as the claim held on key.
func (t *Tokens) Hold(key, token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[string]string)
	}
	t.m[key] = token
}

// Holds reports whether this process holds a claim on key. The holder is
// alive even if the claim's lease lapsed, so a store answers a delivery of
// the same callback to this process busy rather than take the claim over
// (which would also leave two claims sharing key's one token).
func (t *Tokens) Holds(key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.m[key]
	return ok
}

// Take forgets and returns the token held on key, or "" when none is.
func (t *Tokens) Take(key string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	tok := t.m[key]
	delete(t.m, key)
	return tok
}

// Settings are the options both stores take.
type Settings struct {
	Lease     time.Duration
	Retention time.Duration
}

// Defaults returns the settings of a store given no option.
func Defaults() Settings { return Settings{Lease: DefaultLease, Retention: DefaultRetention} }

// SetLease sets the lease; zero or less keeps the current one.
func (s *Settings) SetLease(d time.Duration) {
	if d > 0 {
		s.Lease = d
	}
}

// SetRetention sets the retention; zero or less keeps the current one.
func (s *Settings) SetRetention(d time.Duration) {
	if d > 0 {
		s.Retention = d
	}
}
