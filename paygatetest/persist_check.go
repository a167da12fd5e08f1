package paygatetest

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// The ranges of the numbers a state file holds. Each number is checked
// when the file is read, so that a file the sandbox did not write (edited
// by hand, or damaged) stops the start with an error naming the field,
// rather than a panic when the number is used (an index), an id counter
// that wraps around, or a time or amount the sandbox cannot write back.
const (
	// lastTransactionID is the highest transaction id: ids keep their 19
	// digits, and the counter is far from wrapping.
	lastTransactionID int64 = 2*firstTransactionID - 3
	// lastTokenNumber is the highest token number: token ids keep their 16
	// digits, and so their order.
	lastTokenNumber int64 = 1e16 - 1
	// maxCounter bounds the other counters (user ids, callback numbers),
	// far from wrapping.
	maxCounter int64 = 1 << 62
	// maxAttempts bounds a callback's attempts, far from wrapping.
	maxAttempts = 1 << 30
)

// latestTime is the latest time a state file may hold: what the sandbox
// adds to one (1000 years for a subscription that never charges again, the
// clock's furthest advance of 292 years) still has a year JSON can write.
var latestTime = time.Date(8000, 1, 1, 0, 0, 0, 0, time.UTC)

// maxBalance bounds a balance: the sum of many amounts below maxAmount.
var maxBalance = decimal.New(1, maxAmountLength)

// checkInt reports a number outside [lo, hi], naming its field.
func checkInt(field string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return fmt.Errorf("%q is %d, out of range [%d, %d]", field, v, lo, hi)
	}
	return nil
}

// checkID reports an id that is neither 0 (none) nor one the sandbox made
// before next.
func checkID(field string, id, next int64) error {
	if id == 0 {
		return nil
	}
	return checkInt(field, id, firstTransactionID, next-1)
}

// checkTime reports a time after latestTime, naming its field.
func checkTime(field string, t time.Time) error {
	if t.After(latestTime) {
		return fmt.Errorf("%q is %s, after %s", field, t.Format(time.RFC3339), latestTime.Format(time.RFC3339))
	}
	return nil
}

// checkAmount reports an amount the API would not take (see parseAmount)
// or, for a balance, one beyond maxBalance, naming its field.
func checkAmount(field string, d, limit decimal.Decimal) error {
	if !amountInRange(d, limit) {
		return fmt.Errorf("%q is out of range: at most %d decimal places, and below %s", field, maxAmountScale, limit)
	}
	return nil
}

// check reports the first number of c out of range.
func (c *savedCard) check() error {
	if c == nil {
		return nil
	}
	if err := checkInt("month", int64(c.Month), 0, 12); err != nil {
		return err
	}
	if c.Year != 0 {
		return checkInt("year", int64(c.Year), 1000, 9999)
	}
	return nil
}

func (c *savedClock) check() error {
	if err := checkTime("now", c.Now); err != nil {
		return fmt.Errorf("clock: %w", err)
	}
	return nil
}

func (t *savedToken) check() error {
	return firstError(checkTime("expires_at", t.ExpiresAt), t.Card.check())
}

// check reports the first number of sx out of range, next being the next
// transaction id.
func (sx *savedTxn) check(next int64) error {
	err := firstError(
		checkInt("id", sx.ID, firstTransactionID, next-1),
		checkID("reference_id", sx.ReferenceID, next),
		checkAmount("price", sx.Price, maxAmount),
		checkTime("created_at", sx.CreatedAt),
		checkTime("updated_at", sx.UpdatedAt),
		sx.Card.check(),
	)
	if err != nil || sx.Extra == nil {
		return err
	}
	x := sx.Extra
	for i, e := range x.Earlier {
		if err := firstError(checkTime("At", e.At), checkID("By", e.By, next)); err != nil {
			return fmt.Errorf("%q %d: %w", "earlier", i, err)
		}
	}
	return firstError(
		checkAmount("reversed", x.Reversed, maxAmount),
		checkInt("recur_interval", int64(x.RecurInterval), 0, maxInt),
		checkInt("recur_trial", int64(x.RecurTrial), 0, maxInt),
		checkID("chargeback_id", x.ChargebackID, next),
		checkID("retrieval_id", x.RetrievalID, next),
		checkID("penalty_id", x.PenaltyID, next),
	)
}

func (ss *savedSubscription) check(next int64) error {
	return firstError(
		checkInt("reference_id", ss.ReferenceID, firstTransactionID, next-1),
		checkInt("interval", int64(ss.Interval), 0, maxInt),
		checkAmount("price", ss.Price, maxAmount),
		checkTime("last_manual", ss.LastManual),
		checkTime("next_auto", ss.NextAuto),
		checkTime("ends_at", ss.EndsAt),
		ss.Card.check(),
	)
}

// check reports the first number of sd out of range, last being the last
// callback number.
func (sd *savedDelivery) check(last int) error {
	err := firstError(
		checkInt("seq", int64(sd.Seq), 1, int64(last)),
		checkInt("attempts", int64(sd.Attempts), 0, maxAttempts),
		checkInt("automatic", int64(sd.Automatic), 0, int64(sd.Attempts)),
		checkInt("history", int64(len(sd.History)), 0, maxHistory),
		checkTime("next_at", sd.NextAt),
	)
	if err != nil {
		return err
	}
	for i, a := range sd.History {
		if err := firstError(checkTime("At", a.At), checkInt("Status", int64(a.Status), 0, 999)); err != nil {
			return fmt.Errorf("%q %d: %w", "history", i, err)
		}
	}
	return nil
}

// checkBalances reports the first balance out of range.
func checkBalances(balances map[string]map[string]decimal.Decimal) error {
	for key, m := range balances {
		for cur, v := range m {
			if err := checkAmount(cur, v, maxBalance); err != nil {
				return fmt.Errorf("%q of project %q: %w", "balances", key, err)
			}
		}
	}
	return nil
}

// maxInt is the largest int, as an int64.
const maxInt = int64(^uint(0) >> 1)

// firstError returns the first error that is not nil.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
