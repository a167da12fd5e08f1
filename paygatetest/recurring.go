package paygatetest

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
)

// recurringLifetime is how long a subscription lasts: its endsAt is this
// long after the charge that started it.
const recurringLifetime = 365 * 24 * time.Hour

const day = 24 * time.Hour

// subscription is a user's subscription to recurring payments, started by
// a charge with recurring=1. The sandbox enforces it on manual recurring
// charges (card/processRecurring) and does not charge on its own.
type subscription struct {
	user        *user
	card        *cardData
	referenceID int64 // the charge that started it
	// frequency is the least number of days between payments: the interval,
	// or 1 when the interval is 0 (manual recurring only).
	frequency   int
	interval    int
	price       decimal.Decimal
	currency    string
	nextAllowed time.Time
	endsAt      time.Time
	cancelled   bool
}

// subscribe starts (or restarts) the subscription of t's user. The first
// repeated payment is allowed after the trial or the frequency, whichever
// is longer.
func (s *state) subscribe(t *txn, now time.Time) {
	freq := max(t.recurInterval, 1)
	s.recurring[t.user.id] = &subscription{
		user: t.user, card: t.card, referenceID: t.id, frequency: freq, interval: t.recurInterval,
		price: t.price, currency: t.currency,
		nextAllowed: now.Add(time.Duration(max(t.recurTrial, freq)) * day),
		endsAt:      now.Add(recurringLifetime),
	}
}

// processRecurring serves card/processRecurring: 40405 without a
// subscription, 40310 after cancelRecurring, 40311 after endsAt, 40502
// before the frequency (or trial) has passed. The remembered card decides
// the outcome as in card/process, without 3-D Secure.
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
	case now.Before(sub.nextAllowed):
		return nil, newError(paygate.CodeRecurringTooFrequent, "")
	}
	t := s.st.newTxn(c.project, paygate.TypePayment, now)
	t.method, t.user, t.card, t.orderID, t.referenceID = "card", u, sub.card, c.get("order_id"), sub.referenceID
	t.price, t.currency, t.fee = price, currency, fee(price)
	t.attrs = attributes(c.params)
	s.transition(t, cardOutcome(sub.card.number))
	if t.status != paygate.StatusFailed {
		sub.nextAllowed = now.Add(time.Duration(sub.frequency) * day)
	}
	out := s.paymentJSON(t, c.basic(), "")
	delete(out, "acs")
	delete(out, "permanentToken")
	return out, nil
}

// changeRecurring serves user/changeRecurring: a new interval (which is
// also the frequency; 0 leaves manual recurring at most daily) and price.
func (s *Server) changeRecurring(c *call) (any, *apiError) {
	interval, hasInterval := atoiParam(c.get("interval"))
	if c.get("interval") != "" && !hasInterval {
		return nil, errMerchantData("interval")
	}
	var price decimal.Decimal
	if c.get("price") != "" {
		var err *apiError
		if price, _, err = readMoney(c, "price"); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, err := s.subscriptionOf(c)
	if err != nil {
		return nil, err
	}
	if hasInterval {
		sub.interval, sub.frequency = interval, max(interval, 1)
	}
	if !price.IsZero() {
		sub.price, sub.currency = price, c.get("currency")
	}
	return map[string]any{"success": true}, nil
}

// cancelRecurring serves user/cancelRecurring; later manual recurring
// charges are 40310.
func (s *Server) cancelRecurring(c *call) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, err := s.subscriptionOf(c)
	if err != nil {
		return nil, err
	}
	sub.cancelled = true
	return map[string]any{"success": true}, nil
}

func (s *Server) subscriptionOf(c *call) (*subscription, *apiError) {
	u, err := s.st.lookupUser(c.project, c.get("user"))
	if err != nil {
		return nil, err
	}
	sub := s.st.recurring[u.id]
	if sub == nil {
		return nil, newError(paygate.CodeReferenceTransactionNotFound, "")
	}
	return sub, nil
}
