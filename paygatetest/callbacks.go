package paygatetest

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
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
	// GivenUp reports a callback the sandbox stopped trying to send, with
	// no attempt recorded for it, because more callbacks waited to be sent
	// than it holds (see WithRetention). Done is then set and NextAttempt
	// zero; Redeliver still sends it.
	GivenUp bool

	project string // key of the project whose transaction it is about
}

// ProjectKey is the public key of the project whose transaction the
// callback is about.
func (d Delivery) ProjectKey() string { return d.project }

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
		for _, r := range s.deliveries.log.records() {
			if d := r.public(); match(d) {
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

// callbackValues builds the callback for t's status change, when t had
// reason, with the one builder of callbacks, which
// paygatetest.CallbackSigner uses too. It does not sign.
func callbackValues(t *txn, status callback.Status, reason string) url.Values {
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
		Reason:      reason,
		Sandbox:     t.project.Sandbox,
		Attrs:       t.attrs,
	})
}

// Redeliver sends callback seq (a Delivery's Seq) once more, as soon as
// its destination has a connection free, to the URL it was made for. The
// attempt is added to its History; a failed redelivery leaves the retry
// schedule as it was, a successful one ends it. A callback already waiting
// in the queue is sent once, at its turn. It fails when seq is not in the
// log, has no URL, or the server is closed.
func (s *Server) Redeliver(seq int) error { return s.deliveries.redeliver(seq) }

// CallbacksGivenUp is how many callbacks the server gave up without
// sending them, since it started, because more waited to be sent than it
// holds; see Delivery.GivenUp and WithRetention.
func (s *Server) CallbacksGivenUp() int { return s.deliveries.log.givenUpCount() }

// earned is the merchant's revenue from t: price less fee for a payment,
// the amount paid back or out (negative) for a refund, payout, chargeback
// or penalty, the amount won back for a retrieval.
func earned(t *txn) decimal.Decimal {
	switch t.typ {
	case paygate.TypePayment:
		return t.price.Sub(t.fee())
	case paygate.TypeRefund, paygate.TypePayout, paygate.TypeChargeback, paygate.TypePenalty:
		return t.price.Neg()
	case paygate.TypeRetrieval:
		return t.price
	}
	return decimal.Zero
}

// Delivery is callback seq (Delivery.Seq) as the delivery log holds it now;
// false when the log has no such callback, or retention dropped it.
func (s *Server) Delivery(seq int) (Delivery, bool) { return s.deliveries.log.public(seq) }

// DeliveryCount is how many callbacks of the project with public key key
// the delivery log keeps.
func (s *Server) DeliveryCount(key string) int { return s.deliveries.log.count(key) }

// DeliveriesPage is a page of the callbacks of the project with public key
// key, oldest first: at most n of those after callback after (a Seq; 0
// for the first), skip of them left out first. It copies the page only,
// so that a listing costs the same whatever the log holds.
func (s *Server) DeliveriesPage(key string, after, skip, n int) []Delivery {
	page := s.deliveries.log.page(key, int64(after), skip, n)
	out := make([]Delivery, len(page))
	for i := range page {
		out[i] = page[i].public()
	}
	return out
}

// AwaitAttempt waits until callback before (a Delivery as the log held
// it) has an attempt beyond those it had then (or a longer history, which
// keeps its last attempts only), or until ctx is done, and returns the
// callback as it stands then (before, if it left the log meanwhile): after
// Redeliver, it is the answer of the new attempt. It looks at that
// callback only, so that it costs the same whatever the log holds.
func (s *Server) AwaitAttempt(ctx context.Context, before Delivery) Delivery {
	seq, histLen, attempts := before.Seq, len(before.History), before.Attempts
	log := s.deliveries.log
	for {
		changed := log.changedChan()
		d, ok := log.get(seq)
		if !ok {
			return before
		}
		if int(d.attempts) > attempts || len(d.history) > histLen {
			return d.public()
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return d.public()
		}
	}
}
