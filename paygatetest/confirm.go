package paygatetest

import (
	"crypto/subtle"
	"html/template"
	"net/http"
	"slices"
	"strconv"

	"github.com/paygate/paygate-go"
)

// maxConfirmTokens is how many confirm pages of one payment may be open at
// once (reloads, a second tab); the oldest page's form stops working first.
const maxConfirmTokens = 8

// serveConfirm serves the confirm page of an alternative-method payment.
// GET shows it with approve and decline buttons; POST with action=approve
// completes the payment and redirects (303) to success_url, action=decline
// fails it and redirects to fail_url. A payment already decided redirects
// as its status says. The decision counts only from a form the page served
// (a single-use token bound to the payment) and, when the browser names
// one, from the sandbox's own origin: 403 otherwise. The page is never
// framed.
func (s *Server) serveConfirm(w http.ResponseWriter, r *http.Request, id string) {
	denyFraming(w)
	r.Body = http.MaxBytesReader(w, r.Body, maxRequestBody)
	n, err := strconv.ParseInt(id, 10, 64)
	s.mu.Lock()
	t := s.st.txns[n]
	if err != nil || t == nil || t.extra().successURL == "" {
		s.mu.Unlock()
		http.Error(w, "payment not found", http.StatusNotFound)
		return
	}
	// Only a decision changes what is kept (see Server.changed): the form
	// tokens live for the process only, so that showing the page, which
	// anyone with its address may do, never makes the state file written.
	open := t.status == paygate.StatusOpened
	if r.Method == http.MethodPost && open {
		if s.foreignOrigin(r) || !t.takeConfirmToken(r.PostFormValue("token")) {
			s.mu.Unlock()
			http.Error(w, "this form was not served by the confirm page: open the page again", http.StatusForbidden)
			return
		}
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
	if status == paygate.StatusOpened {
		page.Token = t.newConfirmToken()
	}
	s.mu.Unlock()
	if open && status != paygate.StatusOpened {
		s.changed()
	}
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

// newConfirmToken makes the token of one confirm form of t. The caller
// holds s.mu.
func (t *txn) newConfirmToken() string {
	tok := randomHex(16)
	x := t.more()
	x.confirmTokens = append(x.confirmTokens, tok)
	if len(x.confirmTokens) > maxConfirmTokens {
		x.confirmTokens = slices.Delete(x.confirmTokens, 0, 1)
	}
	return tok
}

// takeConfirmToken reports whether tok is a token a confirm page of t
// served, and uses it up. The caller holds s.mu.
func (t *txn) takeConfirmToken(tok string) bool {
	if t.x == nil {
		return false
	}
	x := t.x
	for i, want := range x.confirmTokens {
		if subtle.ConstantTimeCompare([]byte(tok), []byte(want)) == 1 {
			x.confirmTokens = slices.Delete(x.confirmTokens, i, i+1)
			return true
		}
	}
	return false
}

// knownPaymentMethod reports whether transaction/create accepts method.
func knownPaymentMethod(method string) bool {
	switch method {
	case "paypal", "qiwi", "yandex_money_wallet", "yandex_money_wallet_v2", "web_money_wme", "web_money_wmz", "web_money_wmr":
		return true
	}
	return false
}

type confirmPage struct{ ID, Amount, Currency, Method, Token string }

var confirmTemplate = template.Must(template.New("confirm").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Confirm payment {{.ID}}</title></head>
<body>
<h1>Sandbox payment by {{.Method}}</h1>
<p>Amount: <span id="amount">{{.Amount}} {{.Currency}}</span></p>
<form method="post" action="/confirm/{{.ID}}/">
<input type="hidden" name="token" value="{{.Token}}">
<button type="submit" name="action" value="approve" id="approve">Approve</button>
<button type="submit" name="action" value="decline" id="decline">Decline</button>
</form>
</body></html>
`))
