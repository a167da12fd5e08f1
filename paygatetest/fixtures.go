package paygatetest

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"time"

	"github.com/paygate/paygate-go"
)

// Bounds of a fixture file: its size, as the API's requests, and the
// entries it makes, each a signed call or an event.
const (
	// MaxFixtureBody is the most bytes of a fixture file LoadFixtures
	// reads; a handler that takes one from a client bounds its body to it.
	MaxFixtureBody    = 1 << 20
	maxFixtureEntries = 1000
)

// Fixtures is a scenario LoadFixtures makes, in this order: users, cards
// remembered, payments, payouts, then the steps one after the other. Each
// entry may carry a name, by which later entries refer to it and the
// answer (FixtureIDs) gives its id. The package doc, section "Fixtures",
// describes the format, and testdata/fixtures/example.json shows it.
type Fixtures struct {
	Users    []FixtureUser    `json:"users"`
	Cards    []FixtureCard    `json:"cards"`
	Payments []FixturePayment `json:"payments"`
	Payouts  []FixturePayout  `json:"payouts"`
	Steps    []FixtureStep    `json:"steps"`
}

// FixtureUser is a user (user/resolve). Identifier defaults to Name; the
// email and IP address to ones made from it.
type FixtureUser struct {
	Name       string `json:"name"`
	Identifier string `json:"identifier"`
	Email      string `json:"email"`
	IP         string `json:"ip"`
	Phone      string `json:"phone"`
}

// FixtureCard is a card remembered for a user: a verification charge of
// the card with remember=1, whose permanent token later payments use by
// the card's name.
type FixtureCard struct {
	Name   string `json:"name"`
	User   string `json:"user"`
	Number string `json:"number"`
}

// FixturePayment is a card payment (card/process). Card is a card number,
// or the name of a remembered card; without it, Status picks the test card
// that ends there: completed (the default), failed, processing or
// authenticating. Recurring subscribes the user.
type FixturePayment struct {
	Name        string            `json:"name"`
	User        string            `json:"user"`
	Card        string            `json:"card"`
	Status      string            `json:"status"`
	Price       string            `json:"price"`
	Currency    string            `json:"currency"`
	OrderID     string            `json:"order_id"`
	Description string            `json:"description"`
	Remember    bool              `json:"remember"`
	Recurring   *FixtureRecurring `json:"recurring"`
}

// FixtureRecurring is a payment's subscription: automatic charges every
// Interval days after Trial days.
type FixtureRecurring struct {
	Interval int `json:"interval"`
	Trial    int `json:"trial"`
}

// FixturePayout is a payout (POST payout): Type CREDIT_CARD (the default),
// SEPA or WALLET, Params the type's further parameters (payout-parameters).
// A card payout goes to Account, by default the approved test card, with
// cardHolder "Sandbox Holder" unless Params names one.
type FixturePayout struct {
	Name     string            `json:"name"`
	Type     string            `json:"type"`
	Amount   string            `json:"amount"`
	Currency string            `json:"currency"`
	OrderID  string            `json:"order_id"`
	Account  string            `json:"account"`
	Params   map[string]string `json:"params"`
}

// FixtureStep is one of: an Event applied to a named Transaction (Name
// then names the transaction the event made, a chargeback for example); a
// refund of Amount (all when empty) of a named Transaction; Advance, a Go
// duration the clock moves by (the clock is shared: only the server's own
// project moves it); or Settle, which completes the project's payments and
// payouts that are processing.
type FixtureStep struct {
	Name        string `json:"name"`
	Event       Event  `json:"event"`
	Transaction string `json:"transaction"`
	Refund      string `json:"refund"`
	Amount      string `json:"amount"`
	Advance     string `json:"advance"`
	Settle      bool   `json:"settle"`
}

// FixtureIDs names what LoadFixtures made: user ids, transaction ids and
// permanent card tokens, by the fixture's names.
type FixtureIDs struct {
	Users        map[string]string `json:"users"`
	Transactions map[string]string `json:"transactions"`
	Cards        map[string]string `json:"cards"`
}

// ErrFixtures reports a fixture file LoadFixtures refuses, or an entry of
// it the sandbox refused; the error's text names the entry.
var ErrFixtures = errors.New("paygatetest: fixtures")

// WithFixtures loads the scenario read from r at start (see LoadFixtures),
// unless WithStateFile restored a state, which holds it already (with what
// the tests changed since); NewServer panics and Listen fails when it
// cannot be loaded.
func WithFixtures(r io.Reader) Option {
	return func(c *config) { c.fixtures = r }
}

// LoadFixtures makes the scenario read from r (JSON, see Fixtures) in the
// server's project, with the signed calls, events and clock moves a test
// would make, and answers the ids it made by name. It stops at the first
// entry the sandbox refuses (the entries before it stay made), with an
// error matching ErrFixtures that names it.
func (s *Server) LoadFixtures(r io.Reader) (FixtureIDs, error) {
	p := s.project(s.ProjectKey)
	return s.loadFixtures(p, r)
}

