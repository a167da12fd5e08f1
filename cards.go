package paygate

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
)

// CardsService is the cards resource group of the API: card tokens,
// charges, 3-D Secure authentication and manual recurring charges.
type CardsService service

// Token is a temporary card token: valid for 10 minutes and for one charge
// only (a second use fails with ErrCardTokenUsed, a late one with
// ErrCardTokenExpired).
type Token struct {
	// ID is passed as ChargeParams.CardToken.
	ID        string `json:"id"`
	ExpiresAt Time   `json:"expiresAt"`
	// Card describes the tokenized card (last four digits, mask, scheme,
	// expiry).
	Card Card `json:"card"`
	// Warnings lists the informational fields of the answer that could not
	// be read and were left zero; only the id is essential.
	Warnings []DecodeWarning `json:"-"`
}

// Tokenize exchanges card data for a temporary token (GET card/getToken).
//
// The gateway designed this call for the payer's browser (JSONP or AJAX):
// it is unsigned, and the card number, expiry and security code travel in
// the query string of a GET. A query string is what web servers, proxies
// and load balancers write to their access logs, and what a browser puts in
// a Referer header. So tokenize in the browser wherever you can, straight
// to the gateway, and send your server only the token: the card never
// reaches your systems and their logs. When a server must tokenize (tests,
// a card-present terminal), the SDK keeps the query out of its own errors
// and logs, refuses plain http:// to any host that is not loopback (see
// WithBaseURL and WithInsecureHTTP), and never follows a redirect, which
// would repeat the query to another host and in a Referer; what the
// network between you and the gateway logs is beyond its reach.
//
// The JSONP callback parameter is not supported: the answer is always plain
// JSON.
func (s *CardsService) Tokenize(ctx context.Context, p *TokenizeParams, opts ...CallOption) (*Token, error) {
	return call[Token](ctx, s.client, epTokenize, p, opts)
}

// UserDetails describe the payer of a charge in place of an internal user
// id (extended form only). The gateway resolves them as user/resolve does.
// They are sent as a User object in bracket notation, under the field names
// of the spec's User object table: user[identifier], user[displayName],
// user[email], user[phone], user[locale], user[ip].
type UserDetails struct {
	// Identifier is the merchant's own user id: unique and never changed.
	// Required.
	Identifier  string `url:"identifier"`
	DisplayName string `url:"displayName,omitempty"`
	Email       string `url:"email,omitempty"`
	// Phone is in international format: digits only, without a leading +
	// or separators.
	Phone string `url:"phone,omitempty"`
	// Locale is a two-letter ISO 639-1 code such as "en".
	Locale string `url:"locale,omitempty"`
	// IP is the payer's IP address.
	IP string `url:"ip,omitempty"`
}

// ChargeParams describe a card charge (POST card/process).
//
// The payer is either User (an internal id from UsersService.Resolve) or
// UserDetails, and the card is either CardToken or Card: exactly one of
// each. UserDetails and Card exist in the extended form only. Printing,
// logging or JSON-encoding them never shows the card token or more of the
// card than CardDetails shows.
type ChargeParams struct {
	// User is the payer's internal user id.
	User UserID `url:"user,omitempty"`
	// UserDetails describe the payer instead of User (extended form).
	UserDetails *UserDetails `url:"user,omitempty"`
	// CardToken is a temporary token from Tokenize or a permanent token
	// from an earlier charge with Remember.
	CardToken CardToken `url:"card_token,omitempty"`
	// Card is the card itself instead of a token (extended form).
	Card *CardDetails `url:"card,omitempty"`

	// Price is the amount to charge, greater than zero. Required.
	Price decimal.Decimal `url:"price"`
	// Currency is the ISO 4217 code of Price, such as "EUR". Required.
	Currency string `url:"currency"`
	// Description is shown to the payer. Required.
	Description string `url:"description"`
	// OrderID is the merchant's order id, at most 64 characters, returned in
	// callbacks. Setting it lets an unknown outcome be looked up.
	OrderID string `url:"order_id,omitempty"`

	// ThreeDS asks for 3-D Secure; it has no effect when the project
	// enforces 3-D Secure anyway. It requires ACSReturnURL.
	ThreeDS bool `url:"3ds,omitempty"`
	// ACSReturnURL is the absolute http(s) address the access control
	// server sends the payer back to, with PaRes and MD (see
	// ReadACSReturn).
	ACSReturnURL string `url:"acs_return_url,omitempty"`
	// Remember asks for a permanent token for the card, returned in
	// Payment.PermanentToken.
	Remember bool `url:"remember,omitempty"`
	// VerifyCard charges 1 EUR instead of Price, holds and releases it
	// immediately, to check that the card is valid. Price may then be 0.
	VerifyCard bool `url:"verify_card,omitempty"`

	// Recurring subscribes the payer to recurring payments; it needs
	// RecurringInterval.
	Recurring bool `url:"recurring,omitempty"`
	// RecurringInterval is the number of days between recurring payments;
	// Days(0) leaves only manual recurring (ChargeRecurring).
	RecurringInterval *int `url:"recurring_interval,omitempty"`
	// RecurringTrial is the number of trial days before the first recurring
	// payment.
	RecurringTrial int `url:"recurring_trial,omitempty"`

	// Attributes are custom attributes, sent as attr_<name> and returned in
	// callbacks. Names must be non-empty and free of brackets.
	Attributes map[string]string `url:"attr_,prefix"`
}

