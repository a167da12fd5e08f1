package dedupsuite

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate-go/callback"
)

// The fault tests of each store (beside the store: what fails is
// engine-specific) share the delivery below: one new callback, a failure
// of the engine at a chosen moment, then redeliveries as the gateway
// makes them, ending with how often the merchant function ran.

// Fault is a failure of the engine injected around one callback's
// processing.
type Fault struct {
	// During runs inside the merchant function of the first delivery,
	// after the claim and before the store records the callback.
	During func(t *testing.T)
	// After runs once the first delivery was answered, before the
	// redeliveries.
	After func(t *testing.T)
}

// Want is what a Fault must leave of one callback.
type Want struct {
	// First is the answer to the first delivery that ran the function.
	First int
	// Runs is how often the merchant function ran, once a redelivery was
	// acknowledged and one more was too.
	Runs int32
	// Error is part of a line logged at error level, by the handler or
	// the store; "" requires none.
	Error string
}

// NotRecorded is what the handler logs at error level when the function
// processed a callback that the store could not record.
const NotRecorded = "paygate callback processed, but recording it failed"

// FaultRuns delivers one new signed callback to a handler on store
// (logging to logs, as the store should) until a delivery runs the
// function, injecting f around that one; then it redelivers the callback
// until a delivery is acknowledged, as the gateway does, and once more,
// which must be acknowledged without running the function. It fails the
// test unless what happened is want.
func FaultRuns(t *testing.T, store callback.Store, logs *Logs, f Fault, want Want) {
	t.Helper()
	var runs atomic.Int32
	during := f.During
	fn := func(context.Context, *callback.Callback) error {
		if runs.Add(1) == 1 && during != nil {
			during(t)
		}
		return nil
	}
	url := serve(t, fn, store, callback.WithLogger(logs.Logger()))
	signer := newSigner(secret)
	body := signer.Body(callback.Completed, map[string][]string{"id": {callback.ID(rand.Int64N(1<<62) + 1).String()}})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The first delivery that runs the function is the one the fault
	// hits; one before it may have found the store slow (a loaded
	// machine, a connection still being made) and been answered 500.
	first, err := 0, error(nil)
	for runs.Load() == 0 {
		if first, err = post(ctx, http.DefaultClient, url, body); err != nil {
			t.Fatalf("first delivery: %v", err)
		}
	}
	if f.After != nil {
		f.After(t)
	}
	if n, err := deliverUntilAcknowledged(ctx, http.DefaultClient, []string{url}, body); err != nil {
		errs := logs.Errors()
		t.Fatalf("%v after %d redeliveries; the last errors logged:\n%s", err, n, strings.Join(errs[max(0, len(errs)-5):], "\n"))
	}
	before := runs.Load()
	if code, err := post(ctx, http.DefaultClient, url, body); err != nil || code != http.StatusOK || runs.Load() != before {
		t.Fatalf("delivery after the acknowledged one: %d, %v, %d more runs; want 200 without a run", code, err, runs.Load()-before)
	}
	if first != want.First || runs.Load() != want.Runs {
		t.Errorf("first answer %d, function ran %d times; want %d and %d", first, runs.Load(), want.First, want.Runs)
	}
	errs := strings.Join(logs.Errors(), "\n")
	if want.Error != "" && !strings.Contains(errs, want.Error) {
		t.Errorf("logged at error level:\n%s\nwant a line with %q", errs, want.Error)
	}
	t.Logf("function ran %d times; errors logged:\n%s", runs.Load(), errs)
}

// Logs collects what a logger writes, for a test to read.
type Logs struct {
	mu  sync.Mutex
	buf strings.Builder
}

// Logger returns a text logger writing to l at every level.
func (l *Logs) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Write implements io.Writer.
func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// Errors returns the lines logged at error level.
func (l *Logs) Errors() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var lines []string
	for _, line := range strings.Split(l.buf.String(), "\n") {
		if strings.Contains(line, "level=ERROR") {
			lines = append(lines, line)
		}
	}
	return lines
}
