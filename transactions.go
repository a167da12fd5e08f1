package paygate

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"time"

	"github.com/shopspring/decimal"
)

// TransactionsService is the transactions resource group of the API:
// reversals, alternative-method payments, status, look-ups and listings.
type TransactionsService service

// TransactionStatusParams selects the transaction whose status to read: by ID or by
// OrderID, exactly one of them.
type TransactionStatusParams struct {
	ID      ID     `url:"id,omitempty"`
	OrderID string `url:"order_id,omitempty"`
}

func (p *TransactionStatusParams) validate(Form) error {
	return checkIDOrOrderID(p.ID, p.OrderID)
}

// Status reads a transaction's status (GET transaction/status). Its Status
// includes the later effects of other transactions, such as a refund.
func (s *TransactionsService) Status(ctx context.Context, p *TransactionStatusParams, opts ...CallOption) (*TransactionStatus, error) {
	return call[TransactionStatus](ctx, s.client, epStatus, p, opts)
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
// The gateway may answer success false without an error object. When the
// answer carries no transaction status, or a failed, cancelled or abandoned
// one, it received the reversal and refused it: Reverse returns a
// [*DeclinedError] (errors.Is(err, ErrDeclined)). When it carries a
// transaction in any other status (a completed refund, for example), the
// reversal was recorded whatever the flag says, and Reverse returns that
// Payment, Success false, without an error: read its Type and Status. A refusal the gateway
// explains with a code comes back as an [*Error], for example
// [ErrNotReversible] (40504) or [ErrTransactionNotFound] (40403). When the
// outcome is unknown (errors.Is(err, ErrOutcomeUnknown)), settle it with
// [TransactionsService.Settle] (the error's SettleParams) before reversing
// again: Refunded means the reversal went through.
func (s *TransactionsService) Reverse(ctx context.Context, p *ReverseParams, opts ...CallOption) (*Payment, error) {
	out, err := call[Payment](ctx, s.client, epReverse, p, opts)
	if err != nil {
		return nil, err
	}
	if !out.Success && (out.Status == "" || out.Status.failed()) {
		return nil, endpoints[epReverse].declined(out.ID, string(out.Status))
	}
	return out, nil
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

// AlternativeCreateParams starts a payment by an alternative method.
type AlternativeCreateParams struct {
	// UserIdentifier is the merchant's own unique and unchangeable
	// identifier of the payer (sent as "user"): the Identifier given to
	// UsersService.Resolve, not the gateway's internal UserID that card
	// charges take. Required.
	UserIdentifier string `url:"user"`
	DisplayName    string `url:"display_name,omitempty"`
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

func (p *AlternativeCreateParams) validate(Form) error {
	err := firstError(
		checkRequired("user", p.UserIdentifier),
		checkRequired("payment_method", string(p.PaymentMethod)),
		checkAmount("price", p.Price),
		checkCurrency("currency", p.Currency),
		checkRequired("description", p.Description),
		checkRequired("success_url", p.SuccessURL),
		checkRequired("fail_url", p.FailURL),
		checkMaxLen("ua", p.UserAgent, MaxUserAgentLength),
		checkMaxLen("order_id", p.OrderID, MaxOrderIDLength),
		checkUser(userFields{identifier: "user", phone: "phone", locale: "locale"}, p.UserIdentifier, p.Phone, p.Locale),
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
//
// The id and status decide what happened: they must be present and
// readable, or the call fails. Amount and currency are informational: when
// unreadable they are left zero and listed in Warnings.
type AlternativePayment struct {
	// ID is the transaction id for the look-ups (Status, Get), or zero when
	// the gateway sent an id that is not a decimal integer.
	ID ID `json:"-"`
	// RawID is the id exactly as the gateway sent it: the spec types it as
	// a string, so it is accepted whatever its characters (a JSON number is
	// kept digit for digit). RedirectURL is built from it.
	RawID string `json:"id"`
	// Amount is decoded exactly from the JSON number the gateway sends.
	Amount   decimal.Decimal `json:"amount"`
	Currency string          `json:"currency"`
	// Status is the transaction's status, for example opened.
	Status Status `json:"status"`
	// RedirectURL is {checkout_url}/confirm/{id}/, built from the client's
	// checkout URL (see WithCheckoutURL).
	RedirectURL string `json:"-"`
	// Warnings lists the informational fields of the answer that could not
	// be read and were left zero (see DecodeWarning).
	Warnings []DecodeWarning `json:"-"`
}

// Create starts a payment by an alternative method (POST transaction/create;
// extended form only). Redirect the payer to the result's RedirectURL.
func (s *TransactionsService) Create(ctx context.Context, p *AlternativeCreateParams, opts ...CallOption) (*AlternativePayment, error) {
	out, err := call[AlternativePayment](ctx, s.client, epCreateAlternative, p, opts)
	if err != nil {
		return nil, err
	}
	out.RedirectURL = s.client.checkoutURL + "/confirm/" + url.PathEscape(out.RawID) + "/"
	return out, nil
}

// Get reads one transaction by its id (GET transactions/{id}; extended form
// only).
func (s *TransactionsService) Get(ctx context.Context, id ID, opts ...CallOption) (*Transaction, error) {
	if id == 0 {
		return nil, &ValidationError{Field: "id", Reason: "is required"}
	}
	out := new(Transaction)
	ep := endpoints[epTransactionByID].at(id.String())
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

// TransactionListParams filters a listing of transactions.
//
// The spec does not state the format of the time filters; they are sent as
// RFC 3339 in UTC (for example created[from]=2026-03-01T00:00:00Z), the
// format the gateway uses for its own timestamps.
type TransactionListParams struct {
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

func (p *TransactionListParams) validate(Form) error {
	return firstError(
		checkRequired("orderId", p.OrderID),
		checkMaxLen("orderId", p.OrderID, MaxOrderIDLength),
	)
}

// TransactionPage is one page of a transaction listing.
//
// The transactions array, and the id, status and type of each transaction,
// decide what the listing says: they must be present (type only readable)
// or the call fails. TotalCount and every other field are informational:
// when unreadable they are left zero and listed in Warnings.
type TransactionPage struct {
	// TotalCount is the gateway's count of the available transactions.
	TotalCount   int           `json:"totalCount"`
	Transactions []Transaction `json:"transactions"`
	// Warnings lists the informational fields of the answer that could not
	// be read and were left zero (see DecodeWarning).
	Warnings []DecodeWarning `json:"-"`
}

// List reads one page of the transactions of an order (GET transactions;
// extended form only). To walk every page, range over
// [TransactionsService.All].
func (s *TransactionsService) List(ctx context.Context, p *TransactionListParams, opts ...CallOption) (*TransactionPage, error) {
	return call[TransactionPage](ctx, s.client, epListTransactions, p, opts)
}

// All iterates over every transaction the listing p selects, fetching pages
// lazily: page p.Page (1 when zero), then the next, until a page is empty or
// shorter than the page size (p.Limit, or the first page's length when
// p.Limit is zero), or TotalCount transactions have been seen. No page is
// fetched after the loop breaks, or once ctx is done. A failure is yielded
// once, with a zero Transaction, and ends the iteration.
//
// The walk is bounded: after [DefaultListBound] pages or transactions
// (or the bound given with [WithListBound]) it yields a
// [*ListingBoundError] instead of fetching more, so that an answer that
// never ends cannot keep it going.
//
// TotalCount is read as the number of transactions the whole listing holds
// (the spec's wording, "count of available transactions in the response",
// leaves room for doubt); a zero or absent count leaves the short or empty
// page as the only end.
func (s *TransactionsService) All(ctx context.Context, p *TransactionListParams, opts ...CallOption) iter.Seq2[Transaction, error] {
	return s.walk(ctx, p, DefaultListBound, opts)
}

// walk is All with the default bound def.
func (s *TransactionsService) walk(ctx context.Context, p *TransactionListParams, def ListBound, opts []CallOption) iter.Seq2[Transaction, error] {
	if p == nil {
		p = &TransactionListParams{}
	}
	bound := listBound(def, opts)
	return func(yield func(Transaction, error) bool) {
		q := *p
		if q.Page == 0 {
			q.Page = 1
		}
		pageSize := q.Limit
		seen, pages, items := 0, 0, 0
		stop := func() {
			yield(Transaction{}, &ListingBoundError{OrderID: q.OrderID, Bound: bound, Pages: pages, Items: items})
		}
		// prevFirst is the id of the previous page's first transaction;
		// 0 is an id too, so whether there was one is kept apart.
		var prevFirst ID
		fetched := false
		for {
			if err := ctx.Err(); err != nil {
				yield(Transaction{}, err)
				return
			}
			page, err := s.List(ctx, &q, opts...)
			if err != nil {
				yield(Transaction{}, err)
				return
			}
			pages++
			n := len(page.Transactions)
			if n > 0 && fetched && page.Transactions[0].ID == prevFirst {
				yield(Transaction{}, fmt.Errorf("paygate: GET transactions returned page %d equal to the page before it", q.Page))
				return
			}
			for _, t := range page.Transactions {
				if items == bound.Items {
					stop()
					return
				}
				items++
				if !yield(t, nil) {
					return
				}
			}
			if !fetched {
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
			if pages == bound.Pages {
				stop()
				return
			}
			prevFirst, fetched = page.Transactions[0].ID, true
			q.Page++
		}
	}
}

func (t *TransactionStatus) setWarnings(w []DecodeWarning)  { t.Warnings = w }
func (t *Transaction) setWarnings(w []DecodeWarning)        { t.Warnings = w }
func (p *TransactionPage) setWarnings(w []DecodeWarning)    { p.Warnings = w }
func (a *AlternativePayment) setWarnings(w []DecodeWarning) { a.Warnings = w }

func (a *AlternativePayment) verifyAnswer() error {
	a.ID, _ = ParseID(a.RawID) // zero when not numeric, as documented
	return nil
}

// UnmarshalJSON reads a page as List does: totalCount as a number or a
// numeric string, every field of a transaction in either spelling.
func (p *TransactionPage) UnmarshalJSON(b []byte) error { return unmarshalAnswer(b, p) }