// Charge charges a card (POST card/process).
//
// When the card is enrolled in 3-D Secure the payment's NeedsAuthentication
// reports true: send the payer to the access control server (see
// WriteACSRedirect) and complete the payment with Authenticate. Otherwise
// check Completed, Pending and Failed, or wait for the callback. A payment
// the gateway declined comes back as a Payment that reports Failed, not as
// an error.
func (s *CardsService) Charge(ctx context.Context, p *ChargeParams, opts ...CallOption) (*Payment, error) {
	return call[Payment](ctx, s.client, epCharge, p, opts)
}

// AuthenticateParams carry what the access control server sent back to the
// merchant's ACS return URL (POST card/authenticate). ReadACSReturn reads
// them from that request.
//
// Set PaymentID (or at least OrderID) to bind the return to the order whose
// return URL received it: the ACS return arrives from the payer's browser,
// and nothing in PaRes or MD tells the merchant which payment they belong
// to. See Authenticate. Printing, logging or JSON-encoding them never shows
// PaRes or MD.
type AuthenticateParams struct {
	// PaRes is the payer authentication response. Required.
	PaRes ACSData `url:"PaRes"`
	// MD is the merchant data. Required.
	MD ACSData `url:"MD"`
	// PaymentID is the payment this return is expected for: the id Charge
	// returned for the order. Not sent.
	PaymentID ID `url:"-"`
	// OrderID is the order this return is expected for. With PaymentID the
	// payment must belong to it; alone, the order's payment is looked up by
	// it. Not sent.
	OrderID string `url:"-"`
}

// Authenticate completes a payment after 3-D Secure (POST
// card/authenticate). Check the payment's status afterwards, as after
// Charge.
//
// Bind the return to its order with PaymentID (or OrderID): the PaRes and
// MD of one order can be posted to another order's return URL, and without
// a binding Authenticate completes whichever payment they belong to. With a
// binding, Authenticate first looks the expected payment up (GET
// transaction/status): a payment of another order is refused before
// anything is sent, and a payment that is no longer waiting for 3-D Secure
// (a repeated return: the payer went back and resubmitted) is reported with
// its current status instead of failing with ErrTransactionCompleted. After
// the call, an answer for another payment is refused, and so is the
// gateway's 40501 while the expected payment still waits (the return was
// another payment's, already completed). These refusals are an
// *ACSReturnMismatchError (errors.Is ErrACSReturnMismatch): do not change
// the order. An unknown outcome of a bound Authenticate names its payment
// and order, so that [TransactionsService.Settle] can settle it; PaRes and
// MD name neither, so an unbound one is settled by the payment's id by
// hand (TransactionSettleParams{Kind: KindAuthenticate, TransactionID: id}).
func (s *CardsService) Authenticate(ctx context.Context, p *AuthenticateParams, opts ...CallOption) (*Payment, error) {
	if p != nil && (p.PaymentID != 0 || p.OrderID != "") {
		return s.authenticateBound(ctx, p, opts)
	}
	return call[Payment](ctx, s.client, epAuthenticate, p, opts)
}

// ChargeRecurringParams describe a manual recurring charge (POST
// card/processRecurring).
type ChargeRecurringParams struct {
	// User is the internal id of a user subscribed to recurring payments.
	// Required.
	User UserID `url:"user"`
	// Price is the amount to charge, greater than zero. Required.
	Price decimal.Decimal `url:"price"`
	// Currency is the ISO 4217 code of Price. Required.
	Currency string `url:"currency"`
	// OrderID is the merchant's order id, at most 64 characters.
	OrderID     string `url:"order_id,omitempty"`
	Description string `url:"description,omitempty"`
}

