// Package cmdtest runs a command's run function in the tests of the
// repository's commands (cmd/paygate-sandbox and the examples): in the
// background on a context the test cancels, with what it prints captured,
// until it says where it listens.
package cmdtest

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// Timeout bounds how long a command may take to listen, and to return
// once cancelled.
const Timeout = 10 * time.Second

// Buffer collects what a command prints; the command may write while the
// test reads.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns all written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Start runs run in the background and returns stop, which cancels run's
// context and fails the test unless run then returns nil within Timeout.
// The end of the test stops it too.
func Start(t testing.TB, run func(ctx context.Context) error) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	stop = sync.OnceFunc(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run returned %v after cancellation", err)
			}
		case <-time.After(Timeout):
			t.Error("run did not return after cancellation")
		}
	})
	t.Cleanup(stop)
	return stop
}

// URL waits until out holds a first line, which must be "listening on
// URL" (the commands print it once they accept connections), and returns
// URL.
func URL(t testing.TB, out *Buffer) string {
	t.Helper()
	for deadline := time.Now().Add(Timeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		line, _, complete := strings.Cut(out.String(), "\n")
		if !complete {
			continue
		}
		url, ok := strings.CutPrefix(line, "listening on ")
		if !ok {
			t.Fatalf("first line %q; want listening on URL", line)
		}
		return url
	}
	t.Fatalf("no line within %v; printed: %q", Timeout, out.String())
	return ""
}
