// Package dedupsuite holds the behaviour every shared CallbackDedupStore
// must show, run by the tests of each store against a real engine: many
// replicas processing each callback exactly once, a crashed replica's claim
// expiring after the lease, and order kept per transaction.
package dedupsuite

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	paygate "github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/internal/dedupstore"
)

// Factory returns a store with its own connection to the shared engine,
// whose claims last lease.
type Factory func(t testing.TB, lease time.Duration) paygate.CallbackDedupStore

// secret signs the suite's callbacks.
const secret = "dedupsuite-private-key"

// Sizes of the replica test, as the issue asks.
const (
	replicas   = 4
	callbacks  = 2000
	deliveries = 3  // of each callback, concurrently, to random replicas
	failEvery  = 10 // the first attempt of one callback in failEvery fails
	drivers    = 16 // callbacks delivered at once
	retryPause = 5 * time.Millisecond
)

// Replicas runs replicas CallbackHandlers, each with its own store from
// newStore, behind their own loopback servers, and delivers each of
// callbacks signed callbacks deliveries times at once to random replicas,
// redelivering (as the gateway does) until a replica answers 2xx. The
// merchant function fails the first attempt of every failEvery-th
// callback. Every callback must be processed successfully exactly once.
func Replicas(t *testing.T, newStore Factory) {
	const firstID = paygate.ID(7_000_000_000_000_000_001)
	var attempts, successes [callbacks]atomic.Int32
	fn := func(_ context.Context, cb *paygate.Callback) error {
		i := int(cb.ID - firstID)
		if i < 0 || i >= callbacks {
			return fmt.Errorf("unexpected callback id %s", cb.ID)
		}
		if attempts[i].Add(1) == 1 && i%failEvery == 0 {
			return errors.New("ledger unavailable")
		}
		successes[i].Add(1)
		return nil
	}
	urls := make([]string, replicas)
	for r := range urls {
		urls[r] = serve(t, fn, newStore(t, time.Minute))
	}
	signer := paygate.NewTestCallbackSigner(secret, paygate.FormExtended)
	bodies := make([]string, callbacks)
	for i := range bodies {
		bodies[i] = signer.Body(paygate.CallbackCompleted, url.Values{
			"id":       {(firstID + paygate.ID(i)).String()},
			"order_id": {fmt.Sprintf("order-%d", i)},
		})
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: drivers * deliveries}}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var redeliveries atomic.Int64
	next := make(chan int)
	var wg sync.WaitGroup
	for range drivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var each sync.WaitGroup
				for range deliveries {
					each.Add(1)
					go func() {
						defer each.Done()
						n, err := deliverUntilAcknowledged(ctx, client, urls, bodies[i])
						redeliveries.Add(int64(n))
						if err != nil {
							t.Errorf("callback %d: %v", i, err)
						}
					}()
				}
				each.Wait()
			}
		}()
	}
	for i := range callbacks {
		next <- i
	}
	close(next)
	wg.Wait()

	var failedFirst int
	for i := range callbacks {
		if got := successes[i].Load(); got != 1 {
			t.Errorf("callback %d processed successfully %d times, want exactly once", i, got)
		}
		if i%failEvery == 0 {
			failedFirst++
		}
	}
	t.Logf("%d callbacks x %d deliveries on %d replicas: %d redeliveries after a non-2xx answer, %d first attempts failed",
		callbacks, deliveries, replicas, redeliveries.Load(), failedFirst)
}