// LoadProjectFixtures is LoadFixtures in the project with public key key;
// an unknown key is ErrUnknownProject.
func (s *Server) LoadProjectFixtures(key string, r io.Reader) (FixtureIDs, error) {
	p := s.project(key)
	if p == nil {
		return FixtureIDs{}, fmt.Errorf("%w: %q", ErrUnknownProject, key)
	}
	return s.loadFixtures(p, r)
}

func (s *Server) loadFixtures(p *Project, r io.Reader) (FixtureIDs, error) {
	var fx Fixtures
	dec := json.NewDecoder(io.LimitReader(r, MaxFixtureBody+1))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fx); err != nil {
		return FixtureIDs{}, fmt.Errorf("%w: not a fixture file: %w", ErrFixtures, err)
	}
	if n := len(fx.Users) + len(fx.Cards) + len(fx.Payments) + len(fx.Payouts) + len(fx.Steps); n > maxFixtureEntries {
		return FixtureIDs{}, fmt.Errorf("%w: %d entries, more than %d", ErrFixtures, n, maxFixtureEntries)
	}
	l := &fixtureLoader{s: s, p: p, ids: FixtureIDs{Users: map[string]string{}, Transactions: map[string]string{}, Cards: map[string]string{}},
		autoStart: s.autoCharges.Load()}
	each(l, "users", fx.Users, l.user)
	each(l, "cards", fx.Cards, l.card)
	each(l, "payments", fx.Payments, l.payment)
	each(l, "payouts", fx.Payouts, l.payout)
	each(l, "steps", fx.Steps, l.step)
	return l.ids, l.err
}

// each makes the entries of one kind in order, naming each in errors as
// kind[index].
func each[T any](l *fixtureLoader, kind string, entries []T, makeOne func(T)) {
	for i, e := range entries {
		l.at = fmt.Sprintf("%s[%d]", kind, i)
		makeOne(e)
	}
}

// fixtureLoader makes the entries of a fixture file; after the first
// error it makes nothing more.
type fixtureLoader struct {
	s   *Server
	p   *Project
	ids FixtureIDs
	at  string // the entry being made, for errors
	err error
	// autoStart is Server.autoCharges when the load began: its clock moves
	// make at most the server's in-flight allowance of automatic
	// payments, so that one load makes a bounded number, not up to the
	// allowance per advance step.
	autoStart int64
}

func (l *fixtureLoader) fail(format string, args ...any) {
	if l.err == nil {
		l.err = fmt.Errorf("%w: %s: %s", ErrFixtures, l.at, fmt.Sprintf(format, args...))
	}
}

// call makes a signed call of the API as a client would, and answers its
// JSON; a refusal is the loader's error.
func (l *fixtureLoader) call(method string, v url.Values) map[string]any {
	if l.err != nil {
		return nil
	}
	v.Set("project", l.p.Key)
	v.Set(paygate.SignatureParam, paygate.Sign(v, l.p.Secret.Reveal()))
	rec := httptest.NewRecorder()
	l.s.serveAPI(rec, httptest.NewRequest(http.MethodPost, "/v1/"+method, nil), method, v, nil)
	var out map[string]any
	dec := json.NewDecoder(rec.Body)
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		l.fail("%s answered no JSON", method)
		return nil
	}
	if e, ok := out["error"].(map[string]any); ok {
		l.fail("%s refused: %v %v", method, e["code"], e["message"])
		return nil
	}
	return out
}

// name records id under name in m; names are unique within their kind.
func (l *fixtureLoader) name(m map[string]string, name, id string) {
	if name == "" || l.err != nil {
		return
	}
	if _, dup := m[name]; dup {
		l.fail("the name %q is taken", name)
		return
	}
	m[name] = id
}

// named is the id of a named entry made before.
func (l *fixtureLoader) named(m map[string]string, kind, name string) string {
	id, ok := m[name]
	if !ok && l.err == nil {
		l.fail("no %s named %q before it", kind, name)
	}
	return id
}

func (l *fixtureLoader) user(u FixtureUser) {
	ident := cmp.Or(u.Identifier, u.Name)
	if ident == "" {
		l.fail("a user needs a name or an identifier")
		return
	}
	out := l.call("user/resolve", url.Values{"identifier": {ident}, "email": {cmp.Or(u.Email, ident+"@example.com")},
		"ip": {cmp.Or(u.IP, "192.0.2.1")}, "phone": {u.Phone}})
	l.name(l.ids.Users, cmp.Or(u.Name, ident), fmt.Sprint(out["id"]))
}

// token tokenizes number, valid for three more years on the sandbox's
// clock.
func (l *fixtureLoader) token(number string) string {
	out := l.call("card/getToken", url.Values{"number": {number}, "expiration_month": {"12"},
		"expiration_year": {strconv.Itoa(l.s.clock.Now().Year() + 3)}, "security_code": {"123"}})
	id, _ := out["id"].(string)
	return id
}

