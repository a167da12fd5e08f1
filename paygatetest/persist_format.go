package paygatetest

import (
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/internal/ascii"
)

// stateVersion is the format of the state file this sandbox writes. It
// reads this version only: a file of a newer one is refused at start, never
// read as far as it goes, since a sandbox that silently forgot what it does
// not understand would pass tests it should fail.
const stateVersion = 1

// savedState is the state file's content: everything the sandbox
// remembers, except what lives for a process only (faults, dashboard
// sessions, the guess budget). Projects come from the configuration and
// are named by their public key; their private keys are never written.
type savedState struct {
	Version       int                                   `json:"version"`
	SavedAt       time.Time                             `json:"saved_at"`
	Clock         savedClock                            `json:"clock"`
	NextTxn       int64                                 `json:"next_transaction"`
	NextUser      int64                                 `json:"next_user"`
	NextToken     int64                                 `json:"next_token"`
	LastDelivery  int                                   `json:"last_delivery"`
	Users         []savedUser                           `json:"users"`
	Tokens        []savedToken                          `json:"tokens"`
	Transactions  []savedTxn                            `json:"transactions"`
	Subscriptions []savedSubscription                   `json:"subscriptions"`
	Balances      map[string]map[string]decimal.Decimal `json:"balances"`
	Deliveries    []savedDelivery                       `json:"deliveries"`
}

// savedClock is the clock: the offset Advance added to real time (or to
// the start of a frozen clock), and the time it read when saved.
type savedClock struct {
	Now    time.Time     `json:"now"`
	Offset time.Duration `json:"offset"`
}

type savedUser struct {
	ID          string `json:"id"`
	Project     string `json:"project"`
	Identifier  string `json:"identifier"`
	DisplayName string `json:"display_name,omitempty"`
	Email       string `json:"email,omitempty"`
	Phone       string `json:"phone,omitempty"`
	IP          string `json:"ip,omitempty"`
	Locale      string `json:"locale,omitempty"`
}

// savedCard is a card the sandbox charges again (a remembered card, a
// subscription's, a payout's): its number is needed for that, and the
// sandbox's cards are test cards. The file is written readable by its
// owner only.
type savedCard struct {
	Number string `json:"number"`
	Month  int    `json:"month,omitempty"`
	Year   int    `json:"year,omitempty"`
	Holder string `json:"holder,omitempty"`
}

type savedToken struct {
	ID        string     `json:"id"`
	Project   string     `json:"project"`
	Card      *savedCard `json:"card"`
	ExpiresAt time.Time  `json:"expires_at"`
	Used      bool       `json:"used,omitempty"`
	Permanent bool       `json:"permanent,omitempty"`
	Pending   bool       `json:"pending,omitempty"`
}

type savedTxn struct {
	ID          int64                   `json:"id"`
	Project     string                  `json:"project"`
	OrderID     string                  `json:"order_id,omitempty"`
	ReferenceID int64                   `json:"reference_id,omitempty"`
	Price       decimal.Decimal         `json:"price"`
	Currency    string                  `json:"currency"`
	Type        paygate.TransactionType `json:"type"`
	Method      string                  `json:"method,omitempty"`
	Status      paygate.Status          `json:"status"`
	CreatedAt   time.Time               `json:"created_at"`
	UpdatedAt   time.Time               `json:"updated_at"`
	User        string                  `json:"user,omitempty"`
	Card        *savedCard              `json:"card,omitempty"`
	Attrs       map[string]string       `json:"attrs,omitempty"`
	LastKept    bool                    `json:"last_kept,omitempty"`
	Extra       *savedExtra             `json:"extra,omitempty"`
}

type savedExtra struct {
	Reason         string          `json:"reason,omitempty"`
	Earlier        []statusChange  `json:"earlier,omitempty"`
	Reversed       decimal.Decimal `json:"reversed"`
	ReversedTo     paygate.Status  `json:"reversed_to,omitempty"`
	MD             string          `json:"md,omitempty"`
	Remember       bool            `json:"remember,omitempty"`
	Recurring      bool            `json:"recurring,omitempty"`
	Subscribed     bool            `json:"subscribed,omitempty"`
	RecurInterval  int             `json:"recur_interval,omitempty"`
	RecurTrial     int             `json:"recur_trial,omitempty"`
	PermanentToken string          `json:"permanent_token,omitempty"`
	ThreeDSOutcome paygate.Status  `json:"three_ds_outcome,omitempty"`
	SuccessURL     string          `json:"success_url,omitempty"`
	FailURL        string          `json:"fail_url,omitempty"`
	ChargebackID   int64           `json:"chargeback_id,omitempty"`
	RetrievalID    int64           `json:"retrieval_id,omitempty"`
	PenaltyID      int64           `json:"penalty_id,omitempty"`
}

type savedSubscription struct {
	User        string          `json:"user"`
	Card        *savedCard      `json:"card"`
	ReferenceID int64           `json:"reference_id"`
	OrderID     string          `json:"order_id,omitempty"`
	Interval    int             `json:"interval"`
	Price       decimal.Decimal `json:"price"`
	Currency    string          `json:"currency,omitempty"`
	LastManual  time.Time       `json:"last_manual"`
	NextAuto    time.Time       `json:"next_auto"`
	EndsAt      time.Time       `json:"ends_at"`
	Cancelled   bool            `json:"cancelled,omitempty"`
}

