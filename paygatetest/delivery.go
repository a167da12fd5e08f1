package paygatetest

import (
	"cmp"
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/callbackform"
)

// notify records the callback of t's status change and queues it for
// sending. The caller holds s.mu, so callbacks are numbered in the order of
// the changes; queueing never blocks.
func (s *Server) notify(t *txn, status callback.Status) {
	if t.project.Form == paygate.FormBasic && !sentCallbacks[status].basic {
		return // the basic form has no callback for this change
	}
	s.deliveries.send(t, status)
}

// Bounds of callback delivery. A receiver that never answers costs the
// sandbox at most callbackWorkers connections and goroutines per
// destination, whatever the number of callbacks; the callbacks waiting are
// bounded by the server's in-flight allowance (see WithRetention and
// inFlightAllowance), past which the oldest are given up.
const (
	callbackWorkers = 4                // concurrent POSTs per destination (scheme and host)
	callbackTimeout = 10 * time.Second // per attempt, real time
	maxHistory      = 50               // attempts kept per callback, the oldest dropped first
	maxReceiverBody = 4 << 10          // of a receiver's answer, read so the connection can be reused
)

// retryJitterDivisor spreads retries: each wait of the schedule is
// lengthened by a random part of up to 1/retryJitterDivisor of itself, so
// that callbacks that failed together (a receiver down for a moment) are
// not all tried again at the same instant.
const retryJitterDivisor = 10