// Crash claims a callback through one store and abandons the claim, as a
// replica that died mid-processing would. A delivery to another replica
// before the lease ends is answered 503 without processing; redelivered
// until acknowledged, the callback is processed once, not before the lease
// ended, and never again.
func Crash(t *testing.T, newStore Factory, lease time.Duration) {
	ctx := context.Background()
	signer := paygate.NewTestCallbackSigner(secret, paygate.FormExtended)
	body := signer.Body(paygate.CallbackCompleted, nil)
	cb := parse(t, signer.Values(paygate.CallbackCompleted, nil))

	dead := newStore(t, lease)
	claimed := time.Now()
	if c, err := dead.Claim(ctx, cb.DedupKey()); err != nil || c != paygate.DedupAcquired {
		t.Fatalf("first replica's claim = %v, %v; want acquired", c, err)
	}

	var calls atomic.Int32
	var processedAt atomic.Int64
	live := serve(t, func(context.Context, *paygate.Callback) error {
		calls.Add(1)
		processedAt.Store(time.Now().UnixNano())
		return nil
	}, newStore(t, lease))

	code, err := post(ctx, http.DefaultClient, live, body)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(claimed) < lease && code != http.StatusServiceUnavailable {
		t.Fatalf("delivery during the dead replica's lease answered %d, want 503", code)
	}
	if _, err := deliverUntilAcknowledged(ctx, http.DefaultClient, []string{live}, body); err != nil {
		t.Fatal(err)
	}
	if code, err := post(ctx, http.DefaultClient, live, body); err != nil || code != http.StatusOK {
		t.Fatalf("later delivery = %d, %v; want 200", code, err)
	}
	if got := calls.Load(); got != 1 {
		t.Fatalf("callback processed %d times after the crash, want once", got)
	}
	// The store's clock and ours tick alike on one machine; a millisecond
	// of rounding is allowed for expiry in whole milliseconds.
	if waited := time.Unix(0, processedAt.Load()).Sub(claimed); waited < lease-time.Millisecond {
		t.Fatalf("processed %v after the dead replica's claim, before its lease of %v ended", waited, lease)
	}
}

// Ordering delivers a payment's callbacks out of order to two replicas
// sharing the engine: a completed arriving after the refund_completed of
// the same payment reaches the function marked Stale; in-order callbacks,
// another payment and a recurring charge naming the refunded payment as its
// reference are not stale.
func Ordering(t *testing.T, newStore Factory) {
	if _, ok := newStore(t, time.Minute).(paygate.CallbackOrderStore); !ok {
		t.Fatal("the store does not keep order: it is no paygate.CallbackOrderStore")
	}
	ctx := context.Background()
	seen := make(chan *paygate.Callback, 16)
	fn := func(_ context.Context, cb *paygate.Callback) error { seen <- cb; return nil }
	a, b := serve(t, fn, newStore(t, time.Minute)), serve(t, fn, newStore(t, time.Minute))
	signer := paygate.NewTestCallbackSigner(secret, paygate.FormExtended)
	payment, refund, other, recurring := paygate.ID(8_100_000_000_000_000_001), paygate.ID(8_100_000_000_000_000_002),
		paygate.ID(8_100_000_000_000_000_003), paygate.ID(8_100_000_000_000_000_004)
	steps := []struct {
		replica   string
		status    paygate.CallbackStatus
		id, ref   paygate.ID
		wantStale bool
	}{
		{a, paygate.CallbackProcessing, other, 0, false},
		{b, paygate.CallbackCompleted, other, 0, false},
		{a, paygate.CallbackRefundCompleted, refund, payment, false},
		{b, paygate.CallbackCompleted, payment, 0, true},
		{a, paygate.CallbackProcessing, payment, 0, true},
		{b, paygate.CallbackCompleted, recurring, payment, false},
		{a, paygate.CallbackRefundCompleted, refund + 10, other, false},
	}
	for _, s := range steps {
		fields := url.Values{"id": {s.id.String()}, "reference_id": {""}}
		if s.ref != 0 {
			fields.Set("reference_id", s.ref.String())
		}
		code, err := post(ctx, http.DefaultClient, s.replica, signer.Body(s.status, fields))
		if err != nil || code != http.StatusOK {
			t.Fatalf("%s of %s: %d, %v", s.status, s.id, code, err)
		}
		select {
		case cb := <-seen:
			if cb.Stale != s.wantStale {
				t.Errorf("%s of %s after the earlier steps: Stale = %v, want %v", s.status, s.id, cb.Stale, s.wantStale)
			}
		default:
			t.Fatalf("%s of %s did not reach the function", s.status, s.id)
		}
	}
	order := newStore(t, time.Minute).(paygate.CallbackOrderStore)
	for id, want := range map[paygate.ID]paygate.CallbackStatus{
		payment: paygate.CallbackRefundCompleted, other: paygate.CallbackRefundCompleted,
		recurring: paygate.CallbackCompleted, refund: "",
	} {
		if got, err := order.LatestStatus(ctx, id); err != nil || got != want {
			t.Errorf("LatestStatus(%s) = %q, %v; want %q", id, got, err, want)
		}
	}
}