type savedDelivery struct {
	Seq         int               `json:"seq"`
	Transaction int64             `json:"transaction"`
	URL         string            `json:"url"`
	Status      callback.Status   `json:"status"`
	Reason      string            `json:"reason,omitempty"`
	History     []DeliveryAttempt `json:"history,omitempty"`
	Attempts    int32             `json:"attempts"`
	Automatic   int32             `json:"automatic"`
	NextAt      time.Time         `json:"next_at"`
	Delivered   bool              `json:"delivered,omitempty"`
	Done        bool              `json:"done,omitempty"`
	GivenUp     bool              `json:"given_up,omitempty"` // absent from files written before it: false
}

func saveCard(cd *cardData) *savedCard {
	if cd == nil {
		return nil
	}
	return &savedCard{Number: keptNumber(cd.number), Month: cd.month, Year: cd.year, Holder: cd.holder}
}

// testCards are the card numbers whose behaviour the sandbox knows by the
// whole number; they are public, and kept as they are.
var testCards = []string{CardApproved, Card3DSecure, CardDeclined, CardProcessing, CardBlocked}

// keptNumber is what the state file keeps of a card number: a test card's
// number, or a stand-in that keeps what the sandbox reads of any other
// card (its length, its first six digits for the scheme, its last four for
// the mask) with the digits between them zeros, so that no other card
// number reaches the disk. A stand-in that would read as a test card gets
// a 9 after its first six digits instead.
func keptNumber(number string) string {
	if len(number) < 11 || slices.Contains(testCards, number) {
		return number
	}
	b := []byte(number)
	for i := 6; i < len(b)-4; i++ {
		b[i] = '0'
	}
	if slices.Contains(testCards, string(b)) {
		b[6] = '9'
	}
	return string(b)
}

// valid reports whether c is a card with a number: digits, as every card
// the sandbox takes has, so that whatever reads one finds its first.
func (c *savedCard) valid() bool { return c != nil && ascii.Digits(c.Number) }

func (c *savedCard) card() *cardData {
	if c == nil {
		return nil
	}
	return &cardData{number: c.Number, month: c.Month, year: c.Year, holder: c.Holder}
}

func saveTxn(t *txn) savedTxn {
	out := savedTxn{
		ID: t.id, Project: t.project.Key, OrderID: t.orderID, ReferenceID: t.referenceID, Price: t.price,
		Currency: t.currency, Type: t.typ, Method: t.method, Status: t.status, CreatedAt: t.createdAt,
		UpdatedAt: t.updatedAt, Card: saveCard(t.card), Attrs: t.attrs, LastKept: t.lastKept,
	}
	if t.user != nil {
		out.User = t.user.id
	}
	if x := t.x; x != nil {
		out.Extra = &savedExtra{
			Reason: x.reason, Earlier: x.earlier, Reversed: x.reversed, ReversedTo: x.reversedTo, MD: x.md,
			Remember: x.remember, Recurring: x.recurring, Subscribed: x.subscribed, RecurInterval: x.recurInterval,
			RecurTrial: x.recurTrial, PermanentToken: x.permanentToken, ThreeDSOutcome: x.threeDSOutcome,
			SuccessURL: x.successURL, FailURL: x.failURL,
			ChargebackID: x.chargebackID, RetrievalID: x.retrievalID, PenaltyID: x.penaltyID,
		}
	}
	return out
}

func (e *savedExtra) extra() *txnExtra {
	if e == nil {
		return nil
	}
	return &txnExtra{
		reason: e.Reason, earlier: e.Earlier, reversed: e.Reversed, reversedTo: e.ReversedTo, md: e.MD,
		remember: e.Remember, recurring: e.Recurring, subscribed: e.Subscribed, recurInterval: e.RecurInterval,
		recurTrial: e.RecurTrial, permanentToken: e.PermanentToken, threeDSOutcome: e.ThreeDSOutcome,
		successURL: e.SuccessURL, failURL: e.FailURL,
		chargebackID: e.ChargebackID, retrievalID: e.RetrievalID, penaltyID: e.PenaltyID,
	}
}

func saveDelivery(d *delivery) savedDelivery {
	history := make([]DeliveryAttempt, len(d.history))
	for i, a := range d.history {
		history[i] = a.public()
	}
	return savedDelivery{
		Seq: d.seq, Transaction: d.txn.id, URL: d.url, Status: *d.status, Reason: d.reason, History: history,
		Attempts: d.attempts, Automatic: d.automatic, NextAt: d.nextAt(), Delivered: d.delivered, Done: d.done,
		GivenUp: d.givenUp,
	}
}

// public is the attempt as Delivery.History shows it.
func (a attempt) public() DeliveryAttempt {
	return DeliveryAttempt{At: a.at(), Status: int(a.status), Error: a.err, Manual: a.manual}
}
