package dedupstore

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A call stuck on a stalled connection is abandoned when its context
// ends: the caller gets the context's error at once, the call's result
// is dropped when it comes.
func TestAbandon_ReturnsWhenTheContextEndsWhileTheCallHangs(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Abandon(ctx, func() (int, error) { <-release; return 1, nil })
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Abandon = %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Abandon waited for the hanging call")
	}
}

func TestAbandon_ReturnsTheCallsResult(t *testing.T) {
	boom := errors.New("boom")
	v, err := Abandon(context.Background(), func() (int, error) { return 7, boom })
	if v != 7 || !errors.Is(err, boom) {
		t.Fatalf("Abandon = %d, %v; want 7, boom", v, err)
	}
}

// An ended context never reaches the engine.
func TestAbandon_EndedContextNeverMakesTheCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	if _, err := Abandon(ctx, func() (int, error) { called = true; return 0, nil }); !errors.Is(err, context.Canceled) || called {
		t.Fatalf("Abandon = %v, called = %v; want context.Canceled without the call", err, called)
	}
}