// ReleaseKeepsATakenOverClaim lets one replica's claim lapse while its
// function runs and another replica take the callback over: the first
// replica's late Release must leave the second one's claim in place.
func ReleaseKeepsATakenOverClaim(t *testing.T, newStore Factory) {
	ctx := context.Background()
	a, b := newStore(t, 50*time.Millisecond), newStore(t, time.Minute)
	k := key(rand.Uint64())
	if c, err := a.Claim(ctx, k); err != nil || c != paygate.DedupAcquired {
		t.Fatalf("a: Claim = %v, %v", c, err)
	}
	claimAfterLease(t, b, k)
	if err := a.Release(ctx, k); err != nil {
		t.Fatal(err)
	}
	if c, err := newStore(t, time.Minute).Claim(ctx, k); err != nil || c != paygate.DedupBusy {
		t.Fatalf("after a's late Release, Claim = %v, %v; want busy: b's claim stands", c, err)
	}
}

// CompleteAfterATakeOverReportsTheLostLease lets one replica's claim lapse
// and another replica take the callback over: the first replica's Complete
// reports ErrLeaseLost (the callback ran twice) and records the callback as
// processed all the same.
func CompleteAfterATakeOverReportsTheLostLease(t *testing.T, newStore Factory) {
	ctx := context.Background()
	a, b := newStore(t, 20*time.Millisecond), newStore(t, time.Minute)
	k := key(rand.Uint64())
	if c, err := a.Claim(ctx, k); err != nil || c != paygate.DedupAcquired {
		t.Fatalf("a: Claim = %v, %v", c, err)
	}
	claimAfterLease(t, b, k)
	if err := a.Complete(ctx, k); !errors.Is(err, dedupstore.ErrLeaseLost) {
		t.Fatalf("a.Complete = %v, want ErrLeaseLost", err)
	}
	if c, err := newStore(t, time.Minute).Claim(ctx, k); err != nil || c != paygate.DedupProcessed {
		t.Fatalf("Claim = %v, %v; want processed: recorded all the same", c, err)
	}
}

// claimAfterLease claims k through s, retrying while another claim holds
// it, as deliveries after a lapsed lease would.
func claimAfterLease(t *testing.T, s paygate.CallbackDedupStore, k paygate.DedupKey) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := s.Claim(context.Background(), k)
		if err != nil {
			t.Fatal(err)
		}
		if c == paygate.DedupAcquired {
			return
		}
		if c != paygate.DedupBusy || time.Now().After(deadline) {
			t.Fatalf("Claim = %v; the other claim never lapsed", c)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ClaimComplete measures one callback's claim and completion, a new
// callback each iteration, as a replica processing fresh callbacks does.
func ClaimComplete(b *testing.B, store paygate.CallbackDedupStore) {
	ctx := context.Background()
	base := rand.Uint64()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := key(base + uint64(i))
		if c, err := store.Claim(ctx, k); err != nil || c != paygate.DedupAcquired {
			b.Fatalf("claim = %v, %v", c, err)
		}
		if err := store.Complete(ctx, k); err != nil {
			b.Fatal(err)
		}
	}
}

// key is the key of a distinct completed callback numbered n.
func key(n uint64) paygate.DedupKey {
	id := paygate.ID(n>>2 + 1)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return paygate.DedupKey{ID: id, Status: paygate.CallbackCompleted, Transaction: id, Digest: sha256.Sum256(b[:])}
}

// serve runs a CallbackHandler on store behind a loopback server and
// returns its URL.
func serve(t *testing.T, fn paygate.CallbackFunc, store paygate.CallbackDedupStore) string {
	t.Helper()
	h, err := paygate.NewCallbackHandler([]string{secret}, fn, paygate.WithDedupStore(store))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// parse verifies signed callback values as a handler would.
func parse(t *testing.T, v url.Values) *paygate.Callback {
	t.Helper()
	verifier, err := paygate.NewCallbackVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := verifier.ParseValues(v)
	if err != nil {
		t.Fatal(err)
	}
	return cb
}

// deliverUntilAcknowledged posts body to random replicas until one answers
// 2xx, as the gateway redelivers; it returns how many answers were not.
func deliverUntilAcknowledged(ctx context.Context, client *http.Client, urls []string, body string) (int, error) {
	for n := 0; ; n++ {
		code, err := post(ctx, client, urls[rand.IntN(len(urls))], body)
		if err == nil && code/100 == 2 {
			return n, nil
		}
		select {
		case <-ctx.Done():
			return n, fmt.Errorf("never acknowledged (last: %d, %v)", code, err)
		case <-time.After(retryPause):
		}
	}
}

func post(ctx context.Context, client *http.Client, target, body string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}
