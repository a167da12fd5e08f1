package paygate

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go/internal/jsonscalar"
	"github.com/paygate/paygate-go/internal/wire"
)

// ID is a transaction id: a 64-bit integer (19 digits, beyond what a
// float64 holds exactly). It decodes from a JSON number or string, exactly,
// and encodes as a JSON string so that JavaScript consumers keep it exact.
// The zero ID means absent. It is the type of callback.Callback's ids too.
type ID = wire.ID

// ParseID parses a decimal transaction id.
func ParseID(s string) (ID, error) { return wire.ParseID(s) }

// UserID is the gateway's internal user id. The gateway documents it as a
// string and sends integers in its examples; both decode. It is the type
// of callback.Callback's User too.
type UserID = wire.UserID

// Time is a timestamp sent by the gateway. It decodes RFC 3339 and the ISO
// 8601 forms PHP and Java servers write: offsets as +03:00, +0300, +03 or
// Z, with or without a fraction, "2006-01-02 15:04:05", the compact
// "20150522T11:21:37+03:00" and "20150522T112137+0300", "2006-01-02", and
// Unix seconds as a JSON number or a string of digits. null and "" decode
// as the zero time; layouts without a zone are read as UTC.
type Time struct{ time.Time }

// UnmarshalJSON accepts the layouts described on Time.
func (t *Time) UnmarshalJSON(b []byte) error {
	v, err := jsonscalar.Time(b)
	t.Time = v
	return err
}

// MarshalJSON writes RFC 3339, or null for the zero time.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return t.Time.MarshalJSON()
}

// Status is the status of a transaction.
type Status string

// Transaction statuses.
const (
	StatusOpened          Status = "opened"
	StatusProcessing      Status = "processing"
	StatusWaitingApproval Status = "waiting_approval"
	StatusAuthenticating  Status = "authenticating" // waiting for 3-D Secure
	StatusAuthorized      Status = "authorized"
	StatusCompleted       Status = "completed"
	StatusFailed          Status = "failed"
	StatusCancelled       Status = "cancelled"
	StatusAbandoned       Status = "abandoned"
	StatusRefunded        Status = "refunded" // reversed or refunded
	StatusChargedBack     Status = "charged_back"
	StatusRetrieved       Status = "retrieved" // chargeback dispute won
	StatusReturned        Status = "returned"  // rolling reserve returned
	StatusVerified        Status = "verified"  // 1 EUR frozen and released
	// StatusReversed is used by the basic form for a payment reversed
	// before payout.
	StatusReversed Status = "reversed"
)

// Known reports whether s is one of the statuses the spec lists. Unknown
// statuses are kept as they came rather than rejected.
func (s Status) Known() bool {
	switch s {
	case StatusOpened, StatusProcessing, StatusWaitingApproval, StatusAuthenticating, StatusAuthorized,
		StatusCompleted, StatusFailed, StatusCancelled, StatusAbandoned, StatusRefunded, StatusChargedBack,
		StatusRetrieved, StatusReturned, StatusVerified, StatusReversed:
		return true
	}
	return false
}

// failed reports whether s ends a transaction without its effect.
func (s Status) failed() bool {
	return s == StatusFailed || s == StatusCancelled || s == StatusAbandoned
}

// Final reports whether no further change of the transaction's own status
// is expected: it is neither opened, processing, waiting for approval nor
// authenticating.
func (s Status) Final() bool {
	switch s {
	case StatusOpened, StatusProcessing, StatusWaitingApproval, StatusAuthenticating, StatusAuthorized:
		return false
	}
	return s != ""
}

// TransactionType is the type of a transaction.
type TransactionType string

// Transaction types.
const (
	TypeDeposit        TransactionType = "deposit" // funds charged from the merchant (basic form: from a user)
	TypePayment        TransactionType = "payment" // funds charged from a user
	TypeVerification   TransactionType = "verification"
	TypeChargeback     TransactionType = "chargeback"
	TypeRefund         TransactionType = "refund"
	TypeRetrieval      TransactionType = "retrieval"
	TypeExchange       TransactionType = "exchange"
	TypePayout         TransactionType = "payout"
	TypeSettlement     TransactionType = "settlement"
	TypePenalty        TransactionType = "penalty"
	TypeRollingReserve TransactionType = "rolling_reserve"
)

