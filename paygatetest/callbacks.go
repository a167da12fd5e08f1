package paygatetest

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/internal/callbackform"
)

// Delivery is one callback the sandbox made, and how sending it went.
type Delivery struct {
	// Seq numbers the callbacks of a server from 1, in the order the status
	// changes happened.
	Seq int
	// URL is the callback URL it was sent to; empty when the project has
	// none (the callback is then recorded only).
	URL string
	// Values are the form fields sent, signature included.
	Values url.Values
	// Attempts is how many times it was POSTed so far, redeliveries
	// included.
	Attempts int
	// LastStatus is the receiver's HTTP status at the last attempt, 0 when
	// there was no answer.
	LastStatus int
	// LastError describes the last attempt when it got no answer.
	LastError string
	// Delivered reports whether the receiver answered 2xx.
	Delivered bool
	// Done reports whether no further attempt is scheduled or queued:
	// delivered, out of attempts, not sendable, or the server closed.
	Done bool
	// NextAttempt is when the next automatic attempt is due, on the
	// sandbox's clock; zero when none is scheduled.
	NextAttempt time.Time
	// History lists the attempts, oldest first (the last 50 at most).
	History []DeliveryAttempt

	automatic int    // attempts made by the retry schedule
	project   string // key of the project whose transaction it is about
}

// DeliveryAttempt is one POST of a callback.
type DeliveryAttempt struct {
	// At is when it was made, on the sandbox's clock.
	At time.Time
	// Status is the receiver's HTTP status; 0 when there was no answer.
	// A redirect is an answer like any other: it is never followed.
	Status int
	// Error describes an attempt that got no answer or was not sent.
	Error string
	// Manual reports an attempt asked for by Redeliver.
	Manual bool
}

// Deliveries returns a copy of every callback made so far, in Seq order.
func (s *Server) Deliveries() []Delivery { return s.deliveries.log.snapshot() }

