package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

// errSkipped marks a step that cannot run on this gateway (it needs a
// person, or a callback URL the gateway can reach).
var errSkipped = errors.New("skipped")

// The sandbox's test cards and 3-D Secure password (see paygatetest).
const (
	cardApproved   = paygatetest.CardApproved   // 4242424242424242
	card3DSecure   = paygatetest.Card3DSecure   // 4000000000003220
	cardProcessing = paygatetest.CardProcessing // 4000000000000119
	acsPassword    = paygatetest.ACSPassword    // 1234
)

// flow is the merchant's side of the walk-through; each step leaves what
// the later ones need.
type flow struct {
	gw     *gateway
	client *paygate.Client
	out    io.Writer
	runID  string // makes order ids unique per run

	user           paygate.UserID
	firstPayment   *paygate.Payment
	permanentToken string
	payoutType     paygate.PayoutType
	payoutControls []paygate.PayoutParameter
}

func newFlow(gw *gateway, out io.Writer) *flow {
	return &flow{gw: gw, client: gw.client, out: out, runID: time.Now().UTC().Format("20060102-150405")}
}

type step struct {
	name string
	do   func(context.Context) (string, error)
}

// run performs the steps in order, printing one line each, and stops at the
// first failure.
func (f *flow) run(ctx context.Context) error {
	steps := []step{
		{"resolve user", f.resolveUser},
		{"tokenize card", f.tokenize},
		{"charge card", f.charge},
		{"check status", f.checkStatus},
		{"list the order", f.listOrder},
		{"get transaction by id", f.getByID},
		{"charge permanent token", f.chargePermanentToken},
		{"manual recurring charge", f.chargeRecurring},
		{"refund part of a payment", f.refund},
		{"3-D Secure", f.threeDSecure},
		{"callback", f.callback},
		{"start PayPal payment", f.payPal},
		{"payout types", f.payoutTypes},
		{"payout parameters", f.payoutParameters},
		{"card payout", f.cardPayout},
		{"balance", f.balance},
	}
	for i, s := range steps {
		detail, err := s.do(ctx)
		n := fmt.Sprintf("%2d/%d", i+1, len(steps))
		switch {
		case errors.Is(err, errSkipped):
			fmt.Fprintf(f.out, "%s skip %-25s %s\n", n, s.name, strings.TrimPrefix(err.Error(), errSkipped.Error()+": "))
		case err != nil:
			fmt.Fprintf(f.out, "%s FAIL %-25s %v\n", n, s.name, err)
			return fmt.Errorf("step %q failed: %w", s.name, err)
		default:
			fmt.Fprintf(f.out, "%s ok   %-25s %s\n", n, s.name, detail)
		}
	}
	return nil
}

func (f *flow) orderID(name string) string { return "qs-" + f.runID + "-" + name }

func (f *flow) resolveUser(ctx context.Context) (string, error) {
	id, err := f.client.Users.Resolve(ctx, &paygate.ResolveUserParams{
		Identifier: "quickstart-customer-42",
		Email:      "jane.doe@example.com",
		IP:         "203.0.113.7",
	})
	f.user = id
	return "user id " + string(id), err
}

// tokenizeCard exchanges card data for a single-use token. In a shop the
// payer's browser does this (see examples/checkout); the server never sees
// the card number.
func (f *flow) tokenizeCard(ctx context.Context, number string) (*paygate.Token, error) {
	return f.client.Cards.Tokenize(ctx, &paygate.TokenizeParams{
		Number:       paygate.NewCardNumber(number),
		Expiry:       paygate.NewExpiry(12, time.Now().Year()+3),
		SecurityCode: paygate.NewSecurityCode("123"),
	})
}

// tokenize is the step that shows what a token tells about the card.
func (f *flow) tokenize(ctx context.Context) (string, error) {
	token, err := f.tokenizeCard(ctx, cardApproved)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("card %s (%s), token valid until %s", token.Card.Mask, token.Card.Scheme, token.ExpiresAt.Format(time.TimeOnly)), nil
}

func (f *flow) charge(ctx context.Context) (string, error) {
	token, err := f.tokenizeCard(ctx, cardApproved) // a token is good for one charge
	if err != nil {
		return "", err
	}
	payment, err := f.client.Cards.Charge(ctx, &paygate.ChargeParams{
		User:              f.user,
		CardToken:         paygate.NewCardToken(token.ID),
		Price:             decimal.RequireFromString("24.90"),
		Currency:          "EUR",
		Description:       "Quickstart order",
		OrderID:           f.orderID("first"),
		Remember:          true,
		Recurring:         true,
		RecurringInterval: paygate.Days(0), // manual recurring only
		Attributes:        map[string]string{"realm": "quickstart"},
	})
	if err != nil {
		return "", err
	}
	if !payment.Completed() {
		return "", fmt.Errorf("payment %s is %s, want completed", payment.ID, payment.Status)
	}
	if payment.PermanentToken == "" || payment.Recurring == nil {
		return "", errors.New("no permanent token or recurring subscription in the answer")
	}
	f.firstPayment, f.permanentToken = payment, payment.PermanentToken
	recurring := "manual recurring only"
	if n := payment.Recurring.Frequency; n > 0 {
		recurring = fmt.Sprintf("recurring every %d day(s)", n)
	}
	return fmt.Sprintf("payment %s %s %s %s, card remembered, %s",
		payment.ID, payment.Status, payment.Price.StringFixed(2), payment.Currency, recurring), nil
}