// defaultCallbackWaits is the retry schedule of a callback the receiver did
// not take: the waits after the first, second, ... failed attempt, on the
// sandbox's clock, like a real gateway's (8 attempts over about 45 hours),
// each with its jitter (see retryJitterDivisor).
var defaultCallbackWaits = []time.Duration{
	time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

var errClosed = errors.New("paygatetest: the server is closed")

// deliverer sends callbacks: one queue and at most callbackWorkers
// goroutines per destination, retries on the sandbox's clock, every
// attempt recorded in the log. A callback waits in its destination's queue
// until a worker is free, however long that takes: it is not an attempt
// until it is sent. The log bounds how many wait (see deliveryLog.shed),
// and takes those it gives up out of the queue.
type deliverer struct {
	log    *deliveryLog
	clock  *Clock
	waits  []time.Duration // between automatic attempts; len+1 attempts in all
	sender *http.Client
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // running workers

	mu     sync.Mutex // guards dests, queued, timers and closed
	dests  map[string]*destination
	queued map[int]*list.Element // the queued job of each callback, by seq
	timers map[int]*time.Timer   // real-time wake-ups of scheduled retries, when the clock follows real time
	closed bool
}

// destination is the queue of one receiver.
type destination struct {
	queue   list.List // of job, oldest first
	workers int
}

// job is one attempt to make.
type job struct {
	seq    int
	target string
	key    string // of its destination; see destinationKey
	manual bool   // asked for by Redeliver
}

// newDeliverer makes a deliverer whose log keeps logLimit callbacks and
// lets at most maxWaiting wait to be sent.
func newDeliverer(clock *Clock, waits []time.Duration, logLimit, maxWaiting int) *deliverer {
	ctx, cancel := context.WithCancel(context.Background())
	d := &deliverer{
		log:   newDeliveryLog(logLimit, maxWaiting),
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
		queued: make(map[int]*list.Element),
		timers: make(map[int]*time.Timer),
	}
	d.log.abandon = d.abandon
	return d
}

// abandon stops the wake-up of seq and takes its job out of the queue: its
// record left the log or was given up. Either would find nothing to send,
// but would hold memory until it fires (up to a day later) or its turn
// comes. The log calls it under its own lock, which nothing takes under
// d.mu.
func (d *deliverer) abandon(seq int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if t := d.timers[seq]; t != nil {
		t.Stop()
		delete(d.timers, seq)
	}
	if e := d.queued[seq]; e != nil {
		if dst := d.dests[e.Value.(job).key]; dst != nil { // gone once closed
			dst.queue.Remove(e)
		}
		delete(d.queued, seq)
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

// queue enqueues an automatic attempt. It fails only once the deliverer is
// closed, when nothing more is sent.
func (d *deliverer) queue(j job) { d.enqueue(j) }

// redeliver queues one more attempt of callback seq. A callback already
// waiting in the queue is sent once, at its turn.
func (d *deliverer) redeliver(seq int) error {
	dl, ok := d.log.get(seq)
	switch {
	case !ok:
		return fmt.Errorf("paygatetest: no callback %d in the delivery log", seq)
	case dl.url == "":
		return fmt.Errorf("paygatetest: callback %d has no URL to be sent to", seq)
	}
	d.log.update(seq, func(x *delivery) { d.log.wait(x) })
	if err := d.enqueue(job{seq: seq, target: dl.url, manual: true}); err != nil {
		d.log.update(seq, func(x *delivery) { d.log.setDone(x, x.delivered || !x.hasNext) })
		return err
	}
	return nil
}

// enqueue adds j to its destination's queue, starting a worker when fewer
// than callbackWorkers run. A callback has one job queued at most.
func (d *deliverer) enqueue(j job) error {
	j.key = destinationKey(j.target)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	if d.queued[j.seq] != nil {
		return nil
	}
	dst := d.dests[j.key]
	if dst == nil {
		dst = &destination{}
		d.dests[j.key] = dst
	}
	d.queued[j.seq] = dst.queue.PushBack(j)
	if dst.workers < callbackWorkers {
		dst.workers++
		d.wg.Add(1)
		go d.work(j.key, dst)
	}
	return nil
}

// work makes the attempts queued for one destination until its queue is
// empty.
func (d *deliverer) work(key string, dst *destination) {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		e := dst.queue.Front()
		if e == nil || d.closed {
			dst.workers--
			if dst.workers == 0 && d.dests[key] == dst {
				delete(d.dests, key)
			}
			d.mu.Unlock()
			return
		}
		j := dst.queue.Remove(e).(job)
		delete(d.queued, j.seq)
		d.mu.Unlock()
		d.attempt(j)
	}
}

// attempt POSTs callback j.seq once and records the outcome.
func (d *deliverer) attempt(j job) {
	dl, ok := d.log.get(j.seq)
	if !ok || (!j.manual && (dl.delivered || dl.givenUp)) {
		return // dropped from the log, given up, or already taken by a redelivery
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
		case x.delivered || x.givenUp:
			x.setNext(time.Time{})
		case !manual && int(x.automatic) <= len(d.waits):
			x.setNext(now.Add(jittered(d.waits[x.automatic-1])))
		case !manual:
			x.setNext(time.Time{})
		}
		d.log.setDone(x, x.delivered || !x.hasNext)
	})
	if !next.IsZero() && d.clock.followsRealTime() {
		d.wakeAt(seq, next.Sub(now))
	}
}

// jittered is wait lengthened by a random part of up to
// 1/retryJitterDivisor of itself.
func jittered(wait time.Duration) time.Duration {
	if spread := wait / retryJitterDivisor; spread > 0 {
		return wait + rand.N(spread)
	}
	return wait
}

// wakeAt sends the retry of seq after wait of real time; only a clock that
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
		d.retryOne(seq)
	})
}

