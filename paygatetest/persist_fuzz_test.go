package paygatetest_test

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate-go/paygatetest"
)

// FuzzStateFile starts a sandbox from arbitrary state files: each one is
// refused with ErrStateFile, or taken; a sandbox that took one serves its
// control plane, and the file it writes back is taken again. Never a
// panic.
func FuzzStateFile(f *testing.F) {
	good := filepath.Join(f.TempDir(), "good.json")
	s := paygatetest.NewServer(paygatetest.WithStateFile(good), paygatetest.WithClock(paygatetest.NewClock(testStart)))
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
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`{"version":1,"next_user":2,"users":[{"id":"1","project":"sandbox-project","identifier":"a"}]}`))
	f.Add([]byte(`{"version":1,"next_token":1,"tokens":[{"id":"tmp_0000000000000001","project":"sandbox-project","card":{"number":"4242424242424242"}}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Fuzz(func(t *testing.T, content []byte) {
		// A file must not make the sandbox work for long: a start, two
		// lists and a restart take well under a second.
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				panic(fmt.Sprintf("over 10 s with the state file %q", content))
			}
		}()
		path := filepath.Join(t.TempDir(), "state.json")
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		srv, err := paygatetest.Listen("127.0.0.1:0", paygatetest.WithStateFile(path), paygatetest.WithProcessingDelay(0))
		if err != nil {
			if !errors.Is(err, paygatetest.ErrStateFile) || !strings.Contains(err.Error(), path) {
				t.Fatalf("refused without ErrStateFile naming the file: %v", err)
			}
			return
		}
		for _, p := range []string{"/sandbox/transactions?per_page=1000", "/sandbox/deliveries?per_page=1000"} {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+p, nil)
			req.Header.Set("Authorization", "Bearer "+srv.PrivateKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: HTTP %d", p, resp.StatusCode)
			}
		}
		srv.Close()
		again, err := paygatetest.Listen("127.0.0.1:0", paygatetest.WithStateFile(path))
		if err != nil {
			t.Fatalf("the file the sandbox wrote is refused: %v", err)
		}
		again.Close()
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
