// Package dedupstore holds what the shared callback de-duplication stores
// (dedup/redisdedup, dedup/pgdedup) have in common: their defaults and the
// tokens of the claims a process holds.
package dedupstore

import (
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

// Take forgets and returns the token held on key, or "" when none is.
func (t *Tokens) Take(key string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	tok := t.m[key]
	delete(t.m, key)
	return tok
}

// Positive returns d when it is positive, def otherwise, so that an option
// given zero keeps the default.
func Positive(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