// retryOne queues the retry of seq if its time has come on the clock. The
// timer ran on the monotonic clock and the retry's time is on the wall
// clock, which may lag it (set back, or slowed by NTP): a retry not due yet
// waits the difference rather than never being sent. One retry is looked
// at, not every one waiting, so that a wake costs the same however many
// callbacks wait for their retry.
func (d *deliverer) retryOne(seq int) {
	r, wait, due := d.log.takeIfDue(seq, d.clock.Now())
	switch {
	case due:
		d.queue(job{seq: r.seq, target: r.target})
	case wait > 0:
		d.wakeAt(seq, wait)
	}
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
	clear(d.queued)
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

// deliveryLog records callbacks and wakes waiters on every change. A
// callback is kept as long as its transaction (see WithRetention); besides,
// once the log holds limit and a tenth more, it drops its oldest tenth, so
// that the callbacks of transactions Reset forgot stay bounded too.
type deliveryLog struct {
	mu      sync.Mutex
	limit   int
	list    []delivery // by seq, ascending; a record without txn is a hole, left by a dropped transaction
	holes   int        // in list
	lastSeq int
	retries map[int]retry // scheduled automatic attempts, by seq
	kept    projectCounts // records kept; see count
	changed chan struct{}
	// abandon is told the seq of a record dropped or given up while it was
	// not done, so that its wake-up and its queued job go with it. It is
	// called under l.mu, and must not take it.
	abandon func(seq int)
	// waiting counts the records not done: queued, being sent or waiting
	// for a retry. Past maxWaiting, shed gives up the oldest, in the order
	// they began to wait (waitOrder, from waitHead; it also holds seqs done
	// or dropped since, skipped and compacted away).
	waiting    int
	maxWaiting int
	waitOrder  []int
	waitHead   int
	givenUp    int // records given up by shed, ever
	// statuses holds the callback statuses in the order first seen, so that
	// a record points to one instead of holding a string; an entry never
	// changes once written.
	statuses [32]callback.Status
	nStatus  int
	// released are pinned transactions that may have left flight since
	// makeRoom last looked; see dropReleased. t.pinned is written under
	// this lock too, so that a callback finishing while makeRoom pins its
	// transaction is either seen by pin or sees the mark.
	released []*txn
}

// delivery is one callback as the log keeps it: what it reports, not its
// form fields. The fields are built again from the transaction when asked
// for, as every one of them except the reason stays as it was when the
// callback was made; the reason is kept here. So a callback costs a record
// of fixed size, whatever its transaction carries.
type delivery struct {
	seq       int
	prev      int // seq of the transaction's callback before this one, 0 for none; see chain
	txn       *txn
	url       string
	reason    string
	history   []attempt // the last maxHistory attempts, oldest first
	status    *callback.Status
	nextSec   int64 // with nextNsec, when the next automatic attempt is due, if hasNext; see nextAt
	attempts  int32
	automatic int32 // attempts made by the retry schedule
	nextNsec  int32
	hasNext   bool
	delivered bool
	done      bool
	givenUp   bool // by shed, before it was delivered
}

// nextAt is when the next automatic attempt is due; zero when none is
// scheduled.
func (d *delivery) nextAt() time.Time {
	if !d.hasNext {
		return time.Time{}
	}
	return time.Unix(d.nextSec, int64(d.nextNsec)).UTC()
}

// setNext schedules the next automatic attempt at t; zero for none. The
// time is kept as Unix seconds and nanoseconds, as an attempt's is.
func (d *delivery) setNext(t time.Time) {
	d.hasNext = !t.IsZero()
	d.nextSec, d.nextNsec = t.Unix(), int32(t.Nanosecond())
}

// attempt is one POST of a callback; see DeliveryAttempt. Its time is
// kept as Unix seconds and nanoseconds, which hold any time a Clock
// reaches, in half the room of a time.Time.
type attempt struct {
	sec    int64
	err    string
	nsec   int32
	status int16 // HTTP status
	manual bool
}

func newAttempt(at time.Time, status int, err error, manual bool) attempt {
	a := attempt{sec: at.Unix(), nsec: int32(at.Nanosecond()), status: int16(status), manual: manual}
	if err != nil {
		a.err = err.Error()
	}
	return a
}

// at is when the attempt was made, in UTC as the Clock reads.
func (a attempt) at() time.Time { return time.Unix(a.sec, int64(a.nsec)).UTC() }

// retry is a scheduled attempt.
type retry struct {
	seq    int
	target string
	at     time.Time
}

func newDeliveryLog(limit, maxWaiting int) *deliveryLog {
	return &deliveryLog{
		limit: limit, maxWaiting: maxWaiting, changed: make(chan struct{}), retries: make(map[int]retry),
		kept: make(projectCounts), abandon: func(int) {},
	}
}

// add records a new callback of t and returns its seq.
func (l *deliveryLog) add(t *txn, target string, status callback.Status) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lastSeq++
	prev := t.lastSeq
	t.lastSeq = l.lastSeq
	l.kept.add(t.project)
	if worthCompacting(len(l.list), cap(l.list), l.holes) {
		// Compacting rather than growing, as state.compactOrder does.
		l.list = slices.DeleteFunc(l.list, func(d delivery) bool { return d.txn == nil })
		l.holes = 0
	}
	d := delivery{seq: l.lastSeq, prev: prev, txn: t, url: target, status: l.status(status), reason: t.reason(), done: true}
	l.list = append(l.list, d)
	if target != "" {
		l.wait(&l.list[len(l.list)-1])
	}
	if drop := len(l.list) - l.holes - l.limit; drop >= max(l.limit/10, 1) {
		l.dropOldest(drop)
	}
	l.broadcast()
	return d.seq
}