func (l *fixtureLoader) card(c FixtureCard) {
	v := url.Values{"user": {l.named(l.ids.Users, "user", c.User)}, "card_token": {l.token(cmp.Or(c.Number, CardApproved))},
		"verify_card": {"1"}, "remember": {"1"}, "price": {"1.00"}, "currency": {"EUR"},
		"description": {"card remembered by fixtures"}}
	out := l.call("card/process", v)
	tok, _ := out["permanentToken"].(string)
	if l.err == nil && tok == "" {
		l.fail("the card was not remembered (status %v)", out["status"])
	}
	l.name(l.ids.Cards, c.Name, tok)
}

// statusCards are the test cards whose payments end in each status.
var statusCards = map[string]string{
	"":               CardApproved,
	"completed":      CardApproved,
	"failed":         CardDeclined,
	"processing":     CardProcessing,
	"authenticating": Card3DSecure,
}

func (l *fixtureLoader) payment(pay FixturePayment) {
	v := url.Values{"user": {l.named(l.ids.Users, "user", pay.User)}, "price": {cmp.Or(pay.Price, "10.00")},
		"currency": {cmp.Or(pay.Currency, "EUR")}, "description": {cmp.Or(pay.Description, "fixture payment")},
		"order_id": {pay.OrderID}}
	switch tok, remembered := l.ids.Cards[pay.Card]; {
	case remembered:
		v.Set("card_token", tok)
	case pay.Card != "":
		v.Set("card_token", l.token(pay.Card))
	default:
		number, ok := statusCards[pay.Status]
		if !ok {
			l.fail("status %q: give completed, failed, processing or authenticating, or a card", pay.Status)
			return
		}
		v.Set("card_token", l.token(number))
	}
	if pay.Remember {
		v.Set("remember", "1")
	}
	if r := pay.Recurring; r != nil {
		v.Set("recurring", "1")
		v.Set("recurring_interval", strconv.Itoa(r.Interval))
		v.Set("recurring_trial", strconv.Itoa(r.Trial))
	}
	out := l.call("card/process", v)
	l.name(l.ids.Transactions, pay.Name, idText(out["id"]))
	if tok, _ := out["permanentToken"].(string); tok != "" && pay.Name != "" {
		l.name(l.ids.Cards, pay.Name, tok)
	}
}

func (l *fixtureLoader) payout(po FixturePayout) {
	v := url.Values{"type": {cmp.Or(po.Type, "CREDIT_CARD")}, "amount": {cmp.Or(po.Amount, "10.00")},
		"currency": {cmp.Or(po.Currency, "EUR")}, "orderId": {po.OrderID}, "account": {po.Account}}
	if typ, _ := payoutType(v.Get("type")); typ == PayoutCreditCard {
		v.Set("account", cmp.Or(po.Account, CardApproved))
		v.Set("cardHolder", "Sandbox Holder")
	}
	for k, val := range po.Params {
		v.Set(k, val)
	}
	out := l.call("payout", v)
	l.name(l.ids.Transactions, po.Name, idText(out["id"]))
}

func (l *fixtureLoader) step(st FixtureStep) {
	if l.err != nil {
		return
	}
	switch {
	case st.Event != "":
		id, err := strconv.ParseInt(l.named(l.ids.Transactions, "transaction", st.Transaction), 10, 64)
		if l.err != nil || err != nil {
			return
		}
		made, err := l.s.trigger(l.p, id, st.Event)
		if err != nil {
			l.fail("%v", err)
			return
		}
		l.name(l.ids.Transactions, st.Name, idString(made))
	case st.Refund != "":
		v := url.Values{"id": {l.named(l.ids.Transactions, "transaction", st.Refund)}}
		if st.Amount != "" {
			v.Set("amount", st.Amount)
		}
		out := l.call("transaction/reverse", v)
		l.name(l.ids.Transactions, st.Name, idText(out["id"]))
	case st.Advance != "":
		d, err := time.ParseDuration(st.Advance)
		switch {
		case err != nil || d < 0 || d > MaxAdvance:
			l.fail("advance must be a Go duration from 0s to %s", MaxAdvance)
		case l.p.Key != l.s.ProjectKey:
			l.fail("the clock is shared by every project: only the server's own project moves it")
		case l.s.autoCharges.Load()-l.autoStart >= int64(l.s.allowance()):
			l.fail("the clock moves of one fixture file make at most %d automatic payments; move the clock further with POST /sandbox/clock",
				l.s.allowance())
		default:
			l.s.Advance(d)
		}
	case st.Settle:
		l.s.settleProject(l.p)
	default:
		l.fail("a step needs event, refund, advance or settle")
	}
}

// settleProject settles project p's processing transactions now, as
// SettlePending does for every project.
func (s *Server) settleProject(p *Project) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleWhere(func(t *txn) bool { return t.project == p })
}

// trigger applies event e to project p's transaction id, as the control
// plane does, and answers the id of the transaction it made (or id).
func (s *Server) trigger(p *Project, id int64, e Event) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.st.txns[id]; t == nil || t.project != p {
		return 0, fmt.Errorf("%w: %d", ErrTransactionNotFound, id)
	}
	t, err := s.triggerLocked(id, e)
	if err != nil {
		return 0, err
	}
	return t.id, nil
}

// idText is an id of a JSON answer as text.
func idText(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}
