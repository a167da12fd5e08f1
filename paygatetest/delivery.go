package paygatetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/callbackform"
)

// Bounds of callback delivery. A receiver that never answers costs the
// sandbox at most callbackWorkers connections and goroutines and a queue of
// callbackQueue callbacks per destination, whatever the number of
// callbacks.
const (
	callbackWorkers = 4                // concurrent POSTs per destination (scheme and host)
	callbackQueue   = 1000             // callbacks waiting per destination, besides those being sent
	callbackTimeout = 10 * time.Second // per attempt, real time
	maxHistory      = 50               // attempts kept per callback, the oldest dropped first
	maxReceiverBody = 4 << 10          // of a receiver's answer, read so the connection can be reused
)

// defaultCallbackWaits is the retry schedule of a callback the receiver did
// not take: the waits after the first, second, ... failed attempt, on the
// sandbox's clock, like a real gateway's (8 attempts over about 45 hours).
var defaultCallbackWaits = []time.Duration{
	time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

var (
	errQueueFull = errors.New("paygatetest: the callback queue of this destination is full; try again later")
	errClosed    = errors.New("paygatetest: the server is closed")
)

// deliverer sends callbacks: one bounded queue and at most callbackWorkers
// goroutines per destination, retries on the sandbox's clock, every
// attempt recorded in the log.
type deliverer struct {
	log    *deliveryLog
	limit  int // of each destination's queue
	clock  *Clock
	waits  []time.Duration // between automatic attempts; len+1 attempts in all
	sender *http.Client
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // running workers

	mu     sync.Mutex // guards dests, timers and closed
	dests  map[string]*destination
	timers map[int]*time.Timer // real-time wake-ups of scheduled retries, when the clock follows real time
	closed bool
}

// destination is the queue of one receiver.
type destination struct {
	queue   []job
	workers int
	pending int // jobs queued or being sent
}

// job is one attempt to make.
type job struct {
	seq    int
	target string
	manual bool // asked for by Redeliver
}

func newDeliverer(clock *Clock, waits []time.Duration, logLimit, queueLimit int) *deliverer {
	ctx, cancel := context.WithCancel(context.Background())
	return &deliverer{
		log:   newDeliveryLog(logLimit),
		limit: cmp.Or(queueLimit, callbackQueue),
		clock: clock,
		waits: waits,
		sender: &http.Client{
			Timeout: callbackTimeout,
			// A callback is signed: it goes to the configured URL and
			// nowhere else. A redirect is recorded as the receiver's answer.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Transport: &http.Transport{
				MaxConnsPerHost:     callbackWorkers,
				MaxIdleConnsPerHost: callbackWorkers,
				IdleConnTimeout:     time.Minute,
			},
		},
		ctx:    ctx,
		cancel: cancel,
		dests:  make(map[string]*destination),
		timers: make(map[int]*time.Timer),
	}
}

// send records a new callback of t, reporting status, to the project's
// callback URL (empty: recorded only) and queues its first attempt. It
// never blocks, so it is called under Server.mu, which guards the URL.
func (d *deliverer) send(t *txn, status callback.Status) {
	target := t.project.CallbackURL
	seq := d.log.add(t, target, status)
	if target == "" {
		return
	}
	d.queue(job{seq: seq, target: target})
}

// queue enqueues an automatic attempt; one that finds the queue full counts
// as a failed attempt, so that the schedule goes on.
func (d *deliverer) queue(j job) {
	if err := d.enqueue(j); errors.Is(err, errQueueFull) {
		d.finish(j.seq, false, 0, errors.New("not sent: the destination's queue is full"))
	}
}

// redeliver queues one more attempt of callback seq.
func (d *deliverer) redeliver(seq int) error {
	dl, ok := d.log.get(seq)
	switch {
	case !ok:
		return fmt.Errorf("paygatetest: no callback %d in the delivery log", seq)
	case dl.url == "":
		return fmt.Errorf("paygatetest: callback %d has no URL to be sent to", seq)
	}
	d.log.update(seq, func(x *delivery) { d.log.setDone(x, false) })
	if err := d.enqueue(job{seq: seq, target: dl.url, manual: true}); err != nil {
		d.log.update(seq, func(x *delivery) { d.log.setDone(x, x.delivered || !x.hasNext) })
		return err
	}
	return nil
}

