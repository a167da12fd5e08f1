package paygatetest

import (
	"strings"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
)

// processCard serves card/process. The outcome follows the test card:
// 4000000000000002 fails, 4000000000000119 is processing, 4000000000009995
// is error 40309, 4000000000003220 (or any card when 3ds=1 or the project
// forces 3-D Secure) waits in authenticating for the ACS step; any other
// card completes. verify_card=1 makes it a 1.00 EUR verification that ends
// verified.
func (s *Server) processCard(c *call) (any, *Error) {
	// The gateway charges a verification 1 EUR whatever the price, so a
	// price of 0 is no mistake there.
	verify := c.get("verify_card") == "1"
	price, currency, err := readMoneyFrom(c, "price", verify)
	if err != nil {
		return nil, err
	}
	if c.get("description") == "" {
		return nil, errMerchantData("description")
	}
	if err := checkOrderID(c.get("order_id")); err != nil {
		return nil, err
	}
	recurring := c.get("recurring") == "1"
	interval, trial := 0, 0
	if recurring {
		var ok bool
		if interval, ok = atoiParam(c.get("recurring_interval")); !ok {
			return nil, errMerchantData("recurring_interval")
		}
		if trial, ok = atoiParam(c.get("recurring_trial")); !ok && c.get("recurring_trial") != "" {
			return nil, errMerchantData("recurring_trial")
		}
	}
	remember := c.get("remember") == "1"
	if remember && !c.project.CardRemembering {
		return nil, NewError(paygate.CodeCardRememberingDisabled, "")
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	u, err := s.chargeUser(c)
	if err != nil {
		return nil, err
	}
	cd, err := s.chargeCard(c)
	if err != nil {
		return nil, err
	}
	if cd.number == CardBlocked {
		return nil, NewError(paygate.CodeCardBlocked, "")
	}

	t := s.st.newTxn(c.project, paygate.TypePayment, now)
	t.method, t.user, t.card, t.orderID = "card", u, s.st.sameCard(cd), c.keep("order_id")
	t.price, t.currency = s.st.sameAmount(price), currency
	if remember || recurring {
		x := t.more()
		x.remember, x.recurring, x.recurInterval, x.recurTrial = remember, recurring, interval, trial
	}
	t.attrs = attributes(c.params)
	if verify {
		t.typ, t.price, t.currency = paygate.TypeVerification, decimal.RequireFromString(verificationPrice), "EUR"
	}
	outcome := cardOutcome(cd.number)
	needs3DS := cd.number == Card3DSecure || c.project.Forced3DS || c.get("3ds") == "1"
	if needs3DS && outcome != paygate.StatusFailed {
		x := t.more()
		x.md, x.threeDSOutcome = "MD"+idString(t.id), outcome
		s.st.byMD[x.md] = t
		s.transition(t, paygate.StatusAuthenticating)
		return s.paymentJSON(t, c.basic(), c.get("acs_return_url")), nil
	}
	s.transition(t, outcome)
	return s.paymentJSON(t, c.basic(), ""), nil
}

// authenticate serves card/authenticate: MD names the payment (40403 when
// unknown, 40501 when it is no longer authenticating) and PaRes says whether
// the payer passed the ACS step; a failed step fails the payment.
func (s *Server) authenticate(c *call) (any, *Error) {
	paRes, md := c.get("PaRes"), c.get("MD")
	switch {
	case paRes == "":
		return nil, errMerchantData("PaRes")
	case md == "":
		return nil, errMerchantData("MD")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.st.byMD[md]
	if t == nil || t.project != c.project {
		return nil, NewError(paygate.CodeTransactionNotFound, "")
	}
	if t.status != paygate.StatusAuthenticating {
		return nil, NewError(paygate.CodeTransactionCompleted, "")
	}
	if paRes == acsPaRes(md, true) {
		s.transition(t, t.extra().threeDSOutcome)
	} else {
		t.more().reason = "3-D Secure authentication failed"
		s.transition(t, paygate.StatusFailed)
	}
	return s.paymentJSON(t, c.basic(), ""), nil
}

// chargeUser reads card/process's user: an internal id, or in the extended
// form a User object (user[identifier], user[email], ...) resolved on the
// fly.
func (s *Server) chargeUser(c *call) (*user, *Error) {
	if !c.basic() {
		if ident := c.get("user[identifier]"); ident != "" {
			return s.st.resolveUser(c.project, userInput{
				identifier: ident, displayName: c.get("user[displayName]"), email: c.get("user[email]"),
				phone: c.get("user[phone]"), ip: c.get("user[ip]"), locale: c.get("user[locale]"),
			}), nil
		}
	}
	return s.st.lookupUser(c.project, c.get("user"))
}

// chargeCard reads card/process's card: card_token, or in the extended
// form a Card object. Without either: 40008 (basic) or 40009 (extended).
func (s *Server) chargeCard(c *call) (*cardData, *Error) {
	now := s.clock.Now()
	if id := c.get("card_token"); id != "" {
		return s.st.useToken(c.project, id, now)
	}
	if c.basic() {
		return nil, NewError(paygate.CodeCardTokenMissing, "")
	}
	for k := range c.params {
		if strings.HasPrefix(k, "card[") {
			return parseCard(c.params, "card", now)
		}
	}
	return nil, NewError(paygate.CodeCardDataMissing, "")
}

// cardOutcome is the status a charge of the card takes.
func cardOutcome(number string) paygate.Status {
	switch number {
	case CardDeclined:
		return paygate.StatusFailed
	case CardProcessing:
		return paygate.StatusProcessing
	}
	return paygate.StatusCompleted
}

// getToken serves card/getToken: validates the card (40003 to 40007, 40012,
// 40013) and returns a temporary token valid for 10 minutes, once.
func (s *Server) getToken(c *call) (any, *Error) {
	now := s.clock.Now()
	cd, err := parseCard(c.params, "", now)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.forgetTokens(now)
	t := s.st.newToken(c.project, cd, false)
	t.expiresAt = now.Add(temporaryTokenLifetime)
	s.st.temporary = append(s.st.temporary, t)
	return map[string]any{"id": t.id, "expiresAt": formatTime(t.expiresAt), "card": cardJSON(cd, false)}, nil
}

// processRecurring serves card/processRecurring: 40405 without a
// subscription, 40310 after cancelRecurring, 40311 after endsAt, 40502
// sooner than frequency days after the last successful manual charge. The
// remembered card decides the outcome as in card/process, without 3-D
// Secure.
func (s *Server) processRecurring(c *call) (any, *Error) {
	price, currency, err := readMoney(c, "price")
	if err != nil {
		return nil, err
	}
	if err := checkOrderID(c.get("order_id")); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	u, err := s.st.lookupUser(c.project, c.get("user"))
	if err != nil {
		return nil, err
	}
	sub := s.st.recurring[u.id]
	switch {
	case sub == nil:
		return nil, NewError(paygate.CodeReferenceTransactionNotFound, "")
	case sub.cancelled:
		return nil, NewError(paygate.CodeRecurringDisabled, "")
	case now.After(sub.endsAt):
		return nil, NewError(paygate.CodeRecurringExpired, "")
	case sub.interval > 0 && !sub.lastManual.IsZero() && now.Before(addDays(sub.lastManual, sub.interval)):
		return nil, NewError(paygate.CodeRecurringTooFrequent, "")
	}
	t := s.st.newTxn(c.project, paygate.TypePayment, now)
	t.method, t.user, t.card, t.orderID, t.referenceID = "card", u, sub.card, c.keep("order_id"), sub.referenceID
	t.price, t.currency = price, currency
	t.attrs = attributes(c.params)
	s.transition(t, cardOutcome(sub.card.number))
	if t.status != paygate.StatusFailed {
		sub.lastManual = now
	}
	out := s.paymentJSON(t, c.basic(), "")
	delete(out, "acs")
	delete(out, "permanentToken")
	return out, nil
}
