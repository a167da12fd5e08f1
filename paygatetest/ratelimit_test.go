package paygatetest

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// fakeNow is a settable time source for the limiter.
type fakeNow struct{ t time.Time }

func (f *fakeNow) now() time.Time { return f.t }

func TestGuessLimiter_BurstThenRatePerAddress(t *testing.T) {
	clock := &fakeNow{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newGuessLimiter(clock.now)
	for i := range guessBurst {
		assert.Zero(t, l.wait("192.0.2.1"), "guess %d of the burst", i+1)
		l.wrong("192.0.2.1")
	}
	assert.Equal(t, time.Second/guessRate, l.wait("192.0.2.1"), "then one guess per 1/rate")
	assert.Zero(t, l.wait("192.0.2.2"), "another address has its own budget")

	clock.t = clock.t.Add(time.Second / guessRate)
	assert.Zero(t, l.wait("192.0.2.1"))
	l.wrong("192.0.2.1")
	assert.Positive(t, l.wait("192.0.2.1"))
}

func TestGuessLimiter_GlobalCapAcrossAddresses(t *testing.T) {
	clock := &fakeNow{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newGuessLimiter(clock.now)
	for i := range globalGuessBurst {
		l.wrong("198.51.100." + strconv.Itoa(i%250))
	}
	assert.Positive(t, l.wait("203.0.113.9"), "a fresh address waits once all guesses together are spent")
	clock.t = clock.t.Add(time.Second)
	assert.Zero(t, l.wait("203.0.113.9"))
}

func TestGuessLimiter_RemembersBoundedAddresses(t *testing.T) {
	clock := &fakeNow{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newGuessLimiter(clock.now)
	for i := range maxGuessers + 10 {
		clock.t = clock.t.Add(time.Second) // the global budget refills
		l.wrong("a" + strconv.Itoa(i))
	}
	assert.LessOrEqual(t, len(l.byAddr), maxGuessers)
}