// enqueue adds j to its destination's queue, starting a worker when fewer
// than callbackWorkers run.
func (d *deliverer) enqueue(j job) error {
	key := destinationKey(j.target)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	dst := d.dests[key]
	if dst == nil {
		dst = &destination{}
		d.dests[key] = dst
	}
	if dst.pending >= d.limit+callbackWorkers {
		return errQueueFull
	}
	dst.pending++
	dst.queue = append(dst.queue, j)
	if dst.workers < callbackWorkers {
		dst.workers++
		d.wg.Add(1)
		go d.work(key, dst)
	}
	return nil
}

// work makes the attempts queued for one destination until its queue is
// empty.
func (d *deliverer) work(key string, dst *destination) {
	defer d.wg.Done()
	sent := false
	for {
		d.mu.Lock()
		if sent {
			dst.pending--
		}
		if len(dst.queue) == 0 || d.closed {
			dst.workers--
			if dst.workers == 0 && d.dests[key] == dst {
				delete(d.dests, key)
			}
			d.mu.Unlock()
			return
		}
		j := dst.queue[0]
		dst.queue[0] = job{}
		dst.queue = dst.queue[1:]
		d.mu.Unlock()
		d.attempt(j)
		sent = true
	}
}

// attempt POSTs callback j.seq once and records the outcome.
func (d *deliverer) attempt(j job) {
	dl, ok := d.log.get(j.seq)
	if !ok || (!j.manual && dl.delivered) {
		return // dropped from the log, or already taken by a redelivery
	}
	status, err := d.post(j.target, callbackform.Encode(dl.values()))
	if d.ctx.Err() != nil {
		return // closed while sending: not the receiver's fault
	}
	d.finish(j.seq, j.manual, status, err)
}

// finish records an attempt and schedules the next one when the receiver
// did not take the callback and the schedule has attempts left.
func (d *deliverer) finish(seq int, manual bool, status int, err error) {
	now := d.clock.Now()
	ok := err == nil && status >= 200 && status < 300
	// A failed redelivery leaves the schedule alone: its automatic attempt
	// may already be queued.
	next := d.log.record(seq, !manual || ok, func(x *delivery) {
		x.history = append(x.history, newAttempt(now, status, err, manual))
		if len(x.history) > maxHistory {
			x.history = append(x.history[:0:0], x.history[len(x.history)-maxHistory:]...)
		}
		x.attempts++
		x.automatic += int32(btoi(!manual))
		x.delivered = x.delivered || ok
		switch {
		case x.delivered:
			x.setNext(time.Time{})
		case !manual && int(x.automatic) <= len(d.waits):
			x.setNext(now.Add(d.waits[x.automatic-1]))
		case !manual:
			x.setNext(time.Time{})
		}
		d.log.setDone(x, x.delivered || !x.hasNext)
	})
	if !next.IsZero() && d.clock.followsRealTime() {
		d.wakeAt(seq, next.Sub(now))
	}
}

// wakeAt runs the due retries after wait of real time; only a clock that
// follows real time needs it, a frozen one is moved by Advance.
func (d *deliverer) wakeAt(seq int, wait time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	if t := d.timers[seq]; t != nil {
		t.Stop()
	}
	d.timers[seq] = time.AfterFunc(wait, func() {
		d.mu.Lock()
		delete(d.timers, seq)
		d.mu.Unlock()
		d.retryDue()
	})
}

// retryDue queues every retry whose time has come on the clock.
func (d *deliverer) retryDue() {
	for _, r := range d.log.takeDue(d.clock.Now()) {
		d.queue(job{seq: r.seq, target: r.target})
	}
}

// close stops sending: queued and scheduled attempts are dropped and every
// callback not delivered is done.
func (d *deliverer) close() {
	d.mu.Lock()
	d.closed = true
	for _, t := range d.timers {
		t.Stop()
	}
	d.mu.Unlock()
	d.cancel()
	d.wg.Wait()
	d.sender.CloseIdleConnections()
	d.log.closeAll()
}

func (d *deliverer) post(target, body string) (int, error) {
	req, err := http.NewRequestWithContext(d.ctx, http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := d.sender.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxReceiverBody))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// destinationKey groups callbacks by receiver: scheme and host.
func destinationKey(target string) string {
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		return u.Scheme + "://" + u.Host
	}
	return target
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
