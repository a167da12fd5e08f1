package paygatetest

import (
	"embed"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/paygate/paygate-go"
)

// dashboardLimit is how many transactions the dashboard shows, newest
// first.
const dashboardLimit = 100

//go:embed templates/*.html
var templateFiles embed.FS

var dashboardTemplates = template.Must(template.ParseFS(templateFiles, "templates/*.html"))

// serveDashboard serves GET /sandbox/: the dashboard of the project whose
// key the request carries (bearer or session cookie), the key form
// otherwise.
func (s *Server) serveDashboard(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		WriteError(w, NewError(CodeNotAllowed, "use GET"))
		return
	}
	auth, wait, ok := s.authorize(r)
	if !ok {
		s.renderLogin(w, wait, "")
		return
	}
	page := s.dashboardData(auth.project, s.sessions.formToken(auth.project, auth.session))
	page.Note, page.Error = bounded(r.URL.Query().Get("note")), bounded(r.URL.Query().Get("error"))
	s.renderPage(w, http.StatusOK, "dashboard.html", page)
}

// serveLogin serves POST /sandbox/login, the key form's target: a
// project's key starts a new session of that project (see sessions) and
// goes to the dashboard. Wrong keys count against the client's guess
// budget (see guessLimiter).
func (s *Server) serveLogin(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Query().Has("token") {
		s.serveLoginLink(w, r)
		return
	}
	if r.Method != http.MethodPost {
		WriteError(w, NewError(CodeNotAllowed, "use POST"))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxControlBody)
	if s.foreignOrigin(r) {
		s.renderPage(w, http.StatusForbidden, "login.html", loginPage{Error: "cross-site sign-in refused"})
		return
	}
	if wait := s.guesses.wait(clientAddress(r)); wait > 0 {
		s.renderLogin(w, wait, "")
		return
	}
	p, ok := s.ProjectBySecret(r.PostFormValue("key"))
	if !ok {
		s.holdWrongGuess(r)
		s.renderLogin(w, 0, "wrong key")
		return
	}
	s.startSession(w, r, &p)
}

// startSession starts a new session of project p in the browser (see
// sessions) and goes to the dashboard. The cookie's Max-Age is the
// session's lifetime, so that the browser drops it when it stops working
// instead of keeping it until it closes.
func (s *Server) startSession(w http.ResponseWriter, r *http.Request, p *Project) {
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: s.sessions.start(p), Path: dashboardPath,
		MaxAge:   int(sessionLifetime / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
	http.Redirect(w, r, dashboardPath, http.StatusSeeOther)
}

// renderLogin shows the key form: 429 with Retry-After to a client that
// must wait, 403 with message otherwise.
func (s *Server) renderLogin(w http.ResponseWriter, wait time.Duration, message string) {
	if wait > 0 {
		retryAfter(w, wait)
		s.renderPage(w, http.StatusTooManyRequests, "login.html", loginPage{Error: "too many wrong keys from this address: try again in a few seconds"})
		return
	}
	s.renderPage(w, http.StatusForbidden, "login.html", loginPage{Error: message})
}

func (s *Server) renderPage(w http.ResponseWriter, status int, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	denyFraming(w)
	w.WriteHeader(status)
	dashboardTemplates.ExecuteTemplate(w, name, data)
}

type loginPage struct{ Error string }

type dashboardPage struct {
	Now, CSRF, Note, Error string
	ProjectKey, Form       string
	CallbackURL            string
	Balances               []balanceRow
	Transactions           []txnRow
	Shown, Total           int
	Faults                 []Fault
	Methods                []string
	Count                  int
}

type balanceRow struct{ Currency, Amount, RollingReserve string }

type txnRow struct {
	ID, Type, Status, OriginalStatus        string
	Amount, Currency, OrderID, Card, Method string
	Reference, Created, Reason, ProjectKey  string
	History                                 []historyRow
	Callbacks                               []callbackRow
	Events                                  []Event
}

type historyRow struct{ Status, At, By string }

type callbackRow struct {
	Seq                      int
	Status, URL              string
	Delivered, Done, GivenUp bool
	Attempts                 []attemptRow
}

type attemptRow struct {
	At, Error string
	Status    int
	Manual    bool
}

// dashboardData reads what the dashboard of project shows, its forms
// carrying the token csrf.
func (s *Server) dashboardData(project *Project, csrf string) dashboardPage {
	p := project
	page := dashboardPage{
		Now: s.Clock().Now().Format(time.RFC3339), CSRF: csrf,
		ProjectKey: p.Key, Form: p.Form.String(), CallbackURL: p.CallbackURL, Faults: Faults,
		Count: s.DeliveryCount(p.Key),
	}
	balances := s.Balances(p.Key)
	s.mu.Lock()
	defer s.mu.Unlock()
	shown := s.newestTransactions(p, dashboardLimit)
	page.Total = s.st.kept[p.Key]
	for cur, amount := range balances {
		page.Balances = append(page.Balances, balanceRow{Currency: cur, Amount: amount.StringFixed(2), RollingReserve: "0.00"})
	}
	slices.SortFunc(page.Balances, func(a, b balanceRow) int { return strings.Compare(a.Currency, b.Currency) })
	page.Methods = Methods()
	for _, t := range shown {
		row := txnRow{
			ID: idString(t.id), Type: string(wireType(t)), Status: string(t.effectiveStatus()),
			OriginalStatus: string(t.status), Amount: t.price.StringFixed(2), Currency: t.currency,
			OrderID: t.orderID, Method: t.method, Created: shortTime(t.createdAt), Reason: t.reason(),
			ProjectKey: t.project.Key, Callbacks: s.callbackRows(t), Events: s.applicableEvents(t),
		}
		if c := cardJSON(t.card, false); c != nil {
			row.Card = c["mask"].(string)
		}
		if t.referenceID != 0 {
			row.Reference = idString(t.referenceID)
		}
		row.History = append(row.History, historyRow{Status: string(paygate.StatusOpened), At: shortTime(t.createdAt)})
		for _, h := range t.history() {
			hr := historyRow{Status: string(h.Status), At: shortTime(h.At)}
			if h.By != 0 {
				hr.By = idString(h.By)
			}
			row.History = append(row.History, hr)
		}
		page.Transactions = append(page.Transactions, row)
	}
	page.Shown = len(page.Transactions)
	return page
}

// newestTransactions returns the newest n transactions of project p kept,
// newest first. The caller holds s.mu.
func (s *Server) newestTransactions(p *Project, n int) []*txn {
	var out []*txn
	for i := len(s.st.order) - 1; i >= 0 && len(out) < n; i-- {
		if t := s.st.order[i]; t != nil && t.project.Key == p.Key {
			out = append(out, t)
		}
	}
	return out
}

// callbackRows are the callbacks of t, oldest first, read from the log by
// seq: they cost the same however many callbacks the log holds.
func (s *Server) callbackRows(t *txn) []callbackRow {
	var out []callbackRow
	for _, d := range s.deliveries.log.callbacksOf(t) {
		row := callbackRow{Seq: d.seq, Status: string(*d.status), URL: d.url, Delivered: d.delivered, Done: d.done, GivenUp: d.givenUp}
		for _, a := range d.history {
			row.Attempts = append(row.Attempts, attemptRow{At: shortTime(a.at()), Error: a.err, Status: int(a.status), Manual: a.manual})
		}
		out = append(out, row)
	}
	return out
}

func shortTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

// bounded cuts a message echoed from the query to a readable length.
func bounded(s string) string {
	if len(s) > 300 {
		return s[:300]
	}
	return s
}
