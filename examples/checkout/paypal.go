package main

import (
	"net/http"
	"strings"

	"github.com/paygate/paygate-go"
)

// startPayPal opens a PayPal payment and sends the payer to the gateway's
// confirm page, which sends them back to the success or fail page.
func (a *app) startPayPal(w http.ResponseWriter, r *http.Request) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	o, ok := a.beginEmailPayment(w, r, email)
	if !ok {
		return
	}
	a.orders.update(o.ID, func(ord *order) bool { ord.Email = email; return true })
	base := a.cfg.PublicURL + "/orders/" + o.ID + "/paypal/"
	payment, err := a.cfg.Client.Transactions.Create(paymentContext(r), &paygate.AlternativeCreateParams{
		UserIdentifier: email,
		Email:          email,
		IP:             clientIP(r),
		PaymentMethod:  paygate.MethodPayPal,
		Price:          o.Product.Price,
		Currency:       o.Product.Currency,
		OrderID:        o.ID,
		Description:    o.Product.Name,
		SuccessURL:     base + "success",
		FailURL:        base + "fail",
	})
	if err != nil {
		// Nothing is charged before the payer approves, so the payer may
		// simply try again.
		a.cfg.Logger.Error("PayPal", "order", o.ID, "err", err)
		a.orders.endPayment(o.ID, attempt{})
		a.renderCheckout(w, http.StatusBadGateway, o, "PayPal is not available right now. Please pay by card or try again later.")
		return
	}
	a.cfg.Logger.Info("PayPal payment", "order", o.ID, "transaction", payment.ID, "status", payment.Status)
	a.orders.endPayment(o.ID, attempt{TX: payment.ID, Method: string(paygate.MethodPayPal), Source: "PayPal",
		Reported: string(payment.Status), Observation: paygate.ObserveStatus(payment.Status)})
	http.Redirect(w, r, payment.RedirectURL, http.StatusSeeOther)
}

// payPalReturn is the success and fail page. Anyone can open these URLs,
// so the page does not trust the redirect: it asks the gateway for the
// payment's status (the callback brings the same news, and may come
// first).
func (a *app) payPalReturn(w http.ResponseWriter, r *http.Request) {
	o, ok := a.order(w, r)
	if !ok {
		return
	}
	outcome := r.PathValue("outcome")
	if outcome != "success" && outcome != "fail" {
		http.NotFound(w, r)
		return
	}
	if o.TransactionID != 0 && !o.Final() {
		if tx, err := a.cfg.Client.Transactions.Status(r.Context(), &paygate.TransactionStatusParams{ID: o.TransactionID}); err != nil {
			a.cfg.Logger.Error("PayPal status", "order", o.ID, "err", err)
		} else {
			o, _ = a.orders.update(o.ID, func(ord *order) bool {
				if ord.TransactionID != tx.ID || tx.Status == paygate.StatusOpened {
					return false
				}
				obs, msg := paygate.ObserveStatus(tx.Status), ""
				if reports(obs) == paygate.OrderFailed {
					msg = "The PayPal payment was declined. No money was taken."
				}
				a.orders.observe(ord, "PayPal", string(tx.Status), obs, msg)
				return true
			})
		}
	}
	a.render(w, http.StatusOK, "paypal", map[string]any{"Order": o, "Success": outcome == "success"})
}
