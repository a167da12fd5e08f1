package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// receiver serves callbacks on a loopback port, taking delay over each
// (the time a merchant's endpoint spends), and counts them.
type receiver struct {
	url      string
	received atomic.Int64
	close    func()
}

func newReceiver(delay time.Duration) (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{url: "http://" + ln.Addr().String() + "/callback", close: func() { ln.Close() }}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		time.Sleep(delay)
		r.received.Add(1)
	}))
	return r, nil
}

// quiet returns once the receiver got no callback for d.
func (r *receiver) quiet(d time.Duration) {
	for last := int64(-1); r.received.Load() != last; time.Sleep(d) {
		last = r.received.Load()
	}
}

// deliveryStats sums up the sandbox's delivery log.
type deliveryStats struct {
	callbacks, delivered, waiting, givenUp int
	queueFull                              int // callbacks with an attempt "not sent: the destination's queue is full"
	failedAttempts                         int // attempts without a 2xx answer, for any reason
	failedTwice                            int // callbacks with two failed attempts or more
}

// deliveries reads the whole delivery log of the control plane, a page of
// 1000 at a time by cursor.
func deliveries(ctx context.Context, hc *http.Client, base string) (deliveryStats, error) {
	var st deliveryStats
	cursor := 0
	for {
		var page []struct {
			ID       int  `json:"id"`
			Done     bool `json:"done"`
			Deliv    bool `json:"delivered"`
			GivenUp  bool `json:"given_up"`
			Attempts []struct {
				Status int    `json:"status"`
				Error  string `json:"error"`
			} `json:"attempts"`
		}
		q := url.Values{"per_page": {"1000"}}
		if cursor > 0 {
			q.Set("cursor", strconv.Itoa(cursor))
		}
		if err := control(ctx, hc, http.MethodGet, base+"/sandbox/deliveries?"+q.Encode(), nil, &page); err != nil {
			return st, err
		}
		if len(page) == 0 {
			return st, nil
		}
		for _, d := range page {
			st.callbacks++
			st.delivered += btoi(d.Deliv)
			st.waiting += btoi(!d.Done)
			st.givenUp += btoi(d.GivenUp)
			failed, full := 0, false
			for _, a := range d.Attempts {
				if a.Status < 200 || a.Status > 299 {
					failed++
				}
				full = full || strings.Contains(a.Error, "queue is full")
			}
			st.failedAttempts += failed
			st.failedTwice += btoi(failed >= 2)
			st.queueFull += btoi(full)
			cursor = d.ID
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (st deliveryStats) String() string {
	return fmt.Sprintf("callbacks %d: delivered %d, waiting %d, given up %d; with a queue-full attempt %d; failed attempts %d; failed twice or more %d",
		st.callbacks, st.delivered, st.waiting, st.givenUp, st.queueFull, st.failedAttempts, st.failedTwice)
}

// control calls the sandbox's control plane with the project's private key
// and decodes its JSON answer into out (when not nil).
func control(ctx context.Context, hc *http.Client, httpMethod, target string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, httpMethod, target, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: HTTP %d: %.300s", httpMethod, target, resp.StatusCode, raw)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// kept is how many transactions the sandbox keeps, and the id of the
// newest (ids count the transactions made).
func kept(ctx context.Context, hc *http.Client, base string) (n int, newest int64, err error) {
	var out struct {
		Total        int `json:"total"`
		Transactions []struct {
			ID json.Number `json:"id"`
		} `json:"transactions"`
	}
	if err := control(ctx, hc, http.MethodGet, base+"/sandbox/transactions?per_page=1", nil, &out); err != nil {
		return 0, 0, err
	}
	if len(out.Transactions) > 0 {
		newest, err = out.Transactions[0].ID.Int64()
	}
	return out.Total, newest, err
}

// slowReceiver charges the sandbox from clients goroutines for d, its
// callbacks going to a receiver that takes delay over each, and prints
// what became of the callbacks and the sandbox's memory.
func slowReceiver(ctx context.Context, bin string, clients int, d, delay time.Duration, retain int) error {
	rcv, err := newReceiver(delay)
	if err != nil {
		return err
	}
	defer rcv.close()
	sb, base, err := startSandbox(bin, rcv.url, retain)
	if err != nil {
		return err
	}
	defer stopServer(sb)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 30 * time.Second}
	runCtx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var next, made atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				if charge(runCtx, hc, base, next.Add(1)) == nil {
					made.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	st, n, k, err := settledState(ctx, hc, base, sb.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("%d clients for %s, receiver %s a callback: %d charges, %d callbacks received; RSS %.1f MiB; kept %d\n%s\n",
		clients, d, delay, made.Load(), rcv.received.Load(), mib(n), k, st)
	return nil
}

// recurringYear loads a fixture of subs users, each subscribed to a daily
// payment, then moves the clock a year (and by 0 up to moves times more,
// while a move makes payments, each once the receiver has taken the
// callbacks so far), while a probe client charges: it prints
// how long the move and the probe's charges took, the transactions kept,
// the sandbox's memory and what became of the callbacks, sent to a
// receiver that answers at once.
func recurringYear(ctx context.Context, bin string, subs, retain, moves int) error {
	rcv, err := newReceiver(0)
	if err != nil {
		return err
	}
	defer rcv.close()
	sb, base, err := startSandbox(bin, rcv.url, retain)
	if err != nil {
		return err
	}
	defer stopServer(sb)
	hc := &http.Client{Timeout: 10 * time.Minute}
	var users, payments []string
	for i := range subs {
		users = append(users, fmt.Sprintf(`{"name":"u%d"}`, i))
		payments = append(payments, fmt.Sprintf(`{"user":"u%d","price":"1.00","order_id":"plan-%d","recurring":{"interval":1}}`, i, i))
	}
	fixture := `{"users":[` + strings.Join(users, ",") + `],"payments":[` + strings.Join(payments, ",") + `]}`
	if err := control(ctx, hc, http.MethodPost, base+"/sandbox/fixtures", strings.NewReader(fixture), nil); err != nil {
		return err
	}
	fmt.Printf("fixture: %d bytes, %d daily subscriptions\n", len(fixture), subs)

	// The probe charges every 10 ms while the clock moves, and keeps its
	// slowest answer.
	probeCtx, stopProbe := context.WithCancel(ctx)
	var slowest atomic.Int64
	var probes atomic.Int64
	var probeErr atomic.Pointer[error]
	var paused atomic.Bool // while the receiver drains
	probed := make(chan struct{})
	go func() {
		defer close(probed)
		for n := int64(1 << 40); probeCtx.Err() == nil; n++ {
			if paused.Load() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			start := time.Now()
			if err := charge(probeCtx, hc, base, n); err != nil {
				if probeCtx.Err() == nil {
					probeErr.CompareAndSwap(nil, &err)
				}
				time.Sleep(10 * time.Millisecond)
				continue
			}
			probes.Add(1)
			if took := int64(time.Since(start)); took > slowest.Load() {
				slowest.Store(took)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	for i := 0; i <= moves; i++ {
		advance := "0s"
		if i == 0 {
			advance = "8760h"
		}
		before, first, err := kept(ctx, hc, base)
		if err != nil {
			stopProbe()
			return err
		}
		probedBefore := probes.Load()
		start := time.Now()
		if err := control(ctx, hc, http.MethodPost, base+"/sandbox/clock?advance="+advance, nil, nil); err != nil {
			stopProbe()
			return err
		}
		took := time.Since(start)
		after, last, err := kept(ctx, hc, base)
		if err != nil {
			stopProbe()
			return err
		}
		made := last - first - (probes.Load() - probedBefore) // about: a probe may be under way
		n, err := rss(sb.Process.Pid)
		if err != nil {
			stopProbe()
			return err
		}
		fmt.Printf("move %d (%s): %s, about %d automatic payments; kept %d -> %d; RSS %.1f MiB; probe charges so far %d, slowest %s\n",
			i, advance, took.Round(time.Millisecond), made, before, after, mib(n), probes.Load(), time.Duration(slowest.Load()).Round(time.Millisecond))
		if made <= 1 {
			break // nothing more due
		}
		// The sandbox makes no more payments than their callbacks have
		// room to wait: the receiver takes them before the next move.
		paused.Store(true)
		rcv.quiet(time.Second)
		paused.Store(false)
	}
	stopProbe()
	<-probed
	if err := probeErr.Load(); err != nil {
		fmt.Println("a probe charge failed:", *err)
	}
	rcv.quiet(3 * time.Second)
	st, n, k, err := settledState(ctx, hc, base, sb.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("settled: kept %d, RSS %.1f MiB, callbacks received %d\n%s\n", k, mib(n), rcv.received.Load(), st)
	return nil
}

// settledState reads what the sandbox of process pid at base holds once a
// run is over: its delivery log's figures, its RSS and the transactions it
// keeps.
func settledState(ctx context.Context, hc *http.Client, base string, pid int) (deliveryStats, int64, int, error) {
	st, err := deliveries(ctx, hc, base)
	if err != nil {
		return st, 0, 0, err
	}
	n, err := rss(pid)
	if err != nil {
		return st, 0, 0, err
	}
	k, _, err := kept(ctx, hc, base)
	return st, n, k, err
}
