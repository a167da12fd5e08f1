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
func (s *state) subscribe(t *txn, now time.Time) {
	sub := &subscription{
		user: t.user, card: t.card, referenceID: t.id, orderID: t.orderID, interval: t.recurInterval,
		price: t.price, currency: t.currency,
		nextAuto: addDays(now, max(t.recurTrial, t.recurInterval)),
		endsAt:   now.Add(recurringLifetime),
	}
	if t.typ == paygate.TypeVerification {
		sub.price, sub.currency = decimal.Zero, ""
	}
	s.recurring[t.user.id] = sub
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
			t.price, t.currency, t.fee = sub.price, sub.currency, fee(sub.price)
			s.transition(t, cardOutcome(sub.card.number))
			sub.nextAuto = addDays(sub.nextAuto, sub.interval)
		}
	}
}

// processRecurring serves card/processRecurring: 40405 without a
// subscription, 40310 after cancelRecurring, 40311 after endsAt, 40502
// sooner than frequency days after the last successful manual charge. The
// remembered card decides the outcome as in card/process, without 3-D
// Secure.
func (s *Server) processRecurring(c *call) (any, *apiError) {
	price, currency, err := readMoney(c, "price")
	if err != nil {
		return nil, err
	}
	if err := checkOrderID(c.get("order_id")); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	u, err := s.st.lookupUser(c.project, c.get("user"))
	if err != nil {
		return nil, err
	}
	sub := s.st.recurring[u.id]
	switch {
	case sub == nil:
		return nil, newError(paygate.CodeReferenceTransactionNotFound, "")
	case sub.cancelled:
		return nil, newError(paygate.CodeRecurringDisabled, "")
	case now.After(sub.endsAt):
		return nil, newError(paygate.CodeRecurringExpired, "")
	case sub.interval > 0 && !sub.lastManual.IsZero() && now.Before(addDays(sub.lastManual, sub.interval)):
		return nil, newError(paygate.CodeRecurringTooFrequent, "")
	}
	t := s.st.newTxn(c.project, paygate.TypePayment, now)
	t.method, t.user, t.card, t.orderID, t.referenceID = "card", u, sub.card, c.get("order_id"), sub.referenceID
	t.price, t.currency, t.fee = price, currency, fee(price)
	t.attrs = attributes(c.params)
	s.transition(t, cardOutcome(sub.card.number))
	if t.status != paygate.StatusFailed {
		sub.lastManual = now
	}
	out := s.paymentJSON(t, c.basic(), "")
	delete(out, "acs")
	delete(out, "permanentToken")
	return out, nil
}

// changeRecurring serves user/changeRecurring: a new interval (which is
// also the frequency; 0 leaves manual recurring only; the next automatic
// payment comes interval days from now) and price of the automatic
// payments. A user without a subscription has nothing to change: success,
// as the spec leaves that case open.
func (s *Server) changeRecurring(c *call) (any, *apiError) {
	interval, hasInterval := atoiParam(c.get("interval"))
	if c.get("interval") != "" && !hasInterval {
		return nil, errMerchantData("interval")
	}
	var price decimal.Decimal
	var currency string
	if c.get("price") != "" {
		var err *apiError
		if price, currency, err = readMoney(c, "price"); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, err := s.subscriptionOf(c)
	if err != nil || sub == nil {
		return success(err)
	}
	if hasInterval {
		sub.interval = interval
		sub.nextAuto = addDays(s.clock.Now(), interval)
	}
	if !price.IsZero() {
		sub.price, sub.currency = price, currency
	}
	return success(nil)
}

// cancelRecurring serves user/cancelRecurring; later manual recurring
// charges are 40310. A user without a subscription has nothing to cancel:
// success.
func (s *Server) cancelRecurring(c *call) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, err := s.subscriptionOf(c)
	if err == nil && sub != nil {
		sub.cancelled = true
	}
	return success(err)
}

// subscriptionOf finds the subscription of the call's user: nil when the
// user has none, 40002 or 40406 when the user is missing or unknown.
func (s *Server) subscriptionOf(c *call) (*subscription, *apiError) {
	u, err := s.st.lookupUser(c.project, c.get("user"))
	if err != nil {
		return nil, err
	}
	return s.st.recurring[u.id], nil
}

// success is the {"success": true} answer, or err.
func success(err *apiError) (any, *apiError) {
	if err != nil {
		return nil, err
	}
	return map[string]any{"success": true}, nil
}
