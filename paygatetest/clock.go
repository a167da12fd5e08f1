package paygatetest

import (
	"math"
	"sync"
	"time"
)

// Clock is the sandbox's notion of the current time. Token expiry (10
// minutes), recurring frequency and end dates, and every createdAt and
// updatedAt are read from it, so a test can move time forward with Advance
// instead of sleeping.
//
// A Clock made by NewClock stands still until advanced. The clock a server
// makes when none is given follows the real time, plus whatever Advance
// added. One Clock may be shared by several servers.
type Clock struct {
	mu        sync.Mutex
	frozen    bool
	base      time.Time
	offset    time.Duration
	nextSub   int
	listeners map[int]func()
}

// NewClock returns a clock that reads start (in UTC) until advanced.
func NewClock(start time.Time) *Clock {
	return &Clock{frozen: true, base: start.UTC()}
}

// newRealClock returns a clock that follows the real time.
func newRealClock() *Clock { return &Clock{} }

// followsRealTime reports whether the clock moves by itself.
func (c *Clock) followsRealTime() bool { return !c.frozen }

// Now returns the current time in UTC.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.frozen {
		return c.base.Add(c.offset)
	}
	return time.Now().UTC().Add(c.offset)
}

// Advance moves the clock forward by d; a clock moved beyond what a
// time.Duration holds stays in the far future. Every server using the clock then
// settles its processing payments and payouts at once, as if their short
// processing delay had passed, and makes the automatic recurring payments
// that have come due.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	if d > 0 && c.offset > math.MaxInt64-d {
		c.offset = math.MaxInt64 // the far future, not a wrap into the past
	} else {
		c.offset += d
	}
	fns := make([]func(), 0, len(c.listeners))
	for _, f := range c.listeners {
		fns = append(fns, f)
	}
	c.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// subscribe registers f to run after every Advance; the returned function
// removes it.
func (c *Clock) subscribe(f func()) (cancel func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listeners == nil {
		c.listeners = make(map[int]func())
	}
	id := c.nextSub
	c.nextSub++
	c.listeners[id] = f
	return func() {
		c.mu.Lock()
		delete(c.listeners, id)
		c.mu.Unlock()
	}
}
