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
	assert.Zero(t, l.wait("192.0.2.2"), "another address has its own budget")
	perGuess := time.Second / guessRate
	assert.Equal(t, 2*perGuess, l.wait("192.0.2.1"), "then one guess per 1/rate; asking while waiting counts too")
	assert.Equal(t, 3*perGuess, l.wait("192.0.2.1"))

	clock.t = clock.t.Add(3 * perGuess)
	assert.Zero(t, l.wait("192.0.2.1"), "who waited may guess again")
	l.wrong("192.0.2.1")
	for range 100 {
		l.wait("192.0.2.1")
	}
	assert.Equal(t, (guessBurst+1)*perGuess, l.wait("192.0.2.1"), "the wait grows to a bound")
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
