package paygatetest

import (
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/paygate/paygate-go"
)

// deliveryLog records callbacks and wakes waiters on every change. A
// callback is kept as long as its transaction (see WithRetention); besides,
// once the log holds limit and a tenth more, it drops its oldest tenth, so
// that the callbacks of transactions Reset forgot stay bounded too.
type deliveryLog struct {
	mu      sync.Mutex
	limit   int
	list    []delivery // by seq, ascending; the records of forgotten transactions are holes until compacted
	holes   int        // records in list whose transaction is forgotten, at most
	lastSeq int
	retries map[int]retry // scheduled automatic attempts, by seq
	changed chan struct{}
}

// delivery is one callback as the log keeps it: what it reports, not its
// form fields. The fields are built again from the transaction when asked
// for, as every one of them except the reason stays as it was when the
// callback was made; the reason is kept here. So a callback costs a record
// of fixed size, whatever its transaction carries.
type delivery struct {
	seq       int
	txn       *txn
	url       string
	status    paygate.CallbackStatus
	reason    string
	next      time.Time // of the next automatic attempt; zero when none is scheduled
	history   []attempt // the last maxHistory attempts, oldest first
	attempts  int32
	automatic int32 // attempts made by the retry schedule
	delivered bool
	done      bool
}

// attempt is one POST of a callback; see DeliveryAttempt.
type attempt struct {
	at     time.Time
	err    string
	status int32
	manual bool
}

// retry is a scheduled attempt.
type retry struct {
	seq    int
	target string
	at     time.Time
}

func newDeliveryLog(limit int) *deliveryLog {
	return &deliveryLog{limit: limit, changed: make(chan struct{}), retries: make(map[int]retry)}
}

// add records a new callback of t and returns its seq.
func (l *deliveryLog) add(t *txn, target string, status paygate.CallbackStatus) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lastSeq++
	t.callbacks++
	d := delivery{seq: l.lastSeq, txn: t, url: target, status: status, reason: t.reason, done: true}
	l.list = append(l.list, d)
	l.setDone(&l.list[len(l.list)-1], target == "")
	if drop := len(l.list) - l.holes - l.limit; drop >= max(l.limit/10, 1) {
		l.dropOldest(drop)
	}
	l.broadcast()
	return d.seq
}

// dropOldest removes the n oldest records of transactions still kept,
// with the holes among them.
func (l *deliveryLog) dropOldest(n int) {
	i := 0
	for ; i < len(l.list) && n > 0; i++ {
		d := &l.list[i]
		if d.txn.forgotten {
			l.holes--
			continue
		}
		l.setDone(d, true)
		delete(l.retries, d.seq)
		n--
	}
	l.list = append(l.list[:0:0], l.list[i:]...)
	l.holes = max(l.holes, 0)
}

// forget drops the callbacks of t, which the state no longer keeps.
func (l *deliveryLog) forget(t *txn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t.forgotten = true
	l.holes += int(t.callbacks)
	if l.holes > len(l.list)/2 {
		l.list = slices.DeleteFunc(l.list, func(d delivery) bool { return d.txn.forgotten })
		l.holes = 0
	}
}

// at returns the record of seq; the caller holds l.mu.
func (l *deliveryLog) at(seq int) (*delivery, bool) {
	i, ok := slices.BinarySearchFunc(l.list, seq, func(d delivery, seq int) int { return d.seq - seq })
	if !ok || l.list[i].txn.forgotten {
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

// public returns callback seq as Delivery shows it.
func (l *deliveryLog) public(seq int) (Delivery, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.at(seq)
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
	case d.next.IsZero():
		delete(l.retries, seq)
	default:
		l.retries[seq] = retry{seq: seq, target: d.url, at: d.next}
	}
	l.broadcast()
	return d.next
}

// setDone sets d.done, counting on its transaction the callbacks not done,
// which keep the transaction from being dropped. The caller holds l.mu.
func (l *deliveryLog) setDone(d *delivery, done bool) {
	switch {
	case done && !d.done:
		d.txn.sending.Add(-1)
	case !done && d.done:
		d.txn.sending.Add(1)
	}
	d.done = done
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

// closeAll marks every callback done: nothing more will be sent.
func (l *deliveryLog) closeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.list {
		l.setDone(&l.list[i], true)
		l.list[i].next = time.Time{}
	}
	clear(l.retries)
	l.broadcast()
}

// snapshot returns every callback kept, as Delivery shows it.
func (l *deliveryLog) snapshot() []Delivery {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Delivery, 0, len(l.list)-l.holes)
	for i := range l.list {
		if d := &l.list[i]; !d.txn.forgotten {
			out = append(out, d.public())
		}
	}
	return out
}

// ofTransactions returns the records of the transactions in ids, oldest
// first, with copies of their histories.
func (l *deliveryLog) ofTransactions(ids map[int64]bool) []delivery {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []delivery
	for _, d := range l.list {
		if ids[d.txn.id] && !d.txn.forgotten {
			d.history = slices.Clone(d.history)
			out = append(out, d)
		}
	}
	return out
}

// count is how many callbacks the log keeps.
func (l *deliveryLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for i := range l.list {
		if !l.list[i].txn.forgotten {
			n++
		}
	}
	return n
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
		Done: d.done, NextAttempt: d.next, History: make([]DeliveryAttempt, len(d.history)),
	}
	for i, a := range d.history {
		out.History[i] = DeliveryAttempt{At: a.at, Status: int(a.status), Error: a.err, Manual: a.manual}
	}
	if n := len(d.history); n > 0 {
		out.LastStatus, out.LastError = int(d.history[n-1].status), d.history[n-1].err
	}
	return out
}

// values are the form fields of the callback, signed with the project's
// private key.
func (d *delivery) values() url.Values {
	v := callbackValues(d.txn, d.status, d.reason)
	v.Set(paygate.SignatureParam, paygate.Sign(v, d.txn.project.Secret))
	return v
}