// status returns the log's entry of status, adding it when new. The
// sandbox sends the statuses of sentCallbacks; were there ever more than
// the table holds, each further one would get a copy of its own per
// record. The caller holds l.mu.
func (l *deliveryLog) status(status callback.Status) *callback.Status {
	for i := range l.nStatus {
		if l.statuses[i] == status {
			return &l.statuses[i]
		}
	}
	if l.nStatus == len(l.statuses) {
		return &status
	}
	l.statuses[l.nStatus] = status
	l.nStatus++
	return &l.statuses[l.nStatus-1]
}

// dropOldest removes the n oldest records of transactions still kept,
// with the holes among them.
func (l *deliveryLog) dropOldest(n int) {
	i := 0
	for ; i < len(l.list) && n > 0; i++ {
		d := &l.list[i]
		if d.txn == nil {
			l.holes--
			continue
		}
		l.unschedule(d)
		l.setDone(d, true)
		l.kept.remove(d.txn.project)
		n--
	}
	l.list = slices.Delete(l.list, 0, i)
}

// forget drops the callbacks of t, which the state no longer keeps: their
// records become holes at once, so that nothing holds t any more. It finds
// each by its seq, so that it costs O(k log n) for k callbacks of t in a
// log of n, however far apart they are; it returns how many records it
// read.
func (l *deliveryLog) forget(t *txn) (read int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.chain(t, func(d *delivery) {
		l.unschedule(d)
		if !d.done {
			l.waiting--
		}
		l.kept.remove(t.project)
		*d = delivery{seq: d.seq}
		l.holes++
	})
}

// chain calls f on each record of t kept, newest first, following prev
// from t.lastSeq, and returns how many records it read: one more than t
// has, at most. The records t lost to dropOldest were its oldest, so the
// chain ends at the first seq not found (or at 0, before t's first). f
// may clear the record. The caller holds l.mu.
func (l *deliveryLog) chain(t *txn, f func(*delivery)) (read int) {
	for seq := t.lastSeq; seq != 0; read++ {
		i, ok := slices.BinarySearchFunc(l.list, seq, bySeq)
		if !ok || l.list[i].txn != t {
			return read + 1
		}
		d := &l.list[i]
		seq = d.prev
		f(d)
	}
	return read
}

// callbacksOf returns copies of the records of t kept, oldest first; see
// records.
func (l *deliveryLog) callbacksOf(t *txn) []delivery {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []delivery
	l.chain(t, func(d *delivery) { out = append(out, *d) })
	slices.Reverse(out)
	return out
}

// page returns copies of the records of project key with a seq above
// after, skipping the first skip of them, at most n; see records. It
// copies only what it returns, and starts at after by binary search.
func (l *deliveryLog) page(key string, after int64, skip, n int) []delivery {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, found := slices.BinarySearchFunc(l.list, after, func(d delivery, seq int64) int { return cmp.Compare(int64(d.seq), seq) })
	if found {
		i++
	}
	out := []delivery{}
	for ; i < len(l.list) && len(out) < n; i++ {
		switch d := &l.list[i]; {
		case d.txn == nil || d.txn.project.Key != key:
		case skip > 0:
			skip--
		default:
			out = append(out, *d)
		}
	}
	return out
}

