package main

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
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

// Order statuses as the shop tracks them. They follow the gateway's
// transaction statuses; "new" means no payment was started yet.
const (
	statusNew            = "new"
	statusAuthenticating = string(paygate.StatusAuthenticating)
	statusOpened         = string(paygate.StatusOpened)
	statusProcessing     = string(paygate.StatusProcessing)
	statusCompleted      = string(paygate.StatusCompleted)
	statusFailed         = string(paygate.StatusFailed)
	statusRefunded       = string(paygate.StatusRefunded)
)

// order is one purchase. The shop never holds card data: a card payment
// leaves only the gateway's masked number here.
type order struct {
	ID      string
	Product product
	Email   string
	// Method is "card" or a paygate.PaymentMethod such as "paypal".
	Method string
	// TransactionID is the gateway's id of the current payment attempt;
	// callbacks for any other transaction are ignored.
	TransactionID paygate.ID
	Status        string
	// Message explains the status to the payer (a decline, a failed
	// 3-D Secure check).
	Message string
	// CardMask is the gateway's mask of the card, for example
	// ************4242.
	CardMask string
	// Paying is set while a payment request is on its way to the gateway,
	// so that a second click cannot start a second payment and a callback
	// that overtakes the gateway's answer is delivered again later.
	Paying bool
	Events []event
}

// event is one step in an order's history.
type event struct {
	At     time.Time
	Source string // "charge", "3-D Secure", "PayPal" or sourceCallback
	Status string
}

// sourceCallback names the gateway's callbacks in an order's history.
const sourceCallback = "callback"

// Final reports whether the order's payment reached an end: no further
// status is expected except a refund.
func (o order) Final() bool {
	switch o.Status {
	case statusCompleted, statusFailed, statusRefunded:
		return true
	}
	return false
}

// Payable reports whether a new payment attempt may start: nothing was
// paid and nothing is under way.
func (o order) Payable() bool {
	return !o.Paying && (o.Status == statusNew || o.Status == statusFailed)
}

// orderStore keeps orders in memory; a real shop keeps them in its
// database.
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
	o := &order{ID: newOrderID(), Product: p, Email: email, Status: statusNew}
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

// beginPayment marks the order with id as being paid, if it may be; it
// returns a copy and whether it did.
func (s *orderStore) beginPayment(id string) (order, bool) {
	var began bool
	o, ok := s.update(id, func(o *order) bool {
		began = o.Payable()
		o.Paying = o.Paying || began
		return began
	})
	return o, ok && began
}

// attempt is the gateway's answer to a payment request.
type attempt struct {
	// TX is the new transaction; 0 when the gateway created none.
	TX       paygate.ID
	Method   string
	CardMask string
	Source   string
	Status   string
	Message  string
}

// endPayment records the answer to the payment that beginPayment started
// and returns a copy of the order. An attempt without a transaction only
// ends the payment, leaving the order as it was.
func (s *orderStore) endPayment(id string, a attempt) order {
	o, _ := s.update(id, func(o *order) bool {
		o.Paying = false
		if a.TX == 0 && a.Status == "" {
			return true
		}
		// A new attempt starts afresh, whatever the last one ended in.
		o.TransactionID, o.Method, o.CardMask, o.Status, o.Message = a.TX, a.Method, a.CardMask, statusNew, ""
		s.setStatus(o, a.Source, a.Status, a.Message)
		return true
	})
	return o
}

// setStatus moves o to status and records where the news came from. A
// final status is never replaced by another, so a late or repeated
// callback cannot undo a completion; only a refund follows a completion.
// The same status reported again keeps the first explanation, unless the
// payer-facing step (charge, 3-D Secure, PayPal) brings one after a
// callback, whose message is only generic.
func (s *orderStore) setStatus(o *order, source, status, message string) {
	o.Events = append(o.Events, event{At: s.now(), Source: source, Status: status})
	switch {
	case status == o.Status:
		if message != "" && (o.Message == "" || source != sourceCallback) {
			o.Message = message
		}
	case o.Final() && !(o.Status == statusCompleted && status == statusRefunded):
	default:
		o.Status, o.Message = status, message
	}
}

func (o *order) snapshot() order {
	c := *o
	c.Events = append([]event(nil), o.Events...)
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
