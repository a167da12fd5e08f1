package paygatetest

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
)

// Paging of GET transactions when page and limit are not given, and the
// largest page it answers: a larger limit is served as this one, silently
// (totalCount still counts every match).
const (
	defaultListLimit = 20
	maxListLimit     = 1000
)

// transactionStatus serves transaction/status: by id or the latest with
// order_id (40014 with neither, 40403 when unknown), in snake case.
func (s *Server) transactionStatus(c *call) (any, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.st.lookupTxn(c.project, c.get("id"), c.get("order_id"))
	if err != nil {
		return nil, err
	}
	var orderID any
	if t.orderID != "" {
		orderID = t.orderID
	}
	return map[string]any{
		"id": t.id, "order_id": orderID, "price": t.price.StringFixed(2), "fee": t.fee().StringFixed(4),
		"currency": t.currency, "type": wireType(t), "status": t.effectiveStatus(), "original_status": t.status,
		"created_at": formatTime(t.createdAt), "updated_at": formatTime(t.updatedAt),
	}, nil
}

// transactionByID serves transactions/{id}: 40403 when unknown.
func (s *Server) transactionByID(c *call) (any, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := strconv.ParseInt(c.pathID, 10, 64); err != nil {
		return nil, NewError(paygate.CodeTransactionNotFound, "")
	}
	t, err := s.st.lookupTxn(c.project, c.pathID, "")
	if err != nil {
		return nil, err
	}
	return transactionFields(t, true), nil
}

// listTransactions serves GET transactions: the project's transactions
// with orderId (required), filtered by status (the status including later
// effects), type, created[from|to] and updated[from|to] (inclusive; see
// parseFilterTime), oldest first, paged by page (from 1; 0, a negative or
// unreadable page is the first) and limit (default 20; 0, a negative or
// unreadable limit is the default, a limit above 1000 is served as 1000).
// totalCount counts every match, not only the page.
func (s *Server) listTransactions(c *call) (any, *Error) {
	orderID := c.get("orderId")
	if orderID == "" {
		return nil, errMerchantData("orderId")
	}
	var bounds [4]time.Time
	for i, name := range []string{"created[from]", "created[to]", "updated[from]", "updated[to]"} {
		if v := c.get(name); v != "" {
			t, ok := parseFilterTime(v)
			if !ok {
				return nil, errMerchantData(name)
			}
			bounds[i] = t
		}
	}
	page, beyond := listPage(c.get("page"))
	limit := listLimit(c.get("limit"))
	status, typ := c.get("status"), c.get("type")

	match := func(t *txn) bool {
		return (status == "" || string(t.effectiveStatus()) == status) &&
			(typ == "" || string(t.typ) == typ) &&
			within(t.createdAt, bounds[0], bounds[1]) && within(t.updatedAt, bounds[2], bounds[3])
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	// Counted, then the page picked, walking from the newest both times:
	// nothing is held per transaction of the order, however many it has.
	newest := s.st.newestOfOrder(c.project, orderID)
	total := 0
	for t := newest; t != nil; t = t.prevOrder {
		total += btoi(match(t))
	}
	list := []map[string]any{}
	if !beyond && page-1 < (total+limit-1)/limit {
		// The page holds the matches at lo to hi, counted from the oldest.
		lo, hi := (page-1)*limit, min(page*limit, total)
		list = make([]map[string]any, hi-lo)
		fromOldest := total
		for t := newest; t != nil && fromOldest > lo; t = t.prevOrder {
			if !match(t) {
				continue
			}
			if fromOldest--; fromOldest < hi {
				list[fromOldest-lo] = transactionFields(t, true)
			}
		}
	}
	return map[string]any{"totalCount": total, "transactions": list}, nil
}

func within(t, from, to time.Time) bool {
	return (from.IsZero() || !t.Before(from)) && (to.IsZero() || !t.After(to))
}

// createAlternative serves transaction/create: an opened payment by an
// alternative method that the payer approves or declines on the confirm
// page {checkout_url}/confirm/{id}/. user is the merchant's identifier
// (40002 without it); qiwi needs phone. amount is a JSON number.
func (s *Server) createAlternative(c *call) (any, *Error) {
	ident, method := c.get("user"), c.get("payment_method")
	if ident == "" {
		return nil, NewError(paygate.CodeUserIdentifierMissing, "")
	}
	if !knownPaymentMethod(method) {
		return nil, errMerchantData("payment_method")
	}
	price, currency, err := readMoney(c, "price")
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"description", "success_url", "fail_url"} {
		if c.get(name) == "" {
			return nil, errMerchantData(name)
		}
	}
	if method == "qiwi" && c.get("phone") == "" {
		return nil, errMerchantData("phone")
	}
	if err := checkOrderID(c.get("order_id")); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.st.resolveUser(c.project, userInput{
		identifier: ident, displayName: c.get("display_name"), email: c.get("email"),
		phone: c.get("phone"), ip: c.get("ip"), locale: c.get("locale"),
	})
	t := s.st.newTxn(c.project, paygate.TypePayment, s.clock.Now())
	t.method, t.user, t.orderID = c.keep("payment_method"), u, c.keep("order_id")
	t.price, t.currency = s.st.sameAmount(price), currency
	t.more().successURL, t.more().failURL = c.keep("success_url"), c.keep("fail_url")
	t.attrs = attributes(c.params)
	return map[string]any{
		"id": idString(t.id), "amount": json.Number(price.StringFixed(2)), "currency": currency, "status": t.status,
	}, nil
}

// reverse serves transaction/reverse. Only a completed payment can be
// reversed, by any amount up to what is left of it; anything else, or an
// amount beyond what is left, is 40504. Each reversal is a refund
// transaction (referenceId the payment) and moves the balance; once nothing
// is left the payment reads refunded (basic form: reversed, with a
// "reversed" callback).
func (s *Server) reverse(c *call) (any, *Error) {
	amount, ok := parseAmount(c.get("amount"))
	if !ok || !amount.IsPositive() {
		return nil, errMerchantData("amount")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, aerr := s.st.lookupTxn(c.project, c.get("id"), c.get("order_id"))
	if aerr != nil {
		return nil, aerr
	}
	left := t.price.Sub(t.extra().reversed)
	if t.typ != paygate.TypePayment || t.status != paygate.StatusCompleted || amount.GreaterThan(left) {
		return nil, NewError(paygate.CodeNotReversible, "")
	}
	now := s.clock.Now()
	r := s.st.followTxn(t, paygate.TypeRefund, now)
	r.method, r.user, r.card, r.orderID, r.referenceID = t.method, t.user, t.card, t.orderID, t.id
	r.price, r.currency = amount, t.currency
	if comment := c.keep("comment"); comment != "" {
		r.more().reason = comment
	}
	x := t.more()
	x.reversed = x.reversed.Add(amount)
	s.st.credit(c.project, t.currency, amount.Neg())
	full := x.reversed.Equal(t.price)
	if full && c.basic() {
		x.reversedTo = paygate.StatusReversed
		r.status, r.updatedAt = paygate.StatusCompleted, now
		s.notify(t, callback.Reversed)
	} else {
		if full {
			x.reversedTo = paygate.StatusRefunded
		}
		s.transition(r, paygate.StatusCompleted)
	}
	if c.basic() {
		return map[string]any{"success": true}, nil
	}
	out := transactionFields(r, false)
	out["success"] = true
	out["card"] = cardJSON(r.card, true)
	return out, nil
}
