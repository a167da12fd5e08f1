package main

import (
	"context"
	"embed"
	"encoding/json"
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
	"github.com/paygate/paygate-go/callback"
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
	callbacks, err := callback.NewHandler([]string{cfg.CallbackKey}, a.handleCallback,
		callback.WithLogger(cfg.Logger))
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
	json.NewEncoder(w).Encode(struct {
		Status paygate.OrderStatus `json:"status"`
		Final  bool                `json:"final"`
		Events int                 `json:"events"`
	}{o.Status(), o.Final(), len(o.Events)})
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

// beginEmailPayment is beginPayment for a form that carries the payer's
// e-mail address: the order keeps the address, so that a form that comes
// back shows it again, and an unusable address ends the payment and shows
// the form again with the reason.
func (a *app) beginEmailPayment(w http.ResponseWriter, r *http.Request, email string) (order, bool) {
	o, ok := a.beginPayment(w, r)
	if !ok {
		return o, false
	}
	o.Email = email
	if msg := checkEmail(email); msg != "" {
		a.orders.endPayment(o.ID, attempt{})
		a.renderCheckout(w, http.StatusUnprocessableEntity, o, msg)
		return o, false
	}
	return o, true
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
func statusLabel(status paygate.OrderStatus) string {
	switch status {
	case paygate.OrderPending:
		return "Awaiting payment"
	case paygate.OrderAuthenticating:
		return "Awaiting 3-D Secure"
	case paygate.OrderProcessing:
		return "Processing"
	case paygate.OrderPaid:
		return "Payment completed"
	case paygate.OrderFailed:
		return "Payment failed"
	case paygate.OrderPartiallyRefunded:
		return "Partially refunded"
	case paygate.OrderRefunded:
		return "Refunded"
	case paygate.OrderChargedBack:
		return "Charged back"
	case paygate.OrderRetrieved:
		return "Payment completed (dispute won)"
	}
	return string(status)
}

// paymentContext is the context of a request that moves money. It is not
// cancelled when the payer closes the tab: a charge cut off half-way has
// an unknown outcome, which is worse than a finished one. The client's
// timeout still bounds it.
func paymentContext(r *http.Request) context.Context {
	return context.WithoutCancel(r.Context())
}
