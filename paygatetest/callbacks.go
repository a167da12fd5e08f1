package paygatetest

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
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
	// Attempts is how many times it was POSTed so far.
	Attempts int
	// LastStatus is the receiver's HTTP status at the last attempt, 0 when
	// there was no answer.
	LastStatus int
	// LastError describes the last failed attempt.
	LastError string
	// Delivered reports whether the receiver answered 2xx.
	Delivered bool
	// Done reports whether no further attempt will be made: delivered,
	// out of attempts, not sendable, or the server closed.
	Done bool
}

// Deliveries returns a copy of every callback made so far, in Seq order.
func (s *Server) Deliveries() []Delivery { return s.deliveries.snapshot() }

// WaitForDelivery waits until a callback matching match is recorded (or
// changes so that it matches: a retried one is matched again after each
// attempt) and returns it, or returns the context's error.
func (s *Server) WaitForDelivery(ctx context.Context, match func(Delivery) bool) (Delivery, error) {
	for {
		changed := s.deliveries.changedChan()
		for _, d := range s.deliveries.snapshot() {
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

// callbackValues builds the callback for t's status change: every field of
// the Events table, empty ones included, and attr_*; the basic form has no
// type and reason. It does not sign.
func callbackValues(t *txn, status paygate.CallbackStatus) url.Values {
	p := t.project
	v := url.Values{}
	ref, sandbox := "", "0"
	if t.referenceID != 0 {
		ref = idString(t.referenceID)
	}
	if p.Sandbox {
		sandbox = "1"
	}
	v.Set("project", strconv.Itoa(p.ID))
	v.Set("user", userID(t.user))
	v.Set("id", idString(t.id))
	v.Set("reference_id", ref)
	v.Set("order_id", t.orderID)
	v.Set("amount", t.price.StringFixed(2))
	v.Set("price", t.price.StringFixed(4))
	v.Set("deposit", decimal.Zero.StringFixed(4))
	v.Set("earned", earned(t).StringFixed(4))
	v.Set("vat_rate", decimal.Zero.StringFixed(4))
	v.Set("vat_amount", decimal.Zero.StringFixed(4))
	v.Set("currency", t.currency)
	v.Set("status", string(status))
	v.Set("sandbox", sandbox)
	if p.Form != paygate.FormBasic {
		v.Set("type", "transaction")
		v.Set("reason", t.reason)
	}
	for k, a := range t.attrs {
		v.Set(k, a)
	}
	return v
}

// basicCallbackStatuses are the callback statuses of the basic form.
var basicCallbackStatuses = map[paygate.CallbackStatus]bool{
	paygate.CallbackCompleted: true, paygate.CallbackFailed: true, paygate.CallbackVerified: true,
	paygate.CallbackReversed: true, paygate.CallbackRefundCompleted: true, paygate.CallbackChargebackCompleted: true,
	paygate.CallbackRetrievalCompleted: true, paygate.CallbackPenaltyCompleted: true,
}

// notify records the callback of t's status change and starts sending it.
// The caller holds s.mu, so callbacks are numbered in the order of the
// changes.
func (s *Server) notify(t *txn, status paygate.CallbackStatus) {
	if t.project.Form == paygate.FormBasic && !basicCallbackStatuses[status] {
		return // the basic form has no callback for this change
	}
	v := callbackValues(t, status)
	v.Set(paygate.SignatureParam, paygate.Sign(v, t.project.Secret))
	target := t.project.CallbackURL
	seq := s.deliveries.add(Delivery{URL: target, Values: v, Done: target == ""})
	select {
	case <-s.closed:
		s.deliveries.update(seq, func(d *Delivery) { d.Done = true })
		return
	default:
	}
	if target == "" {
		return
	}
	s.inflight.Add(1)
	go s.deliver(seq, target, v)
}

// deliver POSTs a callback until the receiver answers 2xx, at most the
// configured number of times, waiting longer after each failure.
func (s *Server) deliver(seq int, target string, v url.Values) {
	defer s.inflight.Done()
	body := v.Encode()
	delay := s.callbacks.baseDelay
	for attempt := 1; ; attempt++ {
		status, err := s.post(target, body)
		ok := err == nil && status >= 200 && status < 300
		last := attempt >= s.callbacks.attempts
		s.deliveries.update(seq, func(d *Delivery) {
			d.Attempts, d.LastStatus, d.Delivered, d.Done = attempt, status, ok, ok || last
			d.LastError = ""
			if err != nil {
				d.LastError = err.Error()
			}
		})
		if ok || last {
			return
		}
		select {
		case <-time.After(delay):
		case <-s.ctx.Done():
			s.deliveries.update(seq, func(d *Delivery) { d.Done = true })
			return
		}
		delay = min(2*delay, maxCallbackDelay)
	}
}

func (s *Server) post(target, body string) (int, error) {
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := s.sender.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

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

// deliveryLog records callbacks and wakes waiters on every change.
type deliveryLog struct {
	mu      sync.Mutex
	list    []Delivery
	changed chan struct{}
}

func newDeliveryLog() *deliveryLog { return &deliveryLog{changed: make(chan struct{})} }

func (l *deliveryLog) add(d Delivery) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	d.Seq = len(l.list) + 1
	l.list = append(l.list, d)
	l.broadcast()
	return d.Seq
}

func (l *deliveryLog) update(seq int, f func(*Delivery)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f(&l.list[seq-1])
	l.broadcast()
}

func (l *deliveryLog) snapshot() []Delivery {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Delivery, len(l.list))
	for i, d := range l.list {
		d.Values = cloneValues(d.Values)
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
