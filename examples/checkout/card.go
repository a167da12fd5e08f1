package main

import (
	"errors"
	"net/http"
	"strings"

	"github.com/paygate/paygate-go"
)

// charge charges the card token the browser posted. The form carries the
// token and the e-mail address, never card data: the card inputs have no
// name, so the browser does not send them here.
func (a *app) charge(w http.ResponseWriter, r *http.Request) {
	email, token := strings.TrimSpace(r.PostFormValue("email")), r.PostFormValue("card_token")
	o, ok := a.beginEmailPayment(w, r, email)
	if !ok {
		return
	}
	if token == "" {
		a.orders.endPayment(o.ID, attempt{})
		a.renderCheckout(w, http.StatusUnprocessableEntity, o, "Your card could not be read. Please enable JavaScript and enter it again.")
		return
	}
	a.orders.update(o.ID, func(ord *order) bool { ord.Email = email; return true })
	payment, err := a.cfg.Client.Cards.Charge(paymentContext(r), &paygate.ChargeParams{
		UserDetails:  &paygate.UserDetails{Identifier: email, Email: email, IP: clientIP(r)},
		CardToken:    paygate.NewCardToken(token),
		Price:        o.Product.Price,
		Currency:     o.Product.Currency,
		Description:  o.Product.Name,
		OrderID:      o.ID,
		ACSReturnURL: a.cfg.PublicURL + "/orders/" + o.ID + "/3ds",
	})
	if err != nil {
		a.chargeFailed(w, r, o, err)
		return
	}
	a.cfg.Logger.Info("card charge", "order", o.ID, "transaction", payment.ID, "status", payment.Status)
	obs, msg := paymentOutcome(payment)
	mask := ""
	if payment.Card != nil {
		mask = payment.Card.Mask
	}
	o = a.orders.endPayment(o.ID, attempt{TX: payment.ID, Method: "card", CardMask: mask, Source: "charge",
		Reported: reported(payment), Observation: obs, Message: msg})
	if payment.NeedsAuthentication() {
		// The self-submitting form takes the payer to the bank's ACS page;
		// the ACS sends them back to /orders/{id}/3ds.
		if err := paygate.WriteACSRedirect(w, payment.ACS); err != nil {
			a.cfg.Logger.Error("ACS redirect", "order", o.ID, "err", err)
			a.renderError(w, http.StatusBadGateway, "The bank's verification page cannot be opened. Please try again.")
		}
		return
	}
	http.Redirect(w, r, "/orders/"+o.ID, http.StatusSeeOther)
}

// acsReturn is the acs_return_url: the ACS posts PaRes and MD here from the
// payer's browser after the 3-D Secure step, and card/authenticate settles
// the payment. The return is bound to this order and its payment: anyone
// can post another order's PaRes and MD to this address, and the SDK then
// refuses before or after the call (ErrACSReturnMismatch). A repeated
// return (the payer went back and resubmitted) reports the payment as it
// stands.
func (a *app) acsReturn(w http.ResponseWriter, r *http.Request) {
	o, ok := a.order(w, r)
	if !ok {
		return
	}
	params, err := paygate.ReadACSReturn(r)
	if err != nil {
		a.renderError(w, http.StatusBadRequest, "The answer of the bank's verification page was incomplete.")
		return
	}
	params.PaymentID, params.OrderID = o.TransactionID, o.ID
	payment, err := a.cfg.Client.Cards.Authenticate(paymentContext(r), params)
	switch {
	case errors.Is(err, paygate.ErrACSReturnMismatch):
		a.cfg.Logger.Warn("3-D Secure return of another payment", "order", o.ID, "err", err)
		a.renderError(w, http.StatusBadRequest, "This verification belongs to another payment.")
		return
	case err != nil:
		a.cfg.Logger.Error("3-D Secure", "order", o.ID, "err", err)
		a.renderError(w, http.StatusBadGateway, "The payment could not be confirmed with your bank. Please try again.")
		return
	}
	a.cfg.Logger.Info("3-D Secure", "order", o.ID, "transaction", payment.ID, "status", payment.Status)
	a.orders.update(o.ID, func(ord *order) bool {
		obs, msg := paymentOutcome(payment)
		if msg == declinedMessage {
			msg = "Your bank could not verify this payment (3-D Secure failed). No money was taken."
		}
		a.orders.observe(ord, "3-D Secure", reported(payment), obs, msg)
		return true
	})
	http.Redirect(w, r, "/orders/"+o.ID, http.StatusSeeOther)
}

// chargeFailed shows why a charge did not happen.
func (a *app) chargeFailed(w http.ResponseWriter, r *http.Request, o order, err error) {
	a.cfg.Logger.Error("card charge", "order", o.ID, "err", err)
	var msg string
	var verr *paygate.ValidationError
	switch {
	case errors.Is(err, paygate.ErrOutcomeUnknown):
		// The charge may have happened, so the card is not asked for again.
		// The transaction id is unknown: the order waits for the callback,
		// which the gateway redelivers until it is taken, or for a look-up
		// by the order id (Transactions.Reconcile).
		a.orders.endPayment(o.ID, attempt{Method: "card", Source: "charge", Reported: "unknown",
			Observation: paygate.ObserveCharge(nil, err),
			Message:     "We are waiting for the payment service to confirm your payment."})
		http.Redirect(w, r, "/orders/"+o.ID, http.StatusSeeOther)
		return
	case errors.Is(err, paygate.ErrCardBlocked):
		msg = "This card cannot be used. Please use another card."
	case errors.Is(err, paygate.ErrCardTokenUsed), errors.Is(err, paygate.ErrCardTokenExpired), errors.Is(err, paygate.ErrCardTokenInvalid):
		msg = "Your card details expired. Please enter them again."
	case errors.Is(err, paygate.ErrUserBlocked):
		msg = "This payment cannot be accepted. Please contact us."
	case errors.As(err, &verr):
		msg = "Your payment details are incomplete. Please check them and try again."
	default:
		msg = "The payment service is not available right now. No money was taken; please try again."
	}
	a.orders.endPayment(o.ID, attempt{})
	a.renderCheckout(w, http.StatusUnprocessableEntity, o, msg)
}

// declinedMessage explains a failed card payment.
const declinedMessage = "Your card was declined. No money was taken. Please try another card or PayPal."

// paymentOutcome turns a charge or authentication answer into the news
// for the order and the message for the payer.
func paymentOutcome(p *paygate.Payment) (paygate.OrderObservation, string) {
	obs := paygate.ObserveCharge(p, nil)
	if reports(obs) == paygate.OrderFailed {
		return obs, declinedMessage
	}
	return obs, ""
}

// reported is what a charge or authentication answer said, for the
// order's history: its status, or in the basic form, which answers
// without one, what success and acs tell.
func reported(p *paygate.Payment) string {
	switch {
	case p.Status != "":
		return string(p.Status)
	case p.NeedsAuthentication():
		return string(paygate.StatusAuthenticating)
	case p.Success:
		return "accepted"
	}
	return string(paygate.StatusFailed)
}
