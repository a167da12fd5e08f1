package main

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
)

// product is something the shop sells.
type product struct {
	SKU         string
	Name        string
	Description string
	Price       decimal.Decimal
	Currency    string
}

// Amount is the price as shown to the payer.
func (p product) Amount() string { return p.Price.StringFixed(2) + " " + p.Currency }

// catalog is the shop's fixed product list.
var catalog = []product{
	{SKU: "mug", Name: "Gopher mug", Description: "Ceramic, 330 ml, dishwasher safe.", Price: decimal.RequireFromString("12.50"), Currency: "EUR"},
	{SKU: "tee", Name: "Gopher T-shirt", Description: "Organic cotton, unisex fit.", Price: decimal.RequireFromString("24.00"), Currency: "EUR"},
}

func findProduct(sku string) (product, bool) {
	for _, p := range catalog {
		if p.SKU == sku {
			return p, true
		}
	}
	return product{}, false
}

// order is one purchase. The shop never holds card data: a card payment
// leaves only the gateway's masked number here.
//
// Its payment's state is a paygate.OrderState: every piece of news (the
// charge's answer, the 3-D Secure step, a callback, a status look-up) is
// applied to it by the SDK's rule, under which an order never moves
// backwards, so news that arrives late or twice cannot undo a payment or
// reopen a refunded order.
type order struct {
	ID      string
	Product product
	Email   string
	// Method is "card" or a paygate.PaymentMethod such as "paypal".
	Method string
	// TransactionID is the gateway's id of the current payment attempt; 0
	// while the attempt's answer is awaited or its outcome is unknown, when
	// the attempt's first callback names it.
	TransactionID paygate.ID
	// EarlierAttempts are the transactions of attempts that failed before
	// the current one: their callbacks are acknowledged and ignored.
	EarlierAttempts []paygate.ID
	State           paygate.OrderState
	// Message explains the status to the payer (a decline, a failed
	// 3-D Secure check).
	Message string
	// CardMask is the gateway's mask of the card, for example
	// ************4242.
	CardMask string
	// Paying is set while a payment request is on its way to the gateway,
	// so that a second click cannot start a second payment.
	Paying bool
	Events []event
	// Money lists the refunds, chargebacks, retrievals and penalties of the
	// order's payment, oldest first.
	Money []moneyEvent
}

// event is one step in an order's history.
type event struct {
	At     time.Time
	Source string // "charge", "3-D Secure", "PayPal" or sourceCallback
	// Status is what the source reported: a transaction or callback status,
	// or "unknown".
	Status string
}

// moneyEvent is money that moved after the payment: a refund, a
// chargeback, a retrieval (a won dispute) or a penalty.
type moneyEvent struct {
	At time.Time
	// Kind is the callback status that reported it, for example
	// refund_completed.
	Kind          callback.Status
	TransactionID paygate.ID
	Amount        decimal.Decimal
	Currency      string
}

// Label is the kind as the order page shows it.
func (m moneyEvent) Label() string {
	switch m.Kind {
	case callback.RefundCompleted, callback.Reversed:
		return "Refund"
	case callback.ChargebackCompleted:
		return "Chargeback"
	case callback.RetrievalCompleted:
		return "Dispute won"
	case callback.PenaltyCompleted:
		return "Penalty"
	}
	return string(m.Kind)
}

// sourceCallback names the gateway's callbacks in an order's history.
const sourceCallback = "callback"

// Status is where the order's payment stands.
func (o order) Status() paygate.OrderStatus { return o.State.Status }

// Final reports whether the order's payment reached an end: what may
// follow is a refund or a dispute.
func (o order) Final() bool {
	switch o.State.Status {
	case paygate.OrderPending, paygate.OrderAuthenticating, paygate.OrderProcessing:
		return false
	}
	return true
}

// Payable reports whether a new payment attempt may start: nothing was
// paid and nothing is under way.
func (o order) Payable() bool {
	return !o.Paying && (o.State.Status == paygate.OrderPending || o.State.Status == paygate.OrderFailed)
}

// orderStore keeps orders in memory; a real shop keeps them in its
// database, and applies news to an order in one database transaction
// (read, paygate.OrderState.Apply, write with a compare-and-set), as
// update does under the store's lock.
type orderStore struct {
	mu     sync.Mutex
	orders map[string]*order
	now    func() time.Time
}

func newOrderStore() *orderStore {
	return &orderStore{orders: make(map[string]*order), now: time.Now}
}

