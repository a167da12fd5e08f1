package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/paygate/paygate-go"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// config is what the shop needs to know about itself and the gateway.
type config struct {
	// Client talks to the gateway with the project's private key; it never
	// reaches the browser.
	Client *paygate.Client
	// CallbackKey is the project's private key, which signs callbacks.
	CallbackKey string
	// GatewayURL is the gateway's public base address: the browser sends the
	// card to {GatewayURL}/v1/card/getToken itself.
	GatewayURL string
	// PublicURL is the shop's own address as the payer's browser reaches it,
	// without a trailing slash; the gateway sends the payer back to it after
	// 3-D Secure and PayPal.
	PublicURL string
	// Logger receives one line per payment step; card data never reaches
	// it, because the shop never has any.
	Logger *slog.Logger
}

// app is the merchant's web shop.
type app struct {
	cfg    config
	orders *orderStore
	pages  map[string]*template.Template
	mux    *http.ServeMux
}

// newApp returns the shop as an http.Handler:
//
//	GET  /                        products
//	POST /orders                  create an order, then go to its checkout
//	GET  /orders/{id}/checkout    card form and PayPal button
//	POST /orders/{id}/charge      charge the card token the browser obtained
//	POST /orders/{id}/3ds         acs_return_url: complete 3-D Secure
//	POST /orders/{id}/paypal      start a PayPal payment
//	GET  /orders/{id}/paypal/success, /orders/{id}/paypal/fail
//	GET  /orders/{id}             the order and its status
//	GET  /orders/{id}/status      the status as JSON, for the order page
//	POST /callback                the gateway's callbacks
func newApp(cfg config) (http.Handler, error) {
	if cfg.Client == nil || cfg.CallbackKey == "" || cfg.GatewayURL == "" || cfg.PublicURL == "" {
		return nil, errors.New("checkout: the client, callback key, gateway URL and public URL are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.GatewayURL = strings.TrimRight(cfg.GatewayURL, "/")
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, orders: newOrderStore(), pages: pages, mux: http.NewServeMux()}
	callbacks, err := paygate.NewCallbackHandler([]string{cfg.CallbackKey}, a.handleCallback,
		paygate.WithCallbackLogger(cfg.Logger))
	if err != nil {
		return nil, err
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	m := a.mux
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	m.HandleFunc("GET /{$}", a.products)
	m.HandleFunc("POST /orders", a.createOrder)
	m.HandleFunc("GET /orders/{id}/checkout", a.checkout)
	m.HandleFunc("POST /orders/{id}/charge", a.charge)
	m.HandleFunc("POST /orders/{id}/3ds", a.acsReturn)
	m.HandleFunc("POST /orders/{id}/paypal", a.startPayPal)
	m.HandleFunc("GET /orders/{id}/paypal/{outcome}", a.payPalReturn)
	m.HandleFunc("GET /orders/{id}", a.orderPage)
	m.HandleFunc("GET /orders/{id}/status", a.orderStatus)
	m.Handle("POST /callback", callbacks)
	return a, nil
}

// ServeHTTP marks every answer as not to be cached or framed: the pages
// carry order data and payment forms.
func (a *app) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	a.mux.ServeHTTP(w, r)
}

func (a *app) products(w http.ResponseWriter, r *http.Request) {
	a.render(w, http.StatusOK, "products", map[string]any{"Products": catalog})
}

func (a *app) createOrder(w http.ResponseWriter, r *http.Request) {
	p, ok := findProduct(r.PostFormValue("sku"))
	if !ok {
		http.Error(w, "unknown product", http.StatusBadRequest)
		return
	}
	o := a.orders.create(p, "")
	http.Redirect(w, r, "/orders/"+o.ID+"/checkout", http.StatusSeeOther)
}

// checkout shows the payment page. The page's script sends the card to the
// gateway (card/getToken by JSONP) and posts only the token here; the
// Content-Security-Policy allows scripts from this shop and the gateway
// only.
func (a *app) checkout(w http.ResponseWriter, r *http.Request) {
	o, ok := a.order(w, r)
	if !ok {
		return
	}
	if !o.Payable() {
		http.Redirect(w, r, "/orders/"+o.ID, http.StatusSeeOther)
		return
	}
	a.renderCheckout(w, http.StatusOK, o, "")
}

// charge charges the card token the browser posted. The form carries the
// token and the e-mail address, never card data: the card inputs have no
// name, so the browser does not send them here.
func (a *app) charge(w http.ResponseWriter, r *http.Request) {
	email, token := strings.TrimSpace(r.PostFormValue("email")), r.PostFormValue("card_token")
	o, ok := a.beginPayment(w, r)
	if !ok {
		return
	}
	if msg := checkEmail(email); msg != "" {
		a.orders.endPayment(o.ID, attempt{})
		a.renderCheckout(w, http.StatusUnprocessableEntity, o, msg)
		return
	}
	if token == "" {
		a.orders.endPayment(o.ID, attempt{})
		a.renderCheckout(w, http.StatusUnprocessableEntity, o, "Your card could not be read. Please enable JavaScript and enter it again.")
		return
	}
	a.orders.update(o.ID, func(ord *order) bool { ord.Email = email; return true })
	payment, err := a.cfg.Client.Cards.Charge(r.Context(), &paygate.ChargeParams{
		UserDetails:  &paygate.UserDetails{Identifier: email, Email: email, IP: clientIP(r)},
		CardToken:    token,
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
	status, msg := paymentOutcome(payment)
	mask := ""
	if payment.Card != nil {
		mask = payment.Card.Mask
	}
	o = a.orders.endPayment(o.ID, attempt{TX: payment.ID, Method: "card", CardMask: mask, Source: "charge", Status: status, Message: msg})
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
// the payment.
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
	payment, err := a.cfg.Client.Cards.Authenticate(r.Context(), params)
	switch {
	case errors.Is(err, paygate.ErrTransactionCompleted):
		// A repeated return (the payer went back and resubmitted): the first
		// one settled the payment.
		http.Redirect(w, r, "/orders/"+o.ID, http.StatusSeeOther)
		return
	case err != nil:
		a.cfg.Logger.Error("3-D Secure", "order", o.ID, "err", err)
		a.renderError(w, http.StatusBadGateway, "The payment could not be confirmed with your bank. Please try again.")
		return
	case payment.ID != 0 && payment.ID != o.TransactionID:
		a.renderError(w, http.StatusBadRequest, "This verification belongs to another payment.")
		return
	}
	a.cfg.Logger.Info("3-D Secure", "order", o.ID, "transaction", payment.ID, "status", payment.Status)
	a.orders.update(o.ID, func(ord *order) bool {
		status, msg := paymentOutcome(payment)
		if status == statusFailed && msg == declinedMessage {
			msg = "Your bank could not verify this payment (3-D Secure failed). No money was taken."
		}
		a.orders.setStatus(ord, "3-D Secure", status, msg)
		return true
	})
	http.Redirect(w, r, "/orders/"+o.ID, http.StatusSeeOther)
}

// startPayPal opens a PayPal payment and sends the payer to the gateway's
// confirm page, which sends them back to the success or fail page.
func (a *app) startPayPal(w http.ResponseWriter, r *http.Request) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	o, ok := a.beginPayment(w, r)
	if !ok {
		return
	}
	if msg := checkEmail(email); msg != "" {
		a.orders.endPayment(o.ID, attempt{})
		a.renderCheckout(w, http.StatusUnprocessableEntity, o, msg)
		return
	}
	a.orders.update(o.ID, func(ord *order) bool { ord.Email = email; return true })
	base := a.cfg.PublicURL + "/orders/" + o.ID + "/paypal/"
	payment, err := a.cfg.Client.Transactions.Create(r.Context(), &paygate.AlternativePaymentParams{
		User:          email,
		Email:         email,
		IP:            clientIP(r),
		PaymentMethod: paygate.MethodPayPal,
		Price:         o.Product.Price,
		Currency:      o.Product.Currency,
		OrderID:       o.ID,
		Description:   o.Product.Name,
		SuccessURL:    base + "success",
		FailURL:       base + "fail",
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
	a.orders.endPayment(o.ID, attempt{TX: payment.ID, Method: string(paygate.MethodPayPal), Source: "PayPal", Status: statusOpened})
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
		if tx, err := a.cfg.Client.Transactions.Status(r.Context(), &paygate.StatusParams{ID: o.TransactionID}); err != nil {
			a.cfg.Logger.Error("PayPal status", "order", o.ID, "err", err)
		} else {
			o, _ = a.orders.update(o.ID, func(ord *order) bool {
				if ord.TransactionID != tx.ID || tx.Status == paygate.StatusOpened {
					return false
				}
				msg := ""
				if tx.Status == paygate.StatusFailed {
					msg = "The PayPal payment was declined. No money was taken."
				}
				a.orders.setStatus(ord, "PayPal", string(tx.Status), msg)
				return true
			})
		}
	}
	a.render(w, http.StatusOK, "paypal", map[string]any{"Order": o, "Success": outcome == "success"})
}

func (a *app) orderPage(w http.ResponseWriter, r *http.Request) {
	o, ok := a.order(w, r)
	if !ok {
		return
	}
	a.render(w, http.StatusOK, "order", map[string]any{"Order": o})
}

// orderStatus answers the order page's script, which polls until the
// order reaches a final status.
func (a *app) orderStatus(w http.ResponseWriter, r *http.Request) {
	o, ok := a.order(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"status":%q,"final":%t,"events":%d}`, o.Status, o.Final(), len(o.Events))
}

// handleCallback applies a verified callback to its order. The signature
// covers values but not field names, so the callback is confirmed against
// the gateway (transaction/status) before the order changes; one that does
// not confirm, or that belongs to another payment attempt, is acknowledged
// and ignored. Returning an error makes the gateway deliver it again.
func (a *app) handleCallback(ctx context.Context, cb *paygate.Callback) error {
	o, ok := a.orders.get(cb.OrderID)
	switch {
	case !ok:
		a.cfg.Logger.Warn("callback for an unknown order", "order", cb.OrderID, "transaction", cb.ID)
		return nil
	case cb.ID != o.TransactionID && o.Paying:
		// The callback overtook the gateway's answer to the payment request;
		// an error makes the gateway deliver it again shortly.
		return fmt.Errorf("callback %s arrived before the payment of order %s was recorded", cb.ID, o.ID)
	case cb.ID != o.TransactionID && o.TransactionID != 0:
		a.cfg.Logger.Warn("callback for an earlier payment attempt", "order", o.ID, "transaction", cb.ID)
		return nil
	}
	if !cb.Price.Equal(o.Product.Price) || cb.Currency != o.Product.Currency {
		a.cfg.Logger.Warn("callback amount differs from the order", "order", o.ID, "transaction", cb.ID)
		return nil
	}
	conf, err := a.cfg.Client.ConfirmCallback(ctx, cb)
	if err != nil {
		return fmt.Errorf("confirming callback %s: %w", cb.ID, err)
	}
	if !conf.Confirmed() {
		// Typically a processing callback that arrives after the payment
		// completed; the completed callback follows.
		a.cfg.Logger.Info("callback not confirmed", "order", o.ID, "transaction", cb.ID,
			"status", cb.Status, "mismatches", strings.Join(conf.Mismatches(), ","))
		return nil
	}
	status, msg := callbackOutcome(cb)
	if status == "" {
		return nil
	}
	a.cfg.Logger.Info("callback", "order", o.ID, "transaction", cb.ID, "status", cb.Status)
	a.orders.update(o.ID, func(ord *order) bool {
		switch ord.TransactionID {
		case cb.ID:
		case 0:
			// The charge's outcome was unknown; the confirmed callback names
			// the order's transaction.
			ord.TransactionID = cb.ID
		default:
			return false
		}
		a.orders.setStatus(ord, sourceCallback, status, msg)
		return true
	})
	return nil
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
		a.orders.endPayment(o.ID, attempt{Method: "card", Source: "charge", Status: statusProcessing,
			Message: "We are waiting for the payment service to confirm your payment."})
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

// order finds the order named by the path, or answers 404.
func (a *app) order(w http.ResponseWriter, r *http.Request) (order, bool) {
	o, ok := a.orders.get(r.PathValue("id"))
	if !ok {
		a.renderError(w, http.StatusNotFound, "There is no such order.")
	}
	return o, ok
}

// beginPayment marks the order named by the path as being paid. An order
// that is paid, pending or being paid sends the payer to its page, so a
// double click cannot pay twice. End the payment with
// a.orders.endPayment.
func (a *app) beginPayment(w http.ResponseWriter, r *http.Request) (order, bool) {
	id := r.PathValue("id")
	o, began := a.orders.beginPayment(id)
	switch {
	case o.ID == "":
		a.renderError(w, http.StatusNotFound, "There is no such order.")
	case !began:
		http.Redirect(w, r, "/orders/"+o.ID, http.StatusSeeOther)
	}
	return o, began
}

func (a *app) renderCheckout(w http.ResponseWriter, code int, o order, errMsg string) {
	origin := a.cfg.GatewayURL
	if u, err := url.Parse(origin); err == nil {
		origin = u.Scheme + "://" + u.Host
	}
	w.Header().Set("Content-Security-Policy",
		"default-src 'self'; script-src 'self' "+origin+"; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
	a.render(w, code, "checkout", map[string]any{
		"Order": o, "Error": errMsg, "GatewayURL": a.cfg.GatewayURL, "ProjectKey": a.cfg.Client.ProjectKey(),
	})
}

func (a *app) renderError(w http.ResponseWriter, code int, msg string) {
	a.render(w, code, "error", map[string]any{"Message": msg})
}

func (a *app) render(w http.ResponseWriter, code int, page string, data map[string]any) {
	var buf strings.Builder
	if err := a.pages[page].ExecuteTemplate(&buf, "layout", data); err != nil {
		a.cfg.Logger.Error("rendering", "page", page, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprint(w, buf.String())
}

// declinedMessage explains a failed card payment.
const declinedMessage = "Your card was declined. No money was taken. Please try another card or PayPal."

// paymentOutcome turns a charge or authentication answer into the order's
// status and the message for the payer.
func paymentOutcome(p *paygate.Payment) (status, message string) {
	switch {
	case p.NeedsAuthentication():
		return statusAuthenticating, ""
	case p.Completed():
		return statusCompleted, ""
	case p.Failed():
		return statusFailed, declinedMessage
	case p.Status != "":
		return string(p.Status), ""
	}
	// The basic form answers without a status: the callback tells.
	return statusProcessing, ""
}

// callbackOutcome maps a confirmed callback to the order's status; "" for a
// callback the shop does not act on.
func callbackOutcome(cb *paygate.Callback) (status, message string) {
	switch cb.Status {
	case paygate.CallbackCompleted:
		return statusCompleted, ""
	case paygate.CallbackProcessing, paygate.CallbackWaitingApproval:
		return statusProcessing, ""
	case paygate.CallbackFailed:
		return statusFailed, "The payment failed. No money was taken."
	case paygate.CallbackRefundCompleted, paygate.CallbackReversed:
		return statusRefunded, "The payment was refunded."
	}
	return "", ""
}

// checkEmail returns a message for the payer when email is not usable.
func checkEmail(email string) string {
	if email == "" {
		return "Please enter your e-mail address."
	}
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || len(email) > 254 {
		return "Please enter a valid e-mail address."
	}
	return ""
}

// clientIP is the payer's address as this server sees it. Behind a reverse
// proxy, take it from the proxy's header instead.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// parsePages parses each page with the shared layout.
func parsePages() (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"label": statusLabel,
		"clock": func(t time.Time) string { return t.UTC().Format("15:04:05") },
	}
	layout, err := template.New("layout").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	pages := make(map[string]*template.Template)
	for _, name := range []string{"products", "checkout", "order", "paypal", "error"} {
		t, err := template.Must(layout.Clone()).ParseFS(templateFS, "templates/"+name+".html")
		if err != nil {
			return nil, err
		}
		pages[name] = t
	}
	return pages, nil
}

// statusLabel is the status as the payer reads it.
func statusLabel(status string) string {
	switch status {
	case statusNew:
		return "Awaiting payment"
	case statusAuthenticating:
		return "Awaiting 3-D Secure"
	case statusOpened:
		return "Awaiting PayPal"
	case statusProcessing:
		return "Processing"
	case statusCompleted:
		return "Payment completed"
	case statusFailed:
		return "Payment failed"
	case statusRefunded:
		return "Refunded"
	}
	return status
}
