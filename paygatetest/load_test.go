package paygatetest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// silentReceiver accepts connections and reads what is sent, but never
// answers: the worst callback receiver. It counts the connections it got.
type silentReceiver struct {
	ln    net.Listener
	conns atomic.Int32
	wg    sync.WaitGroup
}

func newSilentReceiver(t *testing.T) *silentReceiver {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	r := &silentReceiver{ln: ln}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			r.conns.Add(1)
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				defer conn.Close()
				io.Copy(io.Discard, conn) // until the sandbox gives up and closes
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); r.wg.Wait() })
	return r
}

func (r *silentReceiver) URL() string { return "http://" + r.ln.Addr().String() + "/callback" }

// peak samples a figure until stop is closed and returns its largest value.
func peak(stop <-chan struct{}, sample func() int) <-chan int {
	out := make(chan int, 1)
	go func() {
		top := sample()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				out <- max(top, sample())
				return
			case <-tick.C:
				top = max(top, sample())
			}
		}
	}()
	return out
}

// openFiles counts this process's open file descriptors.
func openFiles() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

// TestLoad_ASilentReceiverDoesNotExhaustTheSandbox charges 600 payments
// from 6 clients at once on loopback while every callback goes to a
// receiver that never answers. The sandbox keeps answering, and its
// descriptors and goroutines stay within a fixed margin, whatever the
// number of callbacks. It stops by itself: a fixed count, under a deadline.
func TestLoad_ASilentReceiverDoesNotExhaustTheSandbox(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc/self/fd to count descriptors")
	}
	const (
		clients  = 6
		perCount = 100
		margin   = 100 // descriptors or goroutines beyond the idle sandbox: far below one per callback
	)
	rcv := newSilentReceiver(t)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL()))
	uid := s.user("load")
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 30 * time.Second}
	t.Cleanup(hc.CloseIdleConnections)

	runtime.GC()
	baseFiles, baseGoroutines := openFiles(), runtime.NumGoroutine()
	stop := make(chan struct{})
	files, goroutines := peak(stop, openFiles), peak(stop, runtime.NumGoroutine)

	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	var charged atomic.Int32
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perCount {
				if err := rawCharge(ctx, hc, s, uid, fmt.Sprintf("load-%d-%d", c, i)); err != nil {
					errs <- err
					return
				}
				charged.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// The API still answers while the callbacks wait in their queue.
	require.Equal(t, "completed", s.ok("transaction/status", url.Values{"order_id": {"load-0-0"}})["status"])
	close(stop)
	peakFiles, peakGoroutines := <-files, <-goroutines

	ds := s.srv.Deliveries()
	pending := 0
	for _, d := range ds {
		if !d.Done {
			pending++
		}
	}
	t.Logf("%d charges, %d callbacks (%d pending), receiver connections %d; descriptors %d idle, %d at peak; goroutines %d idle, %d at peak",
		charged.Load(), len(ds), pending, rcv.conns.Load(), baseFiles, peakFiles, baseGoroutines, peakGoroutines)
	assert.Equal(t, int32(clients*perCount), charged.Load())
	assert.Len(t, ds, clients*perCount)
	// At most 4 at once; a new one opens only after an attempt's timeout
	// (callbackTimeout, 10 s) ended one, which a slow machine can reach.
	assert.LessOrEqual(t, rcv.conns.Load(), int32(4*(1+int(time.Since(start)/(10*time.Second)))),
		"at most 4 connections at once to the silent receiver")
	assert.Less(t, peakFiles-baseFiles, margin, "descriptors stay bounded")
	assert.Less(t, peakGoroutines-baseGoroutines, margin, "goroutines stay bounded")
}

// rawCharge makes a token and charges it over HTTP, without the test's t
// (which must not fail from another goroutine).
func rawCharge(ctx context.Context, hc *http.Client, s *sandbox, uid, orderID string) error {
	tok, err := s.send(ctx, hc, "card/getToken", url.Values{"project": {s.srv.ProjectKey}, "number": {paygatetest.CardApproved},
		"expiration_month": {"12"}, "expiration_year": {"2030"}, "security_code": {"123"}})
	if err != nil {
		return err
	}
	id, _ := tok["id"].(string)
	if id == "" {
		return errors.New("getToken answered no id")
	}
	_, err = s.send(ctx, hc, "card/process", s.signed(url.Values{"user": {uid}, "card_token": {id}, "price": {"10"},
		"currency": {"EUR"}, "description": {"load"}, "order_id": {orderID}}))
	return err
}