func (f *flow) checkStatus(ctx context.Context) (string, error) {
	st, err := f.client.Transactions.Status(ctx, &paygate.TransactionStatusParams{OrderID: f.firstPayment.OrderID})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("order %s: %s", f.firstPayment.OrderID, st.Status), nil
}

func (f *flow) listOrder(ctx context.Context) (string, error) {
	n := 0
	for tx, err := range f.client.Transactions.All(ctx, &paygate.TransactionListParams{OrderID: f.firstPayment.OrderID}) {
		if err != nil {
			return "", err
		}
		if tx.ID == f.firstPayment.ID {
			n++
		}
	}
	if n != 1 {
		return "", fmt.Errorf("the listing holds payment %s %d times", f.firstPayment.ID, n)
	}
	return "the order's transactions include payment " + f.firstPayment.ID.String(), nil
}

func (f *flow) getByID(ctx context.Context) (string, error) {
	tx, err := f.client.Transactions.Get(ctx, f.firstPayment.ID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s %s %s, fee %s", tx.Type, tx.Status, tx.Price.StringFixed(2), tx.Currency, tx.Fee), nil
}

func (f *flow) chargePermanentToken(ctx context.Context) (string, error) {
	payment, err := f.client.Cards.Charge(ctx, &paygate.ChargeParams{
		User:        f.user,
		CardToken:   paygate.NewCardToken(f.permanentToken),
		Price:       decimal.RequireFromString("9.99"),
		Currency:    "EUR",
		Description: "Quickstart second order",
		OrderID:     f.orderID("second"),
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("payment %s %s %s %s", payment.ID, payment.Status, payment.Price.StringFixed(2), payment.Currency), nil
}

func (f *flow) chargeRecurring(ctx context.Context) (string, error) {
	// A manual charge is outside the interval: the subscribing charge does
	// not hold it back, and with frequency 0 no manual charge does either.
	payment, err := f.client.Cards.ChargeRecurring(ctx, &paygate.ChargeRecurringParams{
		User:        f.user,
		Price:       decimal.RequireFromString("4.99"),
		Currency:    "EUR",
		Description: "Quickstart subscription",
		OrderID:     f.orderID("recurring"),
	})
	if errors.Is(err, paygate.ErrRecurringTooFrequent) {
		return "not due yet: the gateway enforces the subscription's frequency", nil
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("payment %s %s %s %s", payment.ID, payment.Status, payment.Price.StringFixed(2), payment.Currency), nil
}

func (f *flow) refund(ctx context.Context) (string, error) {
	refund, err := f.client.Transactions.Reverse(ctx, &paygate.ReverseParams{
		ID:      f.firstPayment.ID,
		Amount:  decimal.RequireFromString("10.00"),
		Comment: "quickstart partial refund",
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("10.00 of payment %s: %s %s", f.firstPayment.ID, refund.Type, refund.Status), nil
}

// threeDSecure charges a card enrolled in 3-D Secure, sends the "browser"
// through the ACS page with the password, and lets the merchant's
// acs_return_url handler authenticate the payment.
func (f *flow) threeDSecure(ctx context.Context) (string, error) {
	if f.gw.sandbox == nil {
		return "", fmt.Errorf("%w: the bank's 3-D Secure page needs a person (try examples/checkout)", errSkipped)
	}
	token, err := f.tokenizeCard(ctx, card3DSecure)
	if err != nil {
		return "", err
	}
	payment, err := f.client.Cards.Charge(ctx, &paygate.ChargeParams{
		User:         f.user,
		CardToken:    paygate.NewCardToken(token.ID),
		Price:        decimal.RequireFromString("120.00"),
		Currency:     "EUR",
		Description:  "Quickstart 3-D Secure order",
		OrderID:      f.orderID("3ds"),
		ACSReturnURL: f.gw.merchant.URL + "/orders/" + f.orderID("3ds") + "/acs-return",
	})
	if err != nil {
		return "", err
	}
	if !payment.NeedsAuthentication() {
		return "", fmt.Errorf("payment %s is %s, want it to need 3-D Secure", payment.ID, payment.Status)
	}
	b := &browser{http: &http.Client{Timeout: 10 * time.Second}}
	p := payment.ACS.Parameters
	acsPage, err := b.post(ctx, payment.ACS.URL, map[string][]string{"PaReq": {p.PaReq}, "MD": {p.MD}, "TermUrl": {p.TermURL}})
	if err != nil {
		return "", err
	}
	action, fields, err := acsPage.form()
	if err != nil {
		return "", err
	}
	fields.Set("password", acsPassword)
	autoPost, err := b.post(ctx, action, fields) // the page that posts PaRes and MD back by itself
	if err != nil {
		return "", err
	}
	action, fields, err = autoPost.form()
	if err != nil {
		return "", err
	}
	result, err := b.post(ctx, action, fields)
	if err != nil {
		return "", err
	}
	want := fmt.Sprintf("payment %s %s", payment.ID, paygate.StatusCompleted)
	if result.body != want {
		return "", fmt.Errorf("the return page says %q, want %q", result.body, want)
	}
	return fmt.Sprintf("payment %s was authenticating; after the ACS step: %s", payment.ID, paygate.StatusCompleted), nil
}

// callback charges the card that settles later and waits for the callback
// that reports it, verified by the SDK's handler.
func (f *flow) callback(ctx context.Context) (string, error) {
	token, err := f.tokenizeCard(ctx, cardProcessing)
	if err != nil {
		return "", err
	}
	payment, err := f.client.Cards.Charge(ctx, &paygate.ChargeParams{
		User: f.user, CardToken: paygate.NewCardToken(token.ID), Price: decimal.RequireFromString("15.00"), Currency: "EUR",
		Description: "Quickstart order paid later", OrderID: f.orderID("later"),
	})
	if err != nil {
		return "", err
	}
	if f.gw.sandbox == nil {
		return "", fmt.Errorf("%w: payment %s is %s; the gateway posts its callback to the project's callback URL", errSkipped, payment.ID, payment.Status)
	}
	cb, err := f.gw.waitForCallback(ctx, payment.ID, callback.Completed)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("payment %s was %s; signed callback verified: %s, earned %s %s", payment.ID, payment.Status, cb.Status, cb.Earned, cb.Currency), nil
}

func (f *flow) payPal(ctx context.Context) (string, error) {
	alt, err := f.client.Transactions.Create(ctx, &paygate.AlternativeCreateParams{
		UserIdentifier: "quickstart-customer-42",
		PaymentMethod:  paygate.MethodPayPal,
		Price:          decimal.RequireFromString("30.00"),
		Currency:       "EUR",
		Description:    "Quickstart PayPal order",
		OrderID:        f.orderID("paypal"),
		SuccessURL:     f.gw.merchant.URL + "/paid",
		FailURL:        f.gw.merchant.URL + "/not-paid",
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("payment %s %s; send the payer to %s", alt.ID, alt.Status, alt.RedirectURL), nil
}

func (f *flow) payoutTypes(ctx context.Context) (string, error) {
	types, err := f.client.Payouts.Types(ctx)
	if err != nil {
		return "", err
	}
	keys := make([]string, len(types))
	for i, t := range types {
		keys[i] = t.Key
		if t.IsCard() {
			f.payoutType = t
		}
	}
	if !f.payoutType.IsCard() {
		return "", errors.New("the project offers no card payouts")
	}
	return strings.Join(keys, ", "), nil
}

func (f *flow) payoutParameters(ctx context.Context) (string, error) {
	controls, err := f.client.Payouts.Parameters(ctx, &paygate.PayoutParametersParams{
		Type:     f.payoutType,
		Account:  paygate.NewAccountNumber(cardApproved), // only the BIN is sent
		Currency: "EUR",
	})
	if err != nil {
		return "", err
	}
	f.payoutControls = controls
	names := make([]string, len(controls))
	for i, c := range controls {
		names[i] = c.Name
		if c.Required {
			names[i] += " (required)"
		}
	}
	return "card payouts in EUR need: " + strings.Join(names, ", "), nil
}

// recipient holds the quickstart's answers for the payout parameters a
// gateway may ask for; a shop would collect them from its payee.
var recipient = map[string]string{
	"cardHolder": "JANE DOE", "cardExpirationDate": "12/30", "firstName": "Jane", "lastName": "Doe",
	"birthDate": "31.12.1980", "country": "DE", "city": "Berlin", "address": "Heidestr. 17",
	"postalCode": "10557", "phone": "4915112345678", "fullName": "Jane Doe", "description": "Quickstart payout",
}

func (f *flow) cardPayout(ctx context.Context) (string, error) {
	p := &paygate.PayoutParams{
		Type:     f.payoutType,
		Account:  paygate.NewAccountNumber(cardApproved),
		Amount:   decimal.RequireFromString("5.00"),
		Currency: "EUR",
		OrderID:  f.orderID("payout"),
	}
	for _, c := range f.payoutControls {
		if v, ok := recipient[c.Name]; ok {
			p.Set(c.Name, v)
		}
	}
	if err := p.CheckRequired(f.payoutControls); err != nil {
		return "", err
	}
	payout, err := f.client.Payouts.Create(ctx, p)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("payout %s of 5.00 EUR to %s: %s", payout.ID, p.Account, payout.Status), nil
}

func (f *flow) balance(ctx context.Context) (string, error) {
	b, err := f.client.Balance.Get(ctx, &paygate.BalanceParams{Currency: "EUR"})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("available %s %s, rolling reserve %s", b.Amount.StringFixed(2), b.Currency, b.RollingReserve.StringFixed(2)), nil
}