// Card is a card as the gateway describes it in responses; it never holds
// the full number.
type Card struct {
	LastFour string `json:"lastFour"`
	// Mask is the number with all but the last four digits replaced by
	// asterisks.
	Mask string `json:"mask"`
	// Type is the card type.
	//
	// Deprecated: the gateway deprecates it in favour of Scheme.
	Type            string `json:"type"`
	Scheme          string `json:"scheme"`
	ExpirationMonth int    `json:"expirationMonth"`
	ExpirationYear  int    `json:"expirationYear"`
	// ExpiresAt, Holder, BankName and Country come in charge and reverse
	// responses only.
	ExpiresAt Time   `json:"expiresAt"`
	Holder    string `json:"holder"`
	BankName  string `json:"bankName"`
	Country   string `json:"country"`
}

// UnmarshalJSON reads a card as the client does: expiry numbers as numbers
// or numeric strings, lastFour as a string or a number, names in either
// case.
func (c *Card) UnmarshalJSON(b []byte) error { return unmarshalAnswer(b, c) }

// ACS is where a payment that needs 3-D Secure sends the payer: Parameters
// are POSTed unchanged to URL from the payer's browser.
type ACS struct {
	URL        string        `json:"url"`
	Parameters ACSParameters `json:"parameters"`
}

// ACSParameters are the values to POST to the access control server.
type ACSParameters struct {
	PaReq   string `json:"PaReq"`
	MD      string `json:"MD"`
	TermURL string `json:"TermUrl"`
}

// Recurring describes a user's subscription to recurring payments.
type Recurring struct {
	// Frequency is the least number of days between recurring payments.
	Frequency int `json:"frequency"`
	// EndsAt is the last date on which recurring payments are available.
	EndsAt Time `json:"endsAt"`
}

// UnmarshalJSON reads a subscription as the client does: frequency as a
// number or a numeric string.
func (r *Recurring) UnmarshalJSON(b []byte) error { return unmarshalAnswer(b, r) }

// User is a user of the merchant as the gateway knows it.
type User struct {
	// ID is the gateway's internal user id.
	ID UserID `json:"id"`
	// Identifier is the merchant's own, unchangeable user id.
	Identifier  string `json:"identifier"`
	DisplayName string `json:"displayName"`
	Email       string `json:"email"`
	Phone       string `json:"phone"`
	IP          string `json:"ip"`
	Locale      string `json:"locale"`
}

// UnmarshalJSON reads a user as the client does: identifier and phone as
// strings or numbers.
func (u *User) UnmarshalJSON(b []byte) error { return unmarshalAnswer(b, u) }

// Payment is a transaction as the charge, 3-D Secure authentication, manual
// recurring and reverse responses carry it. The basic form fills only
// Success, ID, Card, ACS, PermanentToken and Recurring (a basic-form
// reversal only Success).
//
// The fields that decide what happened are essential: success and id must
// be present (a reversal needs only success), and status and acs (for a
// reversal: id, status and type) must be readable when present, or the
// call fails. Any other field that cannot be read is left zero and listed
// in Warnings.
type Payment struct {
	// Success tells whether the payment process can continue.
	Success     bool            `json:"success"`
	ID          ID              `json:"id"`
	OrderID     string          `json:"orderId"`
	ReferenceID ID              `json:"referenceId"`
	Price       decimal.Decimal `json:"price"`
	// Fee is the merchant's fee.
	Fee       decimal.Decimal `json:"fee"`
	Currency  string          `json:"currency"`
	Type      TransactionType `json:"type"`
	Status    Status          `json:"status"`
	CreatedAt Time            `json:"createdAt"`
	UpdatedAt Time            `json:"updatedAt"`
	User      *User           `json:"user"`
	Card      *Card           `json:"card"`
	// ACS is present when the card is enrolled in 3-D Secure and the payer
	// must be sent to the access control server.
	ACS *ACS `json:"acs"`
	// PermanentToken is the remembered card's token, when the charge asked
	// to remember it.
	PermanentToken string `json:"permanentToken"`
	// Recurring is present when the user is subscribed to recurring
	// payments.
	Recurring *Recurring `json:"recurring"`
	// Warnings lists the informational fields of the answer that could not
	// be read and were left zero (see DecodeWarning).
	Warnings []DecodeWarning `json:"-"`
}

