package paygatetest

import (
	"html/template"
	"net/http"
	"strconv"

	"github.com/paygate/paygate-go"
)

// serveConfirm serves the confirm page of an alternative-method payment.
// GET shows it with approve and decline buttons; POST with action=approve
// completes the payment and redirects (303) to success_url, action=decline
// fails it and redirects to fail_url. A payment already decided redirects
// as its status says.
func (s *Server) serveConfirm(w http.ResponseWriter, r *http.Request, id string) {
	r.Body = http.MaxBytesReader(w, r.Body, maxRequestBody)
	n, err := strconv.ParseInt(id, 10, 64)
	s.mu.Lock()
	t := s.st.txns[n]
	if err != nil || t == nil || t.extra().successURL == "" {
		s.mu.Unlock()
		http.Error(w, "payment not found", http.StatusNotFound)
		return
	}
	if r.Method == http.MethodPost && t.status == paygate.StatusOpened {
		switch r.PostFormValue("action") {
		case "approve":
			s.transition(t, paygate.StatusCompleted)
		case "decline":
			t.more().reason = "declined by the payer"
			s.transition(t, paygate.StatusFailed)
		default:
			s.mu.Unlock()
			http.Error(w, "action must be approve or decline", http.StatusBadRequest)
			return
		}
	}
	status, success, fail := t.status, t.extra().successURL, t.extra().failURL
	page := confirmPage{ID: id, Amount: t.price.StringFixed(2), Currency: t.currency, Method: t.method}
	s.mu.Unlock()
	switch status {
	case paygate.StatusCompleted:
		http.Redirect(w, r, success, http.StatusSeeOther)
	case paygate.StatusFailed:
		http.Redirect(w, r, fail, http.StatusSeeOther)
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		confirmTemplate.Execute(w, page)
	}
}

// knownPaymentMethod reports whether transaction/create accepts method.
func knownPaymentMethod(method string) bool {
	switch method {
	case "paypal", "qiwi", "yandex_money_wallet", "yandex_money_wallet_v2", "web_money_wme", "web_money_wmz", "web_money_wmr":
		return true
	}
	return false
}

type confirmPage struct{ ID, Amount, Currency, Method string }

var confirmTemplate = template.Must(template.New("confirm").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Confirm payment {{.ID}}</title></head>
<body>
<h1>Sandbox payment by {{.Method}}</h1>
<p>Amount: <span id="amount">{{.Amount}} {{.Currency}}</span></p>
<form method="post" action="/confirm/{{.ID}}/">
<button type="submit" name="action" value="approve" id="approve">Approve</button>
<button type="submit" name="action" value="decline" id="decline">Decline</button>
</form>
</body></html>
`))