// create records a new order for p and returns a copy of it.
func (s *orderStore) create(p product, email string) order {
	o := &order{ID: newOrderID(), Product: p, Email: email, State: paygate.NewOrderState(p.Price)}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.orders[o.ID] = o
	return o.snapshot()
}

// get returns a copy of the order with id.
func (s *orderStore) get(id string) (order, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[id]
	if !ok {
		return order{}, false
	}
	return o.snapshot(), true
}

// update runs fn on the order with id under the store's lock and returns a
// copy of the result; fn returns false to leave the order unchanged.
func (s *orderStore) update(id string, fn func(o *order) bool) (order, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[id]
	if !ok {
		return order{}, false
	}
	before := o.snapshot()
	if !fn(o) {
		*o = before
	}
	return o.snapshot(), true
}

// beginPayment marks the order with id as being paid, if it may be, and
// starts a new attempt: the failed attempt before it, if any, becomes an
// earlier one. It returns a copy and whether it did.
func (s *orderStore) beginPayment(id string) (order, bool) {
	var began bool
	o, ok := s.update(id, func(o *order) bool {
		if began = o.Payable(); !began {
			return false
		}
		o.Paying = true
		if o.TransactionID != 0 {
			o.EarlierAttempts = append(o.EarlierAttempts, o.TransactionID)
		}
		o.TransactionID, o.Message = 0, ""
		o.State = o.State.Apply(paygate.ObserveRetry())
		return true
	})
	return o, ok && began
}

// attempt is the gateway's answer to a payment request.
type attempt struct {
	// TX is the new transaction; 0 when the gateway's answer named none.
	TX       paygate.ID
	Method   string
	CardMask string
	Source   string
	// Reported is what the answer said (a status, or "unknown"); empty
	// when nothing happened, which only ends the payment.
	Reported    string
	Observation paygate.OrderObservation
	Message     string
}

// endPayment records the answer to the payment that beginPayment started
// and returns a copy of the order. A callback of the attempt may have come
// first and named its transaction already: the answer is applied by the
// same rule, so an unknown outcome leaves a paid order paid.
func (s *orderStore) endPayment(id string, a attempt) order {
	o, _ := s.update(id, func(o *order) bool {
		o.Paying = false
		if a.Reported == "" {
			return true
		}
		if a.TX != 0 {
			o.TransactionID = a.TX
		}
		o.Method = a.Method
		if a.CardMask != "" {
			o.CardMask = a.CardMask
		}
		s.observe(o, a.Source, a.Reported, a.Observation, a.Message)
		return true
	})
	return o
}

// observe applies news about o's payment and records where it came from.
// The status moves only by the SDK's rule. The message changes with the
// status; news that agrees with the status (a callback and the 3-D Secure
// step both reporting the failure) keeps the first explanation, unless the
// payer-facing step (charge, 3-D Secure, PayPal) brings one after a
// callback, whose message is only generic.
func (s *orderStore) observe(o *order, source, reported string, obs paygate.OrderObservation, message string) {
	o.Events = append(o.Events, event{At: s.now(), Source: source, Status: reported})
	before := o.State.Status
	o.State = o.State.Apply(obs)
	switch {
	case o.State.Status != before && message == "":
		o.Message = statusMessages[o.State.Status]
	case o.State.Status != before:
		o.Message = message
	case message != "" && reports(obs) == before && (o.Message == "" || source != sourceCallback):
		o.Message = message
	}
}

// statusMessages explain a status to the payer when the news that brought
// it had no explanation of its own (a callback).
var statusMessages = map[paygate.OrderStatus]string{
	paygate.OrderFailed:            "The payment failed. No money was taken.",
	paygate.OrderPartiallyRefunded: "Part of the payment was refunded.",
	paygate.OrderRefunded:          "The payment was refunded.",
	paygate.OrderChargedBack:       "The card issuer took the payment back (chargeback).",
	paygate.OrderRetrieved:         "The chargeback was reversed: the payment stands.",
}

// reports is the status obs gives an order that knew nothing yet: what
// the news says by itself.
func reports(obs paygate.OrderObservation) paygate.OrderStatus {
	return paygate.OrderState{}.Apply(obs).Status
}

func (o *order) snapshot() order {
	c := *o
	c.Events = append([]event(nil), o.Events...)
	c.Money = append([]moneyEvent(nil), o.Money...)
	c.EarlierAttempts = append([]paygate.ID(nil), o.EarlierAttempts...)
	return c
}

// newOrderID returns an unguessable order id: the order page is reachable
// by its URL alone.
func newOrderID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("checkout: no randomness: " + err.Error())
	}
	return "ord_" + hex.EncodeToString(b[:])
}
