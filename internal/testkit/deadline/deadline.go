// Package deadline bounds the waits of tests on a callback handler, a
// de-duplication store, a signer or the sandbox: a deadlock fails the test
// in seconds, naming what hung, instead of stalling the run until go
// test's timeout. Only tests import it.
package deadline

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Limit bounds each wait of a test on a callback handler, a dedup
// store, a signer or the sandbox: a deadlock fails the test in seconds,
// naming what hung, instead of stalling the run until go test's timeout.
// It is generous, for a loaded machine running -race.
const Limit = 10 * time.Second

// Within runs f and fails the test when f has not returned after
// Limit; f is left running then, the test fails anyway. A panic in
// f is raised again in the caller.
func Within(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan any, 1)
	go func() {
		panicked := true
		defer func() {
			if panicked {
				done <- recover()
			}
		}()
		f()
		panicked = false
		done <- nil
	}()
	timer := time.NewTimer(Limit)
	defer timer.Stop()
	select {
	case p := <-done:
		if p != nil {
			panic(p)
		}
	case <-timer.C:
		t.Fatalf("%s did not finish within %v: deadlocked?", what, Limit)
	}
}

// Receive returns the next value from ch, or fails the test when none
// comes within Limit.
func Receive[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	timer := time.NewTimer(Limit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("no %s within %v: deadlocked?", what, Limit)
		panic("unreachable")
	}
}

// WaitWithin waits for wg, or fails the test after Limit.
func WaitWithin(t testing.TB, what string, wg *sync.WaitGroup) {
	t.Helper()
	Within(t, what, wg.Wait)
}

// Serve runs one request through h within Limit and returns the
// answer.
func Serve(t testing.TB, h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	Within(t, "ServeHTTP of "+r.Method+" "+r.URL.Path, func() { h.ServeHTTP(w, r) })
	return w
}
