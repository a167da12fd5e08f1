package paygatetest

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
)

// recurringLifetime is how long a subscription lasts: its endsAt is this
// long after the charge that started it.
const recurringLifetime = 365 * 24 * time.Hour

const day = 24 * time.Hour

// subscription is a user's subscription to recurring payments, started by
// a charge with recurring=1.
//
// With an interval above 0 the sandbox charges the subscription by itself
// every interval days (the first time after the trial, if longer), when
// its clock is advanced past the date: a payment referencing the charge
// that started it, with that charge's price and order id (or the price set
// by user/changeRecurring; a subscription started by a verification
// charges only once a price is set).
//
// Manual charges (card/processRecurring) come on top, "outside the
// interval": neither the subscribing charge nor the trial holds them back,
// and only two manual charges closer than frequency days apart are 40502.
// The frequency is the interval; 0 (manual recurring only) sets no
// minimum.
type subscription struct {
	user        *user
	card        *cardData
	referenceID int64 // the charge that started it
	orderID     string
	interval    int // days between automatic charges, and between manual ones at least
	price       decimal.Decimal
	currency    string
	lastManual  time.Time // of the last successful manual charge; zero: none yet
	nextAuto    time.Time // of an automatic charge, when interval > 0
	endsAt      time.Time
	cancelled   bool
}

// frequency is the Recurring object's frequency: the least number of days
// between manual charges.
func (sub *subscription) frequency() int { return sub.interval }

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

// subscribe starts (or restarts) the subscription of t's user.
func (st *state) subscribe(t *txn, now time.Time) {
	x := t.extra()
	sub := &subscription{
		user: t.user, card: t.card, referenceID: t.id, orderID: t.orderID, interval: x.recurInterval,
		price: t.price, currency: t.currency,
		nextAuto: addDays(now, max(x.recurTrial, x.recurInterval)),
		endsAt:   now.Add(recurringLifetime),
	}
	if t.typ == paygate.TypeVerification {
		sub.price, sub.currency = decimal.Zero, ""
	}
	st.recurring[t.user.id] = sub
}

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