// count is how many callbacks of project key the log keeps.
func (l *deliveryLog) count(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.kept[key]
}

// unschedule drops the automatic attempt of d, if one is scheduled, with
// its wake-up, and its job if one is queued. The caller holds l.mu.
func (l *deliveryLog) unschedule(d *delivery) {
	delete(l.retries, d.seq)
	if !d.done {
		l.abandon(d.seq)
	}
}

func bySeq(d delivery, seq int) int { return d.seq - seq }

// at returns the record of seq; the caller holds l.mu.
func (l *deliveryLog) at(seq int) (*delivery, bool) {
	i, ok := slices.BinarySearchFunc(l.list, seq, bySeq)
	if !ok || l.list[i].txn == nil {
		return nil, false
	}
	return &l.list[i], true
}

// get returns a copy of the record of seq, whose history the caller must
// not change.
func (l *deliveryLog) get(seq int) (delivery, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.at(seq)
	if !ok {
		return delivery{}, false
	}
	return *d, true
}

// public returns callback seq as Delivery shows it. The copy get returns
// can be read without l.mu: a record's attempts are only ever appended or
// replaced, never changed in place.
func (l *deliveryLog) public(seq int) (Delivery, bool) {
	d, ok := l.get(seq)
	if !ok {
		return Delivery{}, false
	}
	return d.public(), true
}

// update applies f to callback seq, when it is still in the log.
func (l *deliveryLog) update(seq int, f func(*delivery)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if d, ok := l.at(seq); ok {
		f(d)
		l.broadcast()
	}
}

// record applies f to callback seq and, when reschedule, schedules its
// next automatic attempt at the next time f left (none when zero), in one
// step, so that whoever sees NextAttempt can advance the clock past it. It
// returns that time.
func (l *deliveryLog) record(seq int, reschedule bool, f func(*delivery)) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.at(seq)
	if !ok {
		return time.Time{}
	}
	f(d)
	switch {
	case !reschedule:
	case !d.hasNext:
		delete(l.retries, seq)
	default:
		l.retries[seq] = retry{seq: seq, target: d.url, at: d.nextAt()}
	}
	l.broadcast()
	return d.nextAt()
}

// setDone sets d.done, counting on its transaction the callbacks not done,
// which keep the transaction from being dropped, and counting them in
// l.waiting. The caller holds l.mu; one that sets a record not done calls
// shed afterwards (see wait).
func (l *deliveryLog) setDone(d *delivery, done bool) {
	switch {
	case done && !d.done:
		l.waiting--
		if d.txn.sending.Add(-1) == 0 && d.txn.pinned {
			l.released = append(l.released, d.txn)
		}
	case !done && d.done:
		l.waiting++
		l.waitOrder = append(l.waitOrder, d.seq)
		d.txn.sending.Add(1)
	}
	d.done = done
	if !done {
		l.compactWaitOrder()
	}
}

// wait sets d not done, to be sent (a redelivery takes back one given
// up), and gives up the oldest waiting past the bound. The caller holds
// l.mu.
func (l *deliveryLog) wait(d *delivery) {
	d.givenUp = false
	l.setDone(d, false)
	l.shed()
}

// shed gives up the records that waited longest while more than
// maxWaiting wait: each is done, not delivered, no attempt recorded, and
// counted. Without it, a receiver slower than the charges, or down, would
// make the sandbox hold every callback and, through them, every
// transaction. The caller holds l.mu.
func (l *deliveryLog) shed() {
	for l.waiting > l.maxWaiting && l.waitHead < len(l.waitOrder) {
		seq := l.waitOrder[l.waitHead]
		l.waitHead++
		if d, ok := l.at(seq); ok && !d.done {
			l.unschedule(d)
			d.setNext(time.Time{})
			d.givenUp = true
			l.setDone(d, true)
			l.givenUp++
		}
	}
}