// ChargeRecurring charges a user subscribed to recurring payments outside
// the subscription's interval (POST card/processRecurring). Charging sooner
// than the subscription's frequency allows fails with
// ErrRecurringTooFrequent; a user without recurring gives
// ErrRecurringDisabled or ErrRecurringExpired.
func (s *CardsService) ChargeRecurring(ctx context.Context, p *ChargeRecurringParams, opts ...CallOption) (*Payment, error) {
	return call[Payment](ctx, s.client, epChargeRecurring, p, opts)
}

func (p *Payment) setWarnings(w []DecodeWarning) { p.Warnings = w }

func (t *Token) verifyAnswer() error { return verifyIDNotEmpty("token", t.ID) }

func (t *Token) setWarnings(w []DecodeWarning) { t.Warnings = w }

func (p *TokenizeParams) validate(Form) error {
	return checkCardData("", p.Number, p.Expiry, p.SecurityCode)
}

func (p *ChargeParams) validate(f Form) error {
	return firstError(
		p.checkPayer(f),
		p.checkCard(f),
		p.checkPrice(),
		checkCurrency("currency", p.Currency),
		checkRequired("description", p.Description),
		checkMaxLen("order_id", p.OrderID, MaxOrderIDLength),
		p.checkThreeDS(),
		p.checkRecurring(),
		checkAttributes(p.Attributes),
	)
}

// chargePayer and chargeCard are the two inputs of card/process that the
// basic form takes only by reference and the extended form also as an
// object.
var (
	chargePayer = referenceOrObject{
		object: "user", reference: "user",
		inBasic: "a user object is not accepted in the basic form; resolve the user and pass the internal id",
		missing: "is required: an internal user id or (extended form) user details",
		both:    "give either an internal user id or user details, not both",
	}
	chargeCard = referenceOrObject{
		object: "card", reference: "card_token",
		inBasic: "a card object is not accepted in the basic form; tokenize the card and pass card_token",
		missing: "is required: a card token or (extended form) card details",
		both:    "give either card_token or card, not both",
	}
)

func (p *ChargeParams) checkPayer(f Form) error {
	if err := chargePayer.check(f, p.User != "", p.UserDetails != nil); err != nil || p.UserDetails == nil {
		return err
	}
	u := p.UserDetails
	return checkUser(userFields{identifier: "user[identifier]", phone: "user[phone]", locale: "user[locale]"}, u.Identifier, u.Phone, u.Locale)
}

func (p *ChargeParams) checkCard(f Form) error {
	if err := chargeCard.check(f, !p.CardToken.IsZero(), p.Card != nil); err != nil || p.Card == nil {
		return err
	}
	c := p.Card
	return firstError(
		checkCardData("card", c.Number, c.Expiry, c.SecurityCode),
		checkMaxLen("card[holder]", c.Holder, MaxCardholderLength),
	)
}

// checkThreeDS requires a return address when 3-D Secure is asked for:
// without one the access control server cannot send the payer back, and
// the payment stays authenticating.
func (p *ChargeParams) checkThreeDS() error {
	if p.ThreeDS && p.ACSReturnURL == "" {
		return &ValidationError{Field: "acs_return_url", Reason: "is required with 3ds: the access control server sends the payer back to it"}
	}
	return nil
}

// checkPrice requires a price; with verify_card it may be 0, because the
// gateway then charges its 1 EUR hold instead of the price.
func (p *ChargeParams) checkPrice() error {
	if p.VerifyCard && p.Price.IsZero() {
		return nil
	}
	return checkAmount("price", p.Price)
}

func (p *ChargeParams) checkRecurring() error {
	if p.Recurring && p.RecurringInterval == nil {
		return &ValidationError{Field: "recurring_interval", Reason: "is required with recurring; Days(0) leaves only manual recurring"}
	}
	return firstError(checkDays("recurring_interval", p.RecurringInterval), checkDays("recurring_trial", &p.RecurringTrial))
}

func (p *AuthenticateParams) validate(Form) error {
	return firstError(
		checkRequired("PaRes", p.PaRes.get()),
		checkRequired("MD", p.MD.get()),
		checkMaxLen("order_id", p.OrderID, MaxOrderIDLength),
	)
}

func (p *ChargeRecurringParams) validate(Form) error {
	return firstError(
		checkRequired("user", string(p.User)),
		checkAmount("price", p.Price),
		checkCurrency("currency", p.Currency),
		checkMaxLen("order_id", p.OrderID, MaxOrderIDLength),
	)
}

// checkAttributes requires attribute names that make a flat attr_<name>
// key: non-empty and free of brackets, which would nest the key.
func checkAttributes(attrs map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		if name == "" || strings.ContainsAny(name, "[]") {
			return &ValidationError{Field: "attr_" + name, Reason: "attribute names must be non-empty and free of brackets"}
		}
	}
	return nil
}
