package paygatetest

import (
	"math"
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
	list    []delivery // by seq, ascending; a record without txn is a hole, left by a dropped transaction
	holes   int        // in list
	lastSeq int
	retries map[int]retry // scheduled automatic attempts, by seq
	changed chan struct{}
	// statuses holds the callback statuses in the order first seen, so that
	// a record points to one instead of holding a string; an entry never
	// changes once written.
	statuses [32]paygate.CallbackStatus
	nStatus  int
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
	reason    string
	history   []attempt // the last maxHistory attempts, oldest first
	status    *paygate.CallbackStatus
	nextSec   int64 // with nextNsec, when the next automatic attempt is due, if hasNext; see nextAt
	attempts  int32
	automatic int32 // attempts made by the retry schedule
	nextNsec  int32
	hasNext   bool
	delivered bool
	done      bool
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

func newDeliveryLog(limit int) *deliveryLog {
	return &deliveryLog{limit: limit, changed: make(chan struct{}), retries: make(map[int]retry)}
}

// add records a new callback of t and returns its seq.
func (l *deliveryLog) add(t *txn, target string, status paygate.CallbackStatus) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lastSeq++
	if t.callbacks == 0 {
		t.firstSeq = l.lastSeq
	}
	if t.callbacks < math.MaxUint16 { // a handful in practice
		t.callbacks++
	}
	if worthCompacting(len(l.list), cap(l.list), l.holes) {
		// Compacting rather than growing, as state.compactOrder does.
		l.list = slices.DeleteFunc(l.list, func(d delivery) bool { return d.txn == nil })
		l.holes = 0
	}
	d := delivery{seq: l.lastSeq, txn: t, url: target, status: l.status(status), reason: t.reason(), done: true}
	l.list = append(l.list, d)
	l.setDone(&l.list[len(l.list)-1], target == "")
	if drop := len(l.list) - l.holes - l.limit; drop >= max(l.limit/10, 1) {
		l.dropOldest(drop)
	}
	l.broadcast()
	return d.seq
}

// status returns the log's entry of status, adding it when new. The
// sandbox sends 14 statuses; were there ever more than the table holds,
// each further one would get a copy of its own per record. The caller
// holds l.mu.
func (l *deliveryLog) status(status paygate.CallbackStatus) *paygate.CallbackStatus {
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
		l.setDone(d, true)
		delete(l.retries, d.seq)
		d.txn.callbacks--
		n--
	}
	l.list = slices.Delete(l.list, 0, i)
}

// forget drops the callbacks of t, which the state no longer keeps: their
// records become holes at once, so that nothing holds t any more. They
// follow t's first one, mostly at once.
func (l *deliveryLog) forget(t *txn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, _ := slices.BinarySearchFunc(l.list, t.firstSeq, bySeq)
	for ; i < len(l.list) && t.callbacks > 0; i++ {
		if d := &l.list[i]; d.txn == t {
			delete(l.retries, d.seq)
			*d = delivery{seq: d.seq}
			t.callbacks--
			l.holes++
		}
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

// count is how many callbacks the log keeps.
func (l *deliveryLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.list) - l.holes
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
		Done: d.done, NextAttempt: d.nextAt(), History: make([]DeliveryAttempt, len(d.history)),
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
	v.Set(paygate.SignatureParam, paygate.Sign(v, d.txn.project.Secret))
	return v
}
