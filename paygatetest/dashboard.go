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

// serveDashboard serves GET /sandbox/: the dashboard for a request with
// the key (bearer or session cookie), the key form otherwise.
func (s *Server) serveDashboard(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, "", newError(codeNotAllowed, "use GET"))
		return
	}
	if _, ok := s.authorized(r); !ok {
		s.renderPage(w, http.StatusForbidden, "login.html", loginPage{})
		return
	}
	page := s.dashboardData()
	page.Note, page.Error = bounded(r.URL.Query().Get("note")), bounded(r.URL.Query().Get("error"))
	s.renderPage(w, http.StatusOK, "dashboard.html", page)
}

// serveLogin serves POST /sandbox/login, the key form's target: the right
// key sets the session cookie (HttpOnly, SameSite=Strict, a token derived
// from the key, never the key) and goes to the dashboard.
func (s *Server) serveLogin(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, "", newError(codeNotAllowed, "use POST"))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxControlBody)
	if o := r.Header.Get("Origin"); o != "" && o != "null" && !strings.HasSuffix(o, "://"+r.Host) {
		s.renderPage(w, http.StatusForbidden, "login.html", loginPage{Error: "cross-site sign-in refused"})
		return
	}
	key := r.PostFormValue("key")
	if key == "" || !equalSecret(key, s.PrivateKey) {
		s.renderPage(w, http.StatusForbidden, "login.html", loginPage{Error: "wrong key"})
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: s.controlToken(controlSessionLabel), Path: dashboardPath,
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, r, dashboardPath, http.StatusSeeOther)
}

func (s *Server) renderPage(w http.ResponseWriter, status int, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
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
	Seq             int
	Status, URL     string
	Delivered, Done bool
	Attempts        []attemptRow
}

type attemptRow struct {
	At, Error string
	Status    int
	Manual    bool
}

// dashboardData reads what the dashboard shows.
func (s *Server) dashboardData() dashboardPage {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.st.projects[s.ProjectKey]
	page := dashboardPage{
		Now: s.clock.Now().Format(time.RFC3339), CSRF: s.controlToken(controlCSRFLabel),
		ProjectKey: p.Key, Form: p.Form.String(), CallbackURL: p.CallbackURL,
		Total: len(s.st.txns), Faults: Faults, Count: s.deliveries.log.count(),
	}
	shown := s.newestTransactions(dashboardLimit)
	byTxn := s.callbackRows(shown)
	for cur, amount := range s.st.balances[p.Key] {
		page.Balances = append(page.Balances, balanceRow{Currency: cur, Amount: amount.StringFixed(2), RollingReserve: "0.00"})
	}
	slices.SortFunc(page.Balances, func(a, b balanceRow) int { return strings.Compare(a.Currency, b.Currency) })
	for name := range routes {
		page.Methods = append(page.Methods, name)
	}
	slices.Sort(page.Methods)
	for _, t := range shown {
		row := txnRow{
			ID: idString(t.id), Type: string(wireType(t)), Status: string(t.effectiveStatus()),
			OriginalStatus: string(t.status), Amount: t.price.StringFixed(2), Currency: t.currency,
			OrderID: t.orderID, Method: t.method, Created: shortTime(t.createdAt), Reason: t.reason(),
			ProjectKey: t.project.Key, Callbacks: byTxn[t.id], Events: s.applicableEvents(t),
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

// newestTransactions returns the newest n transactions kept, newest first.
// The caller holds s.mu.
func (s *Server) newestTransactions(n int) []*txn {
	var out []*txn
	for i := len(s.st.order) - 1; i >= 0 && len(out) < n; i-- {
		if t := s.st.order[i]; t != nil {
			out = append(out, t)
		}
	}
	return out
}

// callbackRows are the callbacks of the transactions in list, by
// transaction id, oldest first.
func (s *Server) callbackRows(list []*txn) map[int64][]callbackRow {
	ids := make(map[int64]bool, len(list))
	for _, t := range list {
		ids[t.id] = true
	}
	out := make(map[int64][]callbackRow)
	for _, d := range s.deliveries.log.records() {
		if !ids[d.txn.id] {
			continue
		}
		row := callbackRow{Seq: d.seq, Status: string(*d.status), URL: d.url, Delivered: d.delivered, Done: d.done}
		for _, a := range d.history {
			row.Attempts = append(row.Attempts, attemptRow{At: shortTime(a.at()), Error: a.err, Status: int(a.status), Manual: a.manual})
		}
		out[d.txn.id] = append(out[d.txn.id], row)
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