// NeedsAuthentication reports whether the payer must pass 3-D Secure before
// the payment can complete. The extended form says so with status
// authenticating; the basic form with success and an acs object.
func (p *Payment) NeedsAuthentication() bool {
	if p.ACS == nil || p.ACS.URL == "" {
		return false
	}
	if p.Status != "" {
		return p.Status == StatusAuthenticating
	}
	return p.Success
}

// Completed reports whether the payment completed: the merchant may provide
// the service. A basic-form response carries no status, so it is never
// reported completed here; check the status or wait for the callback.
func (p *Payment) Completed() bool { return p.Status == StatusCompleted }

// Failed reports whether the payment failed, or (basic form) was not
// successful and needs no authentication.
func (p *Payment) Failed() bool {
	if p.Status != "" {
		return p.Status.failed()
	}
	return !p.Success
}

// Pending reports whether the outcome is not known yet: the payment is
// opened, processing, waiting for approval or authorized; recheck the status
// or wait for the callback.
func (p *Payment) Pending() bool {
	switch p.Status {
	case StatusOpened, StatusProcessing, StatusWaitingApproval, StatusAuthorized:
		return true
	}
	return false
}

// TransactionStatus is a transaction as the status endpoint reports it.
//
// The spec's table is in snake case; the gateway has been seen answering
// in camel case (orderId, originalStatus, createdAt, updatedAt, with
// referenceId, method and user), and both spellings decode. The id and
// status decide what happened: they must be present, or the call fails.
// Every other field is informational: when unreadable it is left zero and
// listed in Warnings.
type TransactionStatus struct {
	ID      ID     `json:"id"`
	OrderID string `json:"order_id"`
	// ReferenceID, Method and User come only in the camel case answer.
	ReferenceID ID     `json:"reference_id"`
	Method      string `json:"method"`
	User        *User  `json:"user"`
	// Price has two decimals, Fee four.
	Price    decimal.Decimal `json:"price"`
	Fee      decimal.Decimal `json:"fee"`
	Currency string          `json:"currency"`
	Type     TransactionType `json:"type"`
	// Status includes the later effects of other transactions (a completed
	// payment later refunded reads refunded).
	Status Status `json:"status"`
	// OriginalStatus is the last status applied to this transaction itself.
	OriginalStatus Status `json:"original_status"`
	CreatedAt      Time   `json:"created_at"`
	// UpdatedAt does not include the later effects of other transactions.
	UpdatedAt Time `json:"updated_at"`
	// Warnings lists the informational fields of the answer that could not
	// be read and were left zero (see DecodeWarning).
	Warnings []DecodeWarning `json:"-"`
}

// Transaction is a transaction as the by-id and list endpoints report it.
//
// The id, status and type decide what happened: id and status must be
// present and type readable, or the call fails. Every other field is
// informational: when unreadable it is left zero and listed in Warnings
// (of the TransactionPage, in a listing). Fields decode in snake case too
// (order_id, original_status, ...).
type Transaction struct {
	ID          ID              `json:"id"`
	OrderID     string          `json:"orderId"`
	ReferenceID ID              `json:"referenceId"`
	Price       decimal.Decimal `json:"price"`
	Fee         decimal.Decimal `json:"fee"`
	Currency    string          `json:"currency"`
	Type        TransactionType `json:"type"`
	// Method is the payment method, for example card or paypal.
	Method         string `json:"method"`
	Status         Status `json:"status"`
	OriginalStatus Status `json:"originalStatus"`
	CreatedAt      Time   `json:"createdAt"`
	UpdatedAt      Time   `json:"updatedAt"`
	Reason         string `json:"reason"`
	User           *User  `json:"user"`
	// Card is the user's card.
	Card *Card `json:"card"`
	// Warnings lists the informational fields of a by-id answer that could
	// not be read and were left zero (see DecodeWarning).
	Warnings []DecodeWarning `json:"-"`
}
