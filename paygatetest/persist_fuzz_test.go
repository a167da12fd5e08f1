package paygatetest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate-go/paygatetest"
)

// FuzzStateFile starts a sandbox from arbitrary state files: each one is
// refused with ErrStateFile, or taken. A sandbox that took one serves its
// control plane, charges, sends and redelivers callbacks and moves its
// clock with what it restored; the file it then writes is taken again,
// with the same transactions. Never a panic.
func FuzzStateFile(f *testing.F) {
	var calls atomic.Int64
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1)%2 == 0 {
			w.WriteHeader(http.StatusServiceUnavailable) // every other one is retried
		}
	}))
	f.Cleanup(rcv.Close)
	good := filepath.Join(f.TempDir(), "good.json")
	s := paygatetest.NewServer(paygatetest.WithStateFile(good), paygatetest.WithClock(paygatetest.NewClock(testStart)),
		paygatetest.WithCallbackURL(rcv.URL))
	fixtures, err := os.ReadFile("testdata/fixtures/example.json")
	if err != nil {
		f.Fatal(err)
	}
	if _, err := s.LoadFixtures(strings.NewReader(string(fixtures))); err != nil {
		f.Fatal(err)
	}
	s.Close()
	raw, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add([]byte(rangeBase))
	// A callback still to be sent whose count of automatic attempts is
	// below zero: its next attempt would index the retry schedule with it.
	f.Add([]byte(strings.NewReplacer(`"automatic":1`, `"automatic":-1`, `"delivered":true,"done":true`, `"done":false`).Replace(rangeBase)))
	f.Add([]byte(`{"version":1,"next_transaction":9223372036854775807}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`{"version":1,"next_user":2,"users":[{"id":"1","project":"sandbox-project","identifier":"a"}]}`))
	f.Add([]byte(`{"version":1,"next_token":1,"tokens":[{"id":"tmp_0000000000000001","project":"sandbox-project","card":{"number":"4242424242424242"}}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Fuzz(func(t *testing.T, content []byte) {
		// A file must not make the sandbox work for long: a start, a
		// charge, its callback and a restart take well under a second.
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				panic(fmt.Sprintf("over 20 s with the state file %q", content))
			}
		}()
		path := filepath.Join(t.TempDir(), "state.json")
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		start := func() (*sandbox, error) {
			srv, err := paygatetest.Listen("127.0.0.1:0", paygatetest.WithStateFile(path), paygatetest.WithProcessingDelay(0),
				paygatetest.WithClock(paygatetest.NewClock(testStart)), paygatetest.WithCallbackURL(rcv.URL))
			if err != nil {
				return nil, err
			}
			return &sandbox{t: t, srv: srv, clock: srv.Clock(), hc: &http.Client{}}, nil
		}
		s, err := start()
		if err != nil {
			if !errors.Is(err, paygatetest.ErrStateFile) || !strings.Contains(err.Error(), path) {
				t.Fatalf("refused without ErrStateFile naming the file: %v", err)
			}
			return
		}
		defer s.srv.Close()
		s.view()
		id := idOf(s.charge(s.user("fuzz-buyer"), paygatetest.CardApproved, nil))
		for i, d := range s.srv.Deliveries() {
			if i == 8 {
				break
			}
			_ = s.srv.Redeliver(d.Seq) // refused when it has no URL or its queue is full
		}
		s.clock.Advance(2 * time.Hour) // the retries come due
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := s.srv.WaitForDelivery(ctx, func(d paygatetest.Delivery) bool {
			return d.Values.Get("id") == id && d.Attempts > 0
		}); err != nil {
			t.Fatalf("the charge's callback is not sent: %v", err)
		}
		txns, _, _ := s.view()
		s.srv.Close()
		again, err := start()
		if err != nil {
			t.Fatalf("the file the sandbox wrote is refused: %v", err)
		}
		defer again.srv.Close()
		if got, _, _ := again.view(); !reflect.DeepEqual(got, txns) {
			t.Fatalf("the transactions differ after a restart:\n%v\n%v", txns, got)
		}
	})
}

// FuzzFixtures loads arbitrary fixture files: each is made, or refused
// with ErrFixtures; never a panic.
func FuzzFixtures(f *testing.F) {
	raw, err := os.ReadFile("testdata/fixtures/example.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(raw))
	f.Add(`{"users":[{"name":"a"}],"payments":[{"user":"a","card":"4000000000009995"}]}`)
	f.Add(`{"steps":[{"event":"x","transaction":"y"},{"refund":"z"}]}`)
	f.Add(`{"payouts":[{"type":"SEPA","currency":"USD"}]}`)
	srv := paygatetest.NewServer(paygatetest.WithClock(paygatetest.NewClock(testStart)), paygatetest.WithRetention(1000))
	f.Cleanup(srv.Close)
	f.Fuzz(func(t *testing.T, body string) {
		if _, err := srv.LoadFixtures(strings.NewReader(body)); err != nil && !errors.Is(err, paygatetest.ErrFixtures) {
			t.Fatalf("refused without ErrFixtures: %v", err)
		}
	})
}
