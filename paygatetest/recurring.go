package paygatetest

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/paygate/paygate-go"
)

// recurringLifetime is how long a subscription lasts: its endsAt is this
// long after the charge that started it.
const recurringLifetime = 365 * 24 * time.Hour

const day = 24 * time.Hour

// addDays is t plus n days, saturated far in the future when n days do not
// fit in a time.Duration: a huge interval or trial means "never", not a
// date in the past.
func addDays(t time.Time, n int) time.Time {
	if n > maxDays {
		return t.AddDate(1000, 0, 0)
	}
	return t.Add(time.Duration(n) * day)
}

// maxDays is the most days a time.Duration holds, with room to spare.
const maxDays = int(math.MaxInt64/int64(day)) - 1

// chargeBatch is how many automatic payments a clock move makes under one
// hold of Server.mu: other requests are served between two batches, not
// after the whole move.
const chargeBatch = 64

// chargeDueRecurring makes the automatic payments whose date has come, in
// the order the subscriptions started, at most inFlightAllowance of them
// (a year's move over a few hundred daily subscriptions would otherwise
// make hundreds of thousands in one request), and no more than there is
// room for their callbacks to wait (deliveryLog.room), so that a move
// never makes the sandbox give up callbacks, its own or others': the
// payments still due are made by a later clock move, which may be a move
// by 0. It takes s.mu for chargeBatch payments at a time.
func (s *Server) chargeDueRecurring() {
	s.mu.Lock()
	now := s.clock.Now()
	var subs []*subscription
	for _, sub := range s.st.recurring {
		if sub.due(now) {
			subs = append(subs, sub)
		}
	}
	slices.SortFunc(subs, func(a, b *subscription) int { return cmp.Compare(a.referenceID, b.referenceID) })
	budget := min(inFlightAllowance(s.st.retention), s.st.log.room())
	s.mu.Unlock()
	for len(subs) > 0 && budget > 0 {
		s.mu.Lock()
		if s.isClosed() {
			s.mu.Unlock()
			return
		}
		for n := 0; n < chargeBatch && budget > 0 && len(subs) > 0; {
			sub := subs[0]
			// Changed, cancelled or charged by another move since it was
			// found due: looked at again.
			if s.st.recurring[sub.user.id] != sub || !sub.due(now) {
				subs = subs[1:]
				continue
			}
			t := s.st.newTxn(sub.user.project, paygate.TypePayment, now)
			t.method, t.user, t.card, t.orderID, t.referenceID = "card", sub.user, sub.card, sub.orderID, sub.referenceID
			t.price, t.currency = sub.price, sub.currency
			s.transition(t, cardOutcome(sub.card.number))
			sub.nextAuto = addDays(sub.nextAuto, sub.interval)
			s.autoCharges.Add(1)
			n++
			budget--
		}
		s.mu.Unlock()
	}
}

// allowance is the server's in-flight allowance; see inFlightAllowance.
func (s *Server) allowance() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return inFlightAllowance(s.st.retention)
}

// due reports whether the subscription's next automatic payment is due at
// now.
func (sub *subscription) due(now time.Time) bool {
	return sub.interval > 0 && !sub.cancelled && sub.price.IsPositive() &&
		!sub.nextAuto.After(now) && !sub.nextAuto.After(sub.endsAt)
}