// compactWaitOrder removes from waitOrder the seqs taken by shed and those
// of records done or dropped since, once they are most of it, so that it
// holds O(waiting) seqs whatever the number of callbacks. The caller holds
// l.mu.
func (l *deliveryLog) compactWaitOrder() {
	if len(l.waitOrder) < 2*l.waiting+1024 {
		return
	}
	n := 0
	for _, seq := range l.waitOrder[l.waitHead:] {
		if d, ok := l.at(seq); ok && !d.done {
			l.waitOrder[n] = seq
			n++
		}
	}
	l.waitOrder, l.waitHead = l.waitOrder[:n], 0
}

// room is how many more callbacks may wait before shed gives any up.
func (l *deliveryLog) room() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return max(l.maxWaiting-l.waiting, 0)
}

// givenUpCount is how many callbacks shed gave up.
func (l *deliveryLog) givenUpCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.givenUp
}

// release queues t, pinned, for makeRoom to look at again.
func (l *deliveryLog) release(t *txn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.released = append(l.released, t)
}

// pin marks t pinned if it is in flight, and reports whether it is. The
// caller holds Server.mu.
func (l *deliveryLog) pin(t *txn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	t.pinned = t.inFlight()
	return t.pinned
}

// takeDue removes and returns the retries due at now, oldest callback
// first.
func (l *deliveryLog) takeDue(now time.Time) []retry {
	l.mu.Lock()
	defer l.mu.Unlock()
	var due []retry
	for seq, r := range l.retries {
		if !r.at.After(now) {
			due = append(due, r)
			delete(l.retries, seq)
		}
	}
	slices.SortFunc(due, func(a, b retry) int { return a.seq - b.seq })
	return due
}

// takeIfDue takes the retry of seq when it is due at now; otherwise it
// reports how long until it is (zero when seq waits for none).
func (l *deliveryLog) takeIfDue(seq int, now time.Time) (r retry, wait time.Duration, due bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.retries[seq]
	switch {
	case !ok:
		return retry{}, 0, false
	case r.at.After(now):
		return retry{}, r.at.Sub(now), false
	}
	delete(l.retries, seq)
	return r, 0, true
}

// closeAll marks every callback done: nothing more will be sent.
func (l *deliveryLog) closeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.list {
		if d := &l.list[i]; d.txn != nil {
			l.setDone(d, true)
			d.setNext(time.Time{})
		}
	}
	clear(l.retries)
	l.broadcast()
}

// snapshot returns every callback kept, as Delivery shows it.
func (l *deliveryLog) snapshot() []Delivery {
	records := l.records()
	out := make([]Delivery, len(records))
	for i := range records {
		out[i] = records[i].public()
	}
	return out
}

// records returns copies of the records kept, in seq order, which can be
// read without l.mu (see public): a caller builds the Delivery of each
// only as it needs it, and without holding the log.
func (l *deliveryLog) records() []delivery {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]delivery, 0, len(l.list)-l.holes)
	for _, d := range l.list {
		if d.txn != nil {
			out = append(out, d)
		}
	}
	return out
}

func (l *deliveryLog) changedChan() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.changed
}

// broadcast wakes every waiter; the caller holds l.mu.
func (l *deliveryLog) broadcast() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// public is d as Delivery shows it: its form fields built, its history
// copied.
func (d *delivery) public() Delivery {
	out := Delivery{
		Seq: d.seq, URL: d.url, Values: d.values(), Attempts: int(d.attempts), Delivered: d.delivered,
		Done: d.done, NextAttempt: d.nextAt(), History: make([]DeliveryAttempt, len(d.history)), GivenUp: d.givenUp,
		project: d.txn.project.Key,
	}
	for i, a := range d.history {
		out.History[i] = a.public()
	}
	if n := len(d.history); n > 0 {
		out.LastStatus, out.LastError = int(d.history[n-1].status), d.history[n-1].err
	}
	return out
}

// values are the form fields of the callback, signed with the project's
// private key.
func (d *delivery) values() url.Values {
	v := callbackValues(d.txn, *d.status, d.reason)
	v.Set(paygate.SignatureParam, paygate.Sign(v, d.txn.project.Secret.Reveal()))
	return v
}