// WaitForDelivery waits until a callback matching match is recorded (or
// changes so that it matches: a retried one is matched again after each
// attempt) and returns it, or returns the context's error.
func (s *Server) WaitForDelivery(ctx context.Context, match func(Delivery) bool) (Delivery, error) {
	for {
		changed := s.deliveries.log.changedChan()
		for _, d := range s.deliveries.log.snapshot() {
			if match(d) {
				return d, nil
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Delivery{}, ctx.Err()
		}
	}
}

// callbackValues builds the callback for t's status change with the one
// builder of callbacks, which paygatetest.CallbackSigner uses too. It does
// not sign.
func callbackValues(t *txn, status paygate.CallbackStatus) url.Values {
	ref := ""
	if t.referenceID != 0 {
		ref = idString(t.referenceID)
	}
	return callbackform.Values(callbackform.Fields{
		Basic:       t.project.Form == paygate.FormBasic,
		Project:     strconv.Itoa(t.project.ID),
		User:        userID(t.user),
		ID:          idString(t.id),
		ReferenceID: ref,
		OrderID:     t.orderID,
		Amount:      t.price,
		Price:       t.price,
		Earned:      earned(t),
		Currency:    t.currency,
		Status:      string(status),
		Reason:      t.reason,
		Sandbox:     t.project.Sandbox,
		Attrs:       t.attrs,
	})
}

// basicCallbackStatuses are the callback statuses of the basic form.
var basicCallbackStatuses = map[paygate.CallbackStatus]bool{
	paygate.CallbackCompleted: true, paygate.CallbackFailed: true, paygate.CallbackVerified: true,
	paygate.CallbackReversed: true, paygate.CallbackRefundCompleted: true, paygate.CallbackChargebackCompleted: true,
	paygate.CallbackRetrievalCompleted: true, paygate.CallbackPenaltyCompleted: true,
}

// notify records the callback of t's status change and queues it for
// sending. The caller holds s.mu, so callbacks are numbered in the order of
// the changes; queueing never blocks.
func (s *Server) notify(t *txn, status paygate.CallbackStatus) {
	if t.project.Form == paygate.FormBasic && !basicCallbackStatuses[status] {
		return // the basic form has no callback for this change
	}
	v := callbackValues(t, status)
	v.Set(paygate.SignatureParam, paygate.Sign(v, t.project.Secret))
	s.deliveries.send(t.project.Key, t.project.CallbackURL, v)
}

// Redeliver sends callback seq (a Delivery's Seq) once more, at once, to
// the URL it was made for. The attempt is added to its History; a failed
// redelivery leaves the retry schedule as it was, a successful one ends it.
// It fails when seq is not in the log, has no URL, or its destination's
// queue is full.
func (s *Server) Redeliver(seq int) error { return s.deliveries.redeliver(seq) }

// earned is the merchant's revenue from t: price less fee for a payment,
// the amount paid back or out (negative) for a refund, payout, chargeback
// or penalty, the amount won back for a retrieval.
func earned(t *txn) decimal.Decimal {
	switch t.typ {
	case paygate.TypePayment:
		return t.price.Sub(t.fee)
	case paygate.TypeRefund, paygate.TypePayout, paygate.TypeChargeback, paygate.TypePenalty:
		return t.price.Neg()
	case paygate.TypeRetrieval:
		return t.price
	}
	return decimal.Zero
}

// deliveryLog records callbacks and wakes waiters on every change. Once it
// holds limit and a tenth more, it drops the oldest tenth.
type deliveryLog struct {
	mu      sync.Mutex
	limit   int
	list    []Delivery // Seq base+1, base+2, ...
	base    int
	retries map[int]retry // scheduled automatic attempts, by Seq
	changed chan struct{}
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

func (l *deliveryLog) add(d Delivery) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	d.Seq = l.base + len(l.list) + 1
	l.list = append(l.list, d)
	if drop := len(l.list) - l.limit; drop >= max(l.limit/10, 1) {
		for _, old := range l.list[:drop] {
			delete(l.retries, old.Seq)
		}
		l.list = append([]Delivery(nil), l.list[drop:]...)
		l.base += drop
	}
	l.broadcast()
	return d.Seq
}

// at returns the index of seq in l.list; the caller holds l.mu.
func (l *deliveryLog) at(seq int) (int, bool) {
	i := seq - l.base - 1
	return i, i >= 0 && i < len(l.list)
}

func (l *deliveryLog) get(seq int) (Delivery, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, ok := l.at(seq)
	if !ok {
		return Delivery{}, false
	}
	return l.list[i], true
}

// update applies f to callback seq, when it is still in the log.
func (l *deliveryLog) update(seq int, f func(*Delivery)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i, ok := l.at(seq); ok {
		f(&l.list[i])
		l.broadcast()
	}
}

// record applies f to callback seq and, when reschedule, schedules its
// next automatic attempt at the NextAttempt f left (none when zero), in one
// step, so that whoever sees NextAttempt can advance the clock past it. It
// returns that time.
func (l *deliveryLog) record(seq int, reschedule bool, f func(*Delivery)) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, ok := l.at(seq)
	if !ok {
		return time.Time{}
	}
	d := &l.list[i]
	f(d)
	switch {
	case !reschedule:
	case d.NextAttempt.IsZero():
		delete(l.retries, seq)
	default:
		l.retries[seq] = retry{seq: seq, target: d.URL, at: d.NextAttempt}
	}
	l.broadcast()
	return d.NextAttempt
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
		l.list[i].Done, l.list[i].NextAttempt = true, time.Time{}
	}
	clear(l.retries)
	l.broadcast()
}

func (l *deliveryLog) snapshot() []Delivery {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Delivery, len(l.list))
	for i, d := range l.list {
		d.Values = cloneValues(d.Values)
		d.History = slices.Clone(d.History)
		out[i] = d
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

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
