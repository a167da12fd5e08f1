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

// chargeDueRecurring makes the automatic payments whose date has come, in
// the order the subscriptions started. The caller holds s.mu.
func (s *Server) chargeDueRecurring() {
	now := s.clock.Now()
	subs := make([]*subscription, 0, len(s.st.recurring))
	for _, sub := range s.st.recurring {
		subs = append(subs, sub)
	}
	slices.SortFunc(subs, func(a, b *subscription) int { return cmp.Compare(a.referenceID, b.referenceID) })
	for _, sub := range subs {
		for sub.interval > 0 && !sub.cancelled && sub.price.IsPositive() &&
			!sub.nextAuto.After(now) && !sub.nextAuto.After(sub.endsAt) {
			t := s.st.newTxn(sub.user.project, paygate.TypePayment, now)
			t.method, t.user, t.card, t.orderID, t.referenceID = "card", sub.user, sub.card, sub.orderID, sub.referenceID
			t.price, t.currency = sub.price, sub.currency
			s.transition(t, cardOutcome(sub.card.number))
			sub.nextAuto = addDays(sub.nextAuto, sub.interval)
		}
	}
}
