package paygate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// TransactionsService is the transactions resource group of the API:
// reversals, alternative-method payments, status, look-ups and listings.
type TransactionsService service

// StatusParams selects the transaction whose status to read: by ID or by
// OrderID, exactly one of them.
type StatusParams struct {
	ID      ID     `url:"id,omitempty"`
	OrderID string `url:"order_id,omitempty"`
}

func (p *StatusParams) validate(Form) error {
	return checkIDOrOrderID(p.ID, p.OrderID)
}

// Status reads a transaction's status (GET transaction/status). Its Status
// includes the later effects of other transactions, such as a refund.
func (s *TransactionsService) Status(ctx context.Context, p *StatusParams, opts ...CallOption) (*TransactionStatus, error) {
	if p == nil {
		return nil, &ValidationError{Field: "id", Reason: "either id or order_id is required"}
	}
	out := new(TransactionStatus)
	if err := s.client.do(ctx, endpoint{method: http.MethodGet, path: "transaction/status"}, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// ReverseParams selects the payment to reverse, by ID or by OrderID (exactly
// one of them), and how much of it.
type ReverseParams struct {
	ID      ID     `url:"id,omitempty"`
	OrderID string `url:"order_id,omitempty"`
	// Amount is the amount to reverse; required, greater than zero.
	Amount decimal.Decimal `url:"amount"`
	// Comment is the reason for the reversal.
	Comment string `url:"comment,omitempty"`
}

func (p *ReverseParams) validate(Form) error {
	return firstError(
		checkIDOrOrderID(p.ID, p.OrderID),
		checkAmount("amount", p.Amount),
	)
}

// Reverse reverses a payment (POST transaction/reverse). In the extended
// form it reverses a completed payment and returns the transaction's fields;
// in the basic form it reverses before payout, or creates a refund
// transaction when the payout was already made, and the returned Payment
// carries only Success.
//
// The gateway may answer success false without an error object: it received
// the reversal and refused it. Reverse returns that as a [*DeclinedError]
// (errors.Is(err, ErrDeclined)), never as a Payment to inspect, so a
// reversal either succeeded or returned an error. A refusal the gateway
// explains with a code comes back as an [*Error], for example
// [ErrNotReversible] (40504) or [ErrTransactionNotFound] (40403). When the
// outcome is unknown (errors.Is(err, ErrOutcomeUnknown)), read the
// payment's status (by the error's TransactionID, or by order id) before
// reversing again: refunded, or a refund transaction in the order's listing,
// means the reversal went through.
func (s *TransactionsService) Reverse(ctx context.Context, p *ReverseParams, opts ...CallOption) (*Payment, error) {
	if p == nil {
		return nil, &ValidationError{Field: "id", Reason: "either id or order_id is required"}
	}
	const path = "transaction/reverse"
	out := paymentResponse{optionalID: true} // a basic-form reversal answers only success
	if err := s.client.do(ctx, endpoint{method: http.MethodPost, path: path}, p, &out, opts); err != nil {
		return nil, err
	}
	if !out.Payment.Success {
		return nil, &DeclinedError{Method: http.MethodPost, Path: path, ID: out.ID, Status: string(out.Status)}
	}
	return &out.Payment, nil
}

// PaymentMethod is an alternative (non-card) payment method of
// transaction/create.
type PaymentMethod string

// The alternative payment methods the gateway accepts.
const (
	MethodPayPal              PaymentMethod = "paypal"
	MethodQiwi                PaymentMethod = "qiwi" // needs the payer's phone
	MethodYandexMoneyWallet   PaymentMethod = "yandex_money_wallet"
	MethodYandexMoneyWalletV2 PaymentMethod = "yandex_money_wallet_v2"
	MethodWebMoneyWME         PaymentMethod = "web_money_wme"
	MethodWebMoneyWMZ         PaymentMethod = "web_money_wmz"
	MethodWebMoneyWMR         PaymentMethod = "web_money_wmr"
)

// Known reports whether m is one of the seven methods the gateway accepts.
func (m PaymentMethod) Known() bool {
	switch m {
	case MethodPayPal, MethodQiwi, MethodYandexMoneyWallet, MethodYandexMoneyWalletV2,
		MethodWebMoneyWME, MethodWebMoneyWMZ, MethodWebMoneyWMR:
		return true
	}
	return false
}

// AlternativePaymentParams starts a payment by an alternative method.
type AlternativePaymentParams struct {
	// User is the merchant's own unique and unchangeable user identifier
	// (the external id, not the gateway's internal one); required.
	User        string `url:"user"`
	DisplayName string `url:"display_name,omitempty"`
	// PaymentMethod is one of the Method constants; required.
	PaymentMethod PaymentMethod `url:"payment_method"`
	// Price is required and greater than zero.
	Price decimal.Decimal `url:"price"`
	// Currency is an ISO 4217 code; required.
	Currency string `url:"currency"`
	Email    string `url:"email,omitempty"`
	IP       string `url:"ip,omitempty"`
	// UserAgent is the payer's user agent, at most 255 characters.
	UserAgent string `url:"ua,omitempty"`
	// Phone is in international format, digits only, without + or
	// separators; required for MethodQiwi.
	Phone string `url:"phone,omitempty"`
	// Locale is an ISO 639-1 language code.
	Locale string `url:"locale,omitempty"`
	// OrderID is returned in callbacks; at most 64 characters.
	OrderID string `url:"order_id,omitempty"`
	// Description is required.
	Description string `url:"description"`
	// SuccessURL and FailURL are where the payer is sent back to; required.
	SuccessURL string `url:"success_url"`
	FailURL    string `url:"fail_url"`
}

func (p *AlternativePaymentParams) validate(Form) error {
	err := firstError(
		checkRequired("user", p.User),
		checkRequired("payment_method", string(p.PaymentMethod)),
		checkAmount("price", p.Price),
		checkCurrency("currency", p.Currency),
		checkRequired("description", p.Description),
		checkRequired("success_url", p.SuccessURL),
		checkURL("success_url", p.SuccessURL),
		checkRequired("fail_url", p.FailURL),
		checkURL("fail_url", p.FailURL),
		checkMaxLen("ua", p.UserAgent, MaxUserAgentLength),
		checkMaxLen("order_id", p.OrderID, MaxOrderIDLength),
		checkUser(userFields{identifier: "user", email: "email", phone: "phone", locale: "locale", ip: "ip"},
			p.User, p.Email, p.Phone, p.Locale, p.IP),
	)
	switch {
	case err != nil:
		return err
	case !p.PaymentMethod.Known():
		return &ValidationError{Field: "payment_method", Reason: "is not one of the methods the gateway accepts"}
	case p.PaymentMethod == MethodQiwi && p.Phone == "":
		return &ValidationError{Field: "phone", Reason: "is required for payment method qiwi"}
	}
	return nil
}

// AlternativePayment is a payment started by an alternative method. Send the
// payer to RedirectURL to confirm it; the outcome arrives by callback.
type AlternativePayment struct {
	// ID is the transaction id. The gateway documents it as a string; it
	// decodes from a string or a number, exactly.
	ID ID `json:"id"`
	// Amount is decoded exactly from the JSON number the gateway sends.
	Amount   decimal.Decimal `json:"amount"`
	Currency string          `json:"currency"`
	// Status is the transaction's status, for example opened.
	Status Status `json:"status"`
	// RedirectURL is {checkout_url}/confirm/{id}/, built from the client's
	// checkout URL (see WithCheckoutURL).
	RedirectURL string `json:"-"`
}

// Create starts a payment by an alternative method (POST transaction/create;
// extended form only). Redirect the payer to the result's RedirectURL.
func (s *TransactionsService) Create(ctx context.Context, p *AlternativePaymentParams, opts ...CallOption) (*AlternativePayment, error) {
	if p == nil {
		return nil, &ValidationError{Field: "user", Reason: "is required"}
	}
	out := new(AlternativePayment)
	ep := endpoint{method: http.MethodPost, path: "transaction/create", extendedOnly: true}
	if err := s.client.do(ctx, ep, p, out, opts); err != nil {
		return nil, err
	}
	out.RedirectURL = s.client.checkoutURL + "/confirm/" + url.PathEscape(out.ID.String()) + "/"
	return out, nil
}

// Get reads one transaction by its id (GET transactions/{id}; extended form
// only).
func (s *TransactionsService) Get(ctx context.Context, id ID, opts ...CallOption) (*Transaction, error) {
	if id <= 0 {
		return nil, &ValidationError{Field: "id", Reason: "a positive transaction id is required"}
	}
	out := new(Transaction)
	ep := endpoint{method: http.MethodGet, path: "transactions/" + id.String(), extendedOnly: true}
	if err := s.client.do(ctx, ep, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// TimeRange bounds a time filter of a listing; a zero From or To leaves
// that side open.
type TimeRange struct {
	From time.Time `url:"from,omitempty"`
	To   time.Time `url:"to,omitempty"`
}

// ListParams filters a listing of transactions.
//
// The spec does not state the format of the time filters; they are sent as
// RFC 3339 in UTC (for example created[from]=2026-03-01T00:00:00Z), the
// format the gateway uses for its own timestamps.
type ListParams struct {
	// OrderID is the merchant order id whose transactions to list;
	// required, at most 64 characters.
	OrderID string          `url:"orderId"`
	Status  Status          `url:"status,omitempty"`
	Type    TransactionType `url:"type,omitempty"`
	// Created and Updated are sent as created[from], created[to],
	// updated[from] and updated[to].
	Created TimeRange `url:"created"`
	Updated TimeRange `url:"updated"`
	// Page is the page number, from 1; zero leaves the gateway's default.
	Page int `url:"page,omitempty"`
	// Limit is the number of transactions per page; zero leaves the
	// gateway's default (the spec states neither default nor maximum).
	Limit int `url:"limit,omitempty"`
}

func (p *ListParams) validate(Form) error {
	err := firstError(
		checkRequired("orderId", p.OrderID),
		checkMaxLen("orderId", p.OrderID, MaxOrderIDLength),
		checkRange("created", p.Created),
		checkRange("updated", p.Updated),
	)
	switch {
	case err != nil:
		return err
	case p.Page < 0:
		return &ValidationError{Field: "page", Reason: "must not be negative"}
	case p.Limit < 0:
		return &ValidationError{Field: "limit", Reason: "must not be negative"}
	}
	return nil
}

// TransactionPage is one page of a transaction listing.
type TransactionPage struct {
	// TotalCount is the gateway's count of the available transactions.
	TotalCount   int           `json:"totalCount"`
	Transactions []Transaction `json:"transactions"`
}

// List reads one page of the transactions of an order (GET transactions;
// extended form only). To walk every page, range over
// [TransactionsService.All].
func (s *TransactionsService) List(ctx context.Context, p *ListParams, opts ...CallOption) (*TransactionPage, error) {
	if p == nil {
		return nil, &ValidationError{Field: "orderId", Reason: "is required"}
	}
	out := new(TransactionPage)
	ep := endpoint{method: http.MethodGet, path: "transactions", extendedOnly: true}
	if err := s.client.do(ctx, ep, p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// All iterates over every transaction the listing p selects, fetching pages
// lazily: page p.Page (1 when zero), then the next, until a page is empty or
// shorter than the page size (p.Limit, or the first page's length when
// p.Limit is zero), or TotalCount transactions have been seen. No page is
// fetched after the loop breaks. A failure is yielded once, with a zero
// Transaction, and ends the iteration.
//
// TotalCount is read as the number of transactions the whole listing holds
// (the spec's wording, "count of available transactions in the response",
// leaves room for doubt); a zero or absent count leaves the short or empty
// page as the only end.
func (s *TransactionsService) All(ctx context.Context, p *ListParams, opts ...CallOption) iter.Seq2[Transaction, error] {
	return func(yield func(Transaction, error) bool) {
		if p == nil {
			yield(Transaction{}, &ValidationError{Field: "orderId", Reason: "is required"})
			return
		}
		q := *p
		if q.Page == 0 {
			q.Page = 1
		}
		pageSize := q.Limit
		seen := 0
		var prevFirst ID
		for {
			page, err := s.List(ctx, &q, opts...)
			if err != nil {
				yield(Transaction{}, err)
				return
			}
			n := len(page.Transactions)
			if n > 0 && prevFirst != 0 && page.Transactions[0].ID == prevFirst {
				yield(Transaction{}, fmt.Errorf("paygate: GET transactions returned page %d equal to the page before it", q.Page))
				return
			}
			for _, t := range page.Transactions {
				if !yield(t, nil) {
					return
				}
			}
			if prevFirst == 0 {
				if pageSize == 0 {
					pageSize = n
				}
				// The pages before the first one fetched count towards
				// TotalCount too.
				seen = (q.Page - 1) * pageSize
			}
			seen += n
			if n == 0 || n < pageSize || (page.TotalCount > 0 && seen >= page.TotalCount) {
				return
			}
			if n > 0 {
				prevFirst = page.Transactions[0].ID
			}
			q.Page++
		}
	}
}

// Reconciliation is what the gateway recorded for an order, as
// [TransactionsService.Reconcile] found it.
type Reconciliation struct {
	// OrderID is the order that was looked up.
	OrderID string
	// Found reports whether the gateway has recorded anything for the order
	// so far. False is not proof that a request never arrived: one still in
	// flight may be recorded a moment later.
	Found bool
	// Transactions are the order's transactions (extended form), in the
	// gateway's order.
	Transactions []Transaction
	// Status is the order's transaction status (basic form, which has no
	// listing).
	Status *TransactionStatus
}

// Completed reports whether a transaction of the order completed: a payment
// (basic form: deposit) in status completed, or a status look-up reading
// completed.
func (r *Reconciliation) Completed() bool {
	if r.Status != nil {
		return r.Status.Status == StatusCompleted
	}
	for _, t := range r.Transactions {
		if t.Status == StatusCompleted && (t.Type == TypePayment || t.Type == TypeDeposit || t.Type == "") {
			return true
		}
	}
	return false
}

// Reconcile settles an unknown outcome: it looks the order up and returns
// what the gateway recorded for it. In the extended form it lists every
// transaction of the order (GET transactions, all pages); in the basic form,
// which has no listing, it reads the status by order id (GET
// transaction/status). Nothing recorded (an empty listing, or 40403 on the
// status look-up) is not an error: the result has Found false. That means
// "nothing recorded yet", not "never arrived": a request still being
// processed may appear later, so keep the order pending, look again after a
// while or wait for the callback, and only then decide to charge again.
//
// A worked example. A charge for order "ord-1001" times out after the
// request left:
//
//	pay, err := client.Cards.Charge(ctx, params)
//	var unknown *paygate.OutcomeUnknownError
//	if errors.As(err, &unknown) {
//		rec, rerr := client.Transactions.Reconcile(ctx, unknown.OrderID)
//		switch {
//		case rerr != nil:
//			// The gateway is still unreachable: keep the order pending and
//			// reconcile later; do not charge again.
//		case !rec.Found:
//			// Nothing recorded yet: keep the order pending and look again
//			// later (or wait for the callback) before charging again.
//		case rec.Completed():
//			// The charge went through: fulfil the order.
//		default:
//			// Recorded but not completed (processing, failed, ...): act on
//			// rec.Transactions or rec.Status, or wait for the callback.
//		}
//	}
//
// Reconcile can only find requests that carried an order id; give every
// charge, reversal and payout one. A request cut off by a timeout may still
// be in flight inside the gateway: reconcile after a pause (seconds, not
// milliseconds), and reconcile again before treating "nothing recorded" as
// final when the first look-up came right after the failure.
func (s *TransactionsService) Reconcile(ctx context.Context, orderID string, opts ...CallOption) (*Reconciliation, error) {
	if err := firstError(
		checkRequired("order_id", orderID),
		checkMaxLen("order_id", orderID, MaxOrderIDLength),
	); err != nil {
		return nil, err
	}
	rec := &Reconciliation{OrderID: orderID}
	if s.client.form == FormBasic {
		st, err := s.Status(ctx, &StatusParams{OrderID: orderID}, opts...)
		switch {
		case errors.Is(err, ErrTransactionNotFound):
			return rec, nil
		case err != nil:
			return nil, err
		}
		rec.Found, rec.Status = true, st
		return rec, nil
	}
	for t, err := range s.All(ctx, &ListParams{OrderID: orderID}, opts...) {
		switch {
		case errors.Is(err, ErrTransactionNotFound):
			// The gateway's way of saying the order has no transactions.
		case err != nil:
			return nil, err
		default:
			rec.Transactions = append(rec.Transactions, t)
		}
	}
	rec.Found = len(rec.Transactions) > 0
	return rec, nil
}

func (t *TransactionStatus) check() error {
	switch {
	case t.ID == 0:
		return missing("id")
	case t.Status == "":
		return missing("status")
	}
	return nil
}

func (a *AlternativePayment) check() error {
	switch {
	case a.ID == 0:
		return missing("id")
	case a.Status == "":
		return missing("status")
	}
	return nil
}

func (t *Transaction) check() error { return t.checkAt("") }

func (t *Transaction) checkAt(prefix string) error {
	switch {
	case t.ID == 0:
		return missing(prefix + "id")
	case t.Status == "":
		return missing(prefix + "status")
	}
	return nil
}

// UnmarshalJSON accepts totalCount as a number or a numeric string, in one
// pass over the page.
func (p *TransactionPage) UnmarshalJSON(b []byte) error {
	var wire struct {
		TotalCount   flexInt       `json:"totalCount"`
		Transactions []Transaction `json:"transactions"`
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		return err
	}
	*p = TransactionPage{TotalCount: int(wire.TotalCount), Transactions: wire.Transactions}
	return nil
}

func (p *TransactionPage) check() error {
	if p.Transactions == nil {
		// Read as an empty page, a broken answer would tell Reconcile that
		// nothing was recorded, and the merchant to charge again.
		return missing("transactions")
	}
	for i := range p.Transactions {
		if err := p.Transactions[i].checkAt("transactions[" + strconv.Itoa(i) + "]."); err != nil {
			return err
		}
	}
	return nil
}

// checkIDOrOrderID requires exactly one of a transaction id and an order id.
func checkIDOrOrderID(id ID, orderID string) error {
	switch {
	case id == 0 && orderID == "":
		return &ValidationError{Field: "id", Reason: "either id or order_id is required"}
	case id != 0 && orderID != "":
		return &ValidationError{Field: "order_id", Reason: "give either id or order_id, not both"}
	case id < 0:
		return &ValidationError{Field: "id", Reason: "must be positive"}
	}
	return checkMaxLen("order_id", orderID, MaxOrderIDLength)
}

// checkRange rejects a time range that ends before it starts.
func checkRange(field string, r TimeRange) error {
	if !r.From.IsZero() && !r.To.IsZero() && r.To.Before(r.From) {
		return &ValidationError{Field: field + "[to]", Reason: "must not be before " + field + "[from]"}
	}
	return nil
}
