package paygatetest

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// Past the shared budget, a fresh address is still let in (its key is
// looked at: the holder of the right one gets in), and only the answer to
// a wrong guess is held, as long as the shared budget needs and no longer
// than maxGuessHold.
func TestGuessLimiter_SharedBudgetHoldsWrongAnswersOnly(t *testing.T) {
	clock := &fakeNow{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newGuessLimiter(clock.now)
	for i := range globalGuessBurst {
		assert.Zero(t, l.wrong("198.51.100."+strconv.Itoa(i%250)), "guess %d is within the shared budget", i+1)
	}
	assert.Zero(t, l.wait("203.0.113.9"), "others' guesses never make a fresh address wait")
	assert.Equal(t, time.Second/globalGuessRate, l.wrong("203.0.113.9"), "its wrong guess is answered when the shared budget has room")
	for range 10 * globalGuessBurst {
		l.wrong("198.51.100.1")
	}
	assert.Equal(t, maxGuessHold, l.wrong("203.0.113.10"), "the hold grows to a bound")
	assert.Zero(t, l.wait("203.0.113.10"))
	clock.t = clock.t.Add(maxGuessHold)
	assert.Zero(t, l.wrong("203.0.113.11"), "once the shared budget refilled, answers are not held")
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

// With every place taken by addresses still waiting, a new address is not
// remembered, and so never refused: it counts in the shared budget only.
func TestGuessLimiter_ANewAddressIsNeverRefusedWhenFull(t *testing.T) {
	clock := &fakeNow{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newGuessLimiter(clock.now)
	for i := range maxGuessers {
		for range guessBurst + 10 {
			l.wrong("a" + strconv.Itoa(i))
		}
	}
	require.Len(t, l.byAddr, maxGuessers)
	clock.t = clock.t.Add(time.Second)
	for range 2 * guessBurst {
		assert.Zero(t, l.wait("holder"))
		l.wrong("holder")
	}
	assert.Len(t, l.byAddr, maxGuessers, "the limiter's state stays bounded")
	assert.Positive(t, l.wait("a1"), "the addresses remembered still wait")
}
