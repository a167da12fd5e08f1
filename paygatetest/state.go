package paygatetest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
)

// Clock is the sandbox's notion of the current time. Token expiry (10
// minutes), recurring frequency and end dates, and every createdAt and
// updatedAt are read from it, so a test can move time forward with Advance
// instead of sleeping.
//
// A Clock made by NewClock stands still until advanced. The clock a server
// makes when none is given follows the real time, plus whatever Advance
// added. One Clock may be shared by several servers.
type Clock struct {
	mu        sync.Mutex
	frozen    bool
	base      time.Time
	offset    time.Duration
	nextSub   int
	listeners map[int]func()
	wall      func() time.Time // the real time, when it is followed: time.Now unless a test lags it
}

// NewClock returns a clock that reads start (in UTC) until advanced.
func NewClock(start time.Time) *Clock {
	return &Clock{frozen: true, base: start.UTC()}
}

// newRealClock returns a clock that follows the real time.
func newRealClock() *Clock { return &Clock{} }

// followsRealTime reports whether the clock moves by itself.
func (c *Clock) followsRealTime() bool { return !c.frozen }

// Now returns the current time in UTC.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.frozen {
		return c.base.Add(c.offset)
	}
	if c.wall != nil {
		return c.wall().UTC().Add(c.offset)
	}
	return time.Now().UTC().Add(c.offset)
}

// Advance moves the clock forward by d; a clock moved beyond what a
// time.Duration holds stays in the far future. Every server using the clock then
// settles its processing payments and payouts at once, as if their short
// processing delay had passed, and makes the automatic recurring payments
// that have come due.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	if d > 0 && c.offset > math.MaxInt64-d {
		c.offset = math.MaxInt64 // the far future, not a wrap into the past
	} else {
		c.offset += d
	}
	fns := make([]func(), 0, len(c.listeners))
	for _, f := range c.listeners {
		fns = append(fns, f)
	}
	c.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// subscribe registers f to run after every Advance; the returned function
// removes it.
func (c *Clock) subscribe(f func()) (cancel func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listeners == nil {
		c.listeners = make(map[int]func())
	}
	id := c.nextSub
	c.nextSub++
	c.listeners[id] = f
	return func() {
		c.mu.Lock()
		delete(c.listeners, id)
		c.mu.Unlock()
	}
}

// state is everything the sandbox remembers; Server.mu guards it.
type state struct {
	projects    map[string]*Project
	nextTxn     int64
	nextUser    int64
	nextToken   int64
	users       map[string]*user // by internal id
	identifiers map[string]*user // by project key + "\x00" + identifier
	tokens      map[string]*token
	temporary   []*token // temporary tokens in the order they were made, from tempHead; see forgetTokens
	tempHead    int
	maxTokens   int // of temporary tokens kept; 0 is maxTemporaryTokens
	txns        map[int64]*txn
	kept        projectCounts     // transactions kept, for the dashboard's count
	order       []*txn            // in creation order; nil where one was dropped (see makeRoom)
	head, holes int               // order's first index that may be kept; how many nils it holds
	scan        int               // order's first index makeRoom has not looked at; before it, nils and pinned ones
	droppable   txnHeap           // pinned ones no longer in flight, oldest first; see dropReleased
	processing  map[int64]*txn    // the transactions whose status is processing; see settleWhere
	dropped     int               // transactions dropped since the maps were last rebuilt; see rebuildIndexes
	retention   int               // of transactions kept; see WithRetention
	log         *deliveryLog      // drops the callbacks of dropped transactions
	orders      map[orderKey]*txn // the newest of each; see newestOfOrder
	indexed     int               // how much of order is in orders
	byMD        map[string]*txn   // 3-D Secure merchant data to payment
	balances    map[string]map[string]decimal.Decimal
	recurring   map[string]*subscription // by internal user id
	cards       map[cardData]*cardData   // see sameCard
	amounts     map[amountKey]decimal.Decimal
}

func newState(retention int, log *deliveryLog) *state {
	return &state{
		retention:   retention,
		log:         log,
		projects:    make(map[string]*Project),
		nextTxn:     firstTransactionID,
		nextUser:    1,
		nextToken:   1,
		users:       make(map[string]*user),
		identifiers: make(map[string]*user),
		tokens:      make(map[string]*token),
		txns:        make(map[int64]*txn),
		processing:  make(map[int64]*txn),
		kept:        make(projectCounts),
		orders:      make(map[orderKey]*txn),
		byMD:        make(map[string]*txn),
		balances:    make(map[string]map[string]decimal.Decimal),
		recurring:   make(map[string]*subscription),
		cards:       make(map[cardData]*cardData),
		amounts:     make(map[amountKey]decimal.Decimal),
	}
}

// txn is a transaction of any type.
type txn struct {
	id          int64
	project     *Project
	orderID     string
	referenceID int64
	price       decimal.Decimal
	currency    string
	typ         paygate.TransactionType
	method      string
	status      paygate.Status // the last status applied to the transaction itself
	createdAt   time.Time
	updatedAt   time.Time
	user        *user
	card        *cardData
	// attrs are the attr_* parameters, which callbacks carry. Like every
	// field a callback reads, it never changes once the transaction is made:
	// callbacks are built without Server.mu (see delivery).
	attrs     map[string]string
	prevOrder *txn      // the one before it with the same project and order id; see newestOfOrder
	nextOrder *txn      // the one after it, so that dropping any of them costs O(1)
	x         *txnExtra // what only some transactions have, set later; see extra and more

	// the seq of the transaction's last callback, 0 before its first,
	// guarded by the delivery log: its records link each to the one before
	// (see deliveryLog.chain)
	lastSeq  int
	pos      int          // its index in state.order; see dropAt
	lastKept bool         // see history; here, where it takes no room of its own
	pinned   bool         // passed over by makeRoom while in flight; see dropReleased. Written under Server.mu and the log's lock
	sending  atomic.Int32 // callbacks not done, which keep the transaction; see inFlight
}

// txnExtra holds the fields only some transactions set: most are plain
// charges that never need them, and a transaction kept for weeks should
// not carry them empty.
type txnExtra struct {
	reason  string         // why it failed, or a refund's comment
	earlier []statusChange // with txn.lastKept, the status changes for the dashboard; see history

	reversed   decimal.Decimal // sum of reversals of a payment
	reversedTo paygate.Status  // refunded or (basic form) reversed, once fully reversed

	// card payments
	md             string
	remember       bool
	recurring      bool
	subscribed     bool
	recurInterval  int
	recurTrial     int
	permanentToken string
	threeDSOutcome paygate.Status // the status the payment takes after the ACS

	// alternative-method payments
	successURL, failURL string
	confirmTokens       []string // of the confirm forms served and not used, oldest first; not in the state file

	// disputes (see events.go): the chargeback of a payment, the retrieval
	// of a chargeback, the penalty of a chargeback or refund
	chargebackID, retrievalID, penaltyID int64
}

// extra returns t's rarely set fields, zero when none was set.
func (t *txn) extra() txnExtra {
	if t.x == nil {
		return txnExtra{}
	}
	return *t.x
}

// reason is why t failed, or a refund's comment; empty for most.
func (t *txn) reason() string {
	if t.x == nil {
		return ""
	}
	return t.x.reason
}

// more returns t's rarely set fields to be set, made on first use.
func (t *txn) more() *txnExtra {
	if t.x == nil {
		t.x = new(txnExtra)
	}
	return t.x
}

// fee is the merchant's fee of t: a payment's (see fee), none for any other
// type. It is worked out when asked for rather than kept: a kept
// transaction is smaller without it.
func (t *txn) fee() decimal.Decimal {
	if t.typ == paygate.TypePayment {
		return fee(t.price)
	}
	return decimal.Zero
}

// effectiveStatus is the status including later effects of other
// transactions: a fully reversed payment reads refunded (basic: reversed).
func (t *txn) effectiveStatus() paygate.Status {
	if t.x != nil && t.x.reversedTo != "" {
		return t.x.reversedTo
	}
	return t.status
}

// newTxn makes a transaction, dropping the oldest beyond the retention.
func (st *state) newTxn(p *Project, typ paygate.TransactionType, now time.Time) *txn {
	return st.makeTxn(p, typ, now, nil)
}

// followTxn makes a transaction that follows ref (a refund, a chargeback,
// a retrieval, a penalty). ref is never dropped to make room for it: the
// caller goes on with ref, and the answer and the callbacks name it.
func (st *state) followTxn(ref *txn, typ paygate.TransactionType, now time.Time) *txn {
	return st.makeTxn(ref.project, typ, now, ref)
}

func (st *state) makeTxn(p *Project, typ paygate.TransactionType, now time.Time, keep *txn) *txn {
	st.makeRoom(keep)
	t := &txn{id: st.nextTxn, project: p, typ: typ, createdAt: now, updatedAt: now, status: paygate.StatusOpened}
	st.nextTxn++
	st.txns[t.id] = t
	st.appendOrder(t)
	return t
}

// lookupTxn finds a transaction of project p by id or, without an id, the
// latest with order id orderID that is not a refund, chargeback, retrieval
// or penalty (they carry the order id of the payment they follow, and a
// look-up by order id means the payment, whose status shows their effect).
func (st *state) lookupTxn(p *Project, id, orderID string) (*txn, *Error) {
	if id == "" && orderID == "" {
		return nil, errMerchantData("id or order_id")
	}
	if id != "" {
		n, err := strconv.ParseInt(id, 10, 64)
		t := st.txns[n]
		if err != nil || t == nil || t.project != p {
			return nil, NewError(paygate.CodeTransactionNotFound, "")
		}
		return t, nil
	}
	for t := st.newestOfOrder(p, orderID); t != nil; t = t.prevOrder {
		if !followsPayment[t.typ] {
			return t, nil
		}
	}
	return nil, NewError(paygate.CodeTransactionNotFound, "")
}

// followsPayment are the transaction types that take the order id of the
// payment they follow.
var followsPayment = map[paygate.TransactionType]bool{
	paygate.TypeRefund: true, paygate.TypeChargeback: true, paygate.TypeRetrieval: true, paygate.TypePenalty: true,
}

// newestOfOrder returns the newest of project p's transactions with
// orderID, or nil; each links to the one before it (prevOrder) and the one
// after it (nextOrder). A look-up walks from the newest, as far as it
// needs: one order id may be used for any number of charges. The index
// catches up with the transactions made since the last look-up: a
// transaction's order id is set in the same critical section that makes it
// and never changes, so every transaction a look-up can see is complete.
func (st *state) newestOfOrder(p *Project, orderID string) *txn {
	st.indexOrders()
	return st.orders[orderKey{p, orderID}]
}

// orderKey names the transactions of one order id of a project.
type orderKey struct {
	project *Project
	orderID string
}

// indexOrders adds the transactions made since the last call to the order
// id index.
func (st *state) indexOrders() {
	for _, t := range st.order[st.indexed:] {
		if t != nil && t.orderID != "" {
			k := orderKey{t.project, t.orderID}
			if prev := st.orders[k]; prev != nil {
				prev.nextOrder, t.prevOrder = t, prev
			}
			st.orders[k] = t
		}
	}
	st.indexed = len(st.order)
}

// addProject registers p, numbering it when it has no id.
func (st *state) addProject(p Project) {
	if p.ID == 0 {
		p.ID = len(st.projects) + 1
	}
	st.projects[p.Key] = &p
}

// maxShared bounds each table of values that transactions share: beyond
// it a value is kept as it came, unshared, so that the tables cost at most
// a few megabytes whatever the traffic.
const maxShared = 10000

// sameCard returns the copy of cd the server already holds, if any: the
// charges of one card, in tests mostly the few test cards, then share one
// record instead of keeping one each. The caller holds Server.mu.
func (st *state) sameCard(cd *cardData) *cardData {
	if c, ok := st.cards[*cd]; ok {
		return c
	}
	if len(st.cards) < maxShared {
		st.cards[*cd] = cd
	}
	return cd
}

// amountKey is an amount whose coefficient fits an int64, as a map key.
type amountKey struct {
	coefficient int64
	exponent    int32
}

// sameAmount returns the copy of d the server already holds, if any, so
// that transactions of one price share its digits. The caller holds
// Server.mu.
func (st *state) sameAmount(d decimal.Decimal) decimal.Decimal {
	if d.NumDigits() > 18 {
		return d
	}
	k := amountKey{d.CoefficientInt64(), d.Exponent()}
	if a, ok := st.amounts[k]; ok {
		return a
	}
	if len(st.amounts) < maxShared {
		st.amounts[k] = d
	}
	return d
}

// drop forgets t and everything indexed by it: its id, its place among
// the transactions of its order id, its 3-D Secure merchant data and its
// callbacks.
func (st *state) drop(t *txn) {
	st.dropped++
	delete(st.txns, t.id)
	delete(st.processing, t.id)
	st.kept.remove(t.project)
	if t.orderID != "" {
		st.unlinkOrder(t)
	}
	if md := t.extra().md; md != "" && st.byMD[md] == t {
		delete(st.byMD, md)
	}
	st.log.forget(t)
}

// unlinkOrder takes t out of the index by order id, in O(1) however many
// transactions share its order id: its neighbours link past it, and the
// entry moves to the one before it when t is the newest.
func (st *state) unlinkOrder(t *txn) {
	if t.prevOrder != nil {
		t.prevOrder.nextOrder = t.nextOrder
	}
	if t.nextOrder != nil {
		t.nextOrder.prevOrder = t.prevOrder
	} else if k := (orderKey{t.project, t.orderID}); t.prevOrder != nil {
		st.orders[k] = t.prevOrder
	} else {
		delete(st.orders, k)
	}
	t.prevOrder, t.nextOrder = nil, nil
}

// inFlight reports whether t may still change by itself or through the
// payer, or has a callback still being sent: such a transaction is never
// dropped.
func (t *txn) inFlight() bool {
	switch t.status {
	case paygate.StatusOpened, paygate.StatusAuthenticating, paygate.StatusProcessing, paygate.StatusWaitingApproval:
		return true
	}
	return t.sending.Load() > 0
}

// cardData is a card the sandbox holds. The number never leaves the
// sandbox: responses carry only its mask and last four digits.
type cardData struct {
	number string
	month  int
	year   int
	holder string
}

// token is a temporary (single use, 10 minutes) or permanent card token.
type token struct {
	id        string
	project   *Project
	card      *cardData
	expiresAt time.Time
	used      bool
	permanent bool
	pending   bool // permanent, of a charge still processing: not usable yet
}

// Bounds of temporary tokens, which anyone who knows a project key can
// make (card/getToken is unsigned): a token is forgotten an hour after it
// expired (it is then 40402 rather than 40304), and beyond
// maxTemporaryTokens the oldest is forgotten first.
const (
	maxTemporaryTokens = 100000
	expiredTokenMemory = time.Hour
)

func (st *state) newToken(p *Project, cd *cardData, permanent bool) *token {
	prefix := "tmp_"
	if permanent {
		prefix = "perm_"
	}
	t := &token{id: fmt.Sprintf("%s%016d", prefix, st.nextToken), project: p, card: cd, permanent: permanent}
	st.nextToken++
	st.tokens[t.id] = t
	return t
}

// forgetTokens drops the temporary tokens that expired over an hour ago,
// and the oldest beyond maxTemporaryTokens - 1, making room for one more.
// Tokens are made in expiry order, so the oldest are at the front; the
// queue is compacted once half of it is dropped, so each token costs O(1).
func (st *state) forgetTokens(now time.Time) {
	q := st.temporary
	for st.tempHead < len(q) {
		t := q[st.tempHead]
		if len(q)-st.tempHead < cmp.Or(st.maxTokens, maxTemporaryTokens) && now.Before(t.expiresAt.Add(expiredTokenMemory)) {
			break
		}
		delete(st.tokens, t.id)
		q[st.tempHead] = nil
		st.tempHead++
	}
	if st.tempHead > len(q)/2 {
		st.temporary = append(q[:0:0], q[st.tempHead:]...)
		st.tempHead = 0
	}
}

// useToken consumes a temporary token or reads a permanent one: 40402 when
// unknown (or permanent but its charge has not completed), 40305 when
// already used, 40304 when expired.
func (st *state) useToken(p *Project, id string, now time.Time) (*cardData, *Error) {
	t := st.tokens[id]
	switch {
	case t == nil || t.project != p || t.pending:
		return nil, NewError(paygate.CodeCardTokenInvalid, "")
	case t.permanent:
		return t.card, nil
	case t.used:
		return nil, NewError(paygate.CodeCardTokenUsed, "")
	case now.After(t.expiresAt):
		return nil, NewError(paygate.CodeCardTokenExpired, "")
	}
	t.used = true
	return t.card, nil
}

// user is a user of a project.
type user struct {
	id          string
	project     *Project
	identifier  string
	displayName string
	email       string
	phone       string
	ip          string
	locale      string
}

type userInput struct {
	identifier, displayName, email, phone, ip, locale string
}

// resolveUser returns the project's user with in.identifier, creating it if
// needed; fields given anew fill fields still empty.
func (st *state) resolveUser(p *Project, in userInput) *user {
	key := p.Key + "\x00" + in.identifier
	u := st.identifiers[key]
	if u == nil {
		u = &user{id: strconv.FormatInt(st.nextUser, 10), project: p, identifier: strings.Clone(in.identifier)}
		st.nextUser++
		st.identifiers[key] = u
		st.users[u.id] = u
	}
	fill := func(dst *string, v string) {
		if *dst == "" {
			*dst = strings.Clone(v)
		}
	}
	fill(&u.displayName, in.displayName)
	fill(&u.email, in.email)
	fill(&u.phone, in.phone)
	fill(&u.ip, in.ip)
	fill(&u.locale, in.locale)
	return u
}

// lookupUser finds the project's user by internal id: 40002 when id is
// empty, 40406 when unknown.
func (st *state) lookupUser(p *Project, id string) (*user, *Error) {
	if id == "" {
		return nil, NewError(paygate.CodeUserIdentifierMissing, "")
	}
	u := st.users[id]
	if u == nil || u.project != p {
		return nil, NewError(paygate.CodeUserNotFound, "")
	}
	return u, nil
}

// credit moves the project's balance in currency by d (negative to debit).
func (st *state) credit(p *Project, currency string, d decimal.Decimal) {
	m := st.balances[p.Key]
	if m == nil {
		m = make(map[string]decimal.Decimal)
		st.balances[p.Key] = m
	}
	m[currency] = m[currency].Add(d)
}

// subscription is a user's subscription to recurring payments, started by
// a charge with recurring=1.
//
// With an interval above 0 the sandbox charges the subscription by itself
// every interval days (the first time after the trial, if longer), when
// its clock is advanced past the date: a payment referencing the charge
// that started it, with that charge's price and order id (or the price set
// by user/changeRecurring; a subscription started by a verification
// charges only once a price is set).
//
// Manual charges (card/processRecurring) come on top, "outside the
// interval": neither the subscribing charge nor the trial holds them back,
// and only two manual charges closer than frequency days apart are 40502.
// The frequency is the interval; 0 (manual recurring only) sets no
// minimum.
type subscription struct {
	user        *user
	card        *cardData
	referenceID int64 // the charge that started it
	orderID     string
	interval    int // days between automatic charges, and between manual ones at least
	price       decimal.Decimal
	currency    string
	lastManual  time.Time // of the last successful manual charge; zero: none yet
	nextAuto    time.Time // of an automatic charge, when interval > 0
	endsAt      time.Time
	cancelled   bool
}

// frequency is the Recurring object's frequency: the least number of days
// between manual charges.
func (sub *subscription) frequency() int { return sub.interval }

// subscribe starts (or restarts) the subscription of t's user.
func (st *state) subscribe(t *txn, now time.Time) {
	x := t.extra()
	sub := &subscription{
		user: t.user, card: t.card, referenceID: t.id, orderID: t.orderID, interval: x.recurInterval,
		price: t.price, currency: t.currency,
		nextAuto: addDays(now, max(x.recurTrial, x.recurInterval)),
		endsAt:   now.Add(recurringLifetime),
	}
	if t.typ == paygate.TypeVerification {
		sub.price, sub.currency = decimal.Zero, ""
	}
	st.recurring[t.user.id] = sub
}

// statusChange is one entry of a transaction's history.
type statusChange struct {
	Status paygate.Status
	At     time.Time
	// By is the transaction whose effect this is (a chargeback making a
	// payment charged_back); 0 for the transaction's own changes.
	By int64
}

// noteEffect records in t's history a status that another transaction,
// by, gave it.
func (t *txn) noteEffect(status paygate.Status, by *txn) {
	t.keepLastChange()
	x := t.more()
	x.earlier = append(x.earlier, statusChange{Status: status, At: by.createdAt, By: by.id})
}

// history is every status change of t, oldest first. Its own last change
// is its status and updatedAt, so it is kept in the list of earlier ones
// only once something follows it: a transaction that changed once, as most
// do, keeps no list at all.
func (t *txn) history() []statusChange {
	earlier := t.extra().earlier
	if t.lastKept || t.status == paygate.StatusOpened {
		return earlier
	}
	return append(slices.Clip(earlier), statusChange{Status: t.status, At: t.updatedAt})
}

// keepLastChange adds t's own last change to the earlier ones before
// something follows it.
func (t *txn) keepLastChange() {
	if !t.lastKept && t.status != paygate.StatusOpened {
		x := t.more()
		x.earlier = append(x.earlier, statusChange{Status: t.status, At: t.updatedAt})
	}
	t.lastKept = true
}

// fee is the sandbox's merchant fee: 2.9% of the price, to 4 decimals.
func fee(price decimal.Decimal) decimal.Decimal {
	return price.Mul(decimal.RequireFromString("0.029")).Round(4)
}

func userID(u *user) string {
	if u == nil {
		return ""
	}
	return u.id
}

// transition applies status to t with its effects: the balance moves, a
// remembered card or a recurring subscription comes into being, a
// processing transaction is scheduled to settle, and a callback is sent.
// The caller holds s.mu.
func (s *Server) transition(t *txn, status paygate.Status) {
	if t.typ == paygate.TypeVerification && status == paygate.StatusCompleted {
		status = paygate.StatusVerified
	}
	t.keepLastChange()
	t.status, t.updatedAt, t.lastKept = status, s.clock.Now(), false
	if status == paygate.StatusProcessing {
		s.st.processing[t.id] = t
	} else {
		delete(s.st.processing, t.id)
	}
	if t.pinned {
		s.st.log.release(t) // it may have left flight: makeRoom looks again
	}
	switch {
	case status == paygate.StatusCompleted && (t.typ == paygate.TypePayment):
		s.st.credit(t.project, t.currency, t.price.Sub(t.fee()))
	case payoutReturns(status) && t.typ == paygate.TypePayout:
		s.st.credit(t.project, t.currency, t.price) // the reserved amount returns
	}
	switch status {
	case paygate.StatusCompleted, paygate.StatusVerified, paygate.StatusProcessing:
		s.applyCardEffects(t)
	case paygate.StatusFailed, paygate.StatusCancelled, paygate.StatusAbandoned:
		s.dropSubscription(t)
		s.dropPendingToken(t)
	}
	if status == paygate.StatusProcessing {
		s.schedule(t)
	}
	if cb := callbackStatus(t); cb != "" {
		s.notify(t, cb)
	}
}

// applyCardEffects issues the permanent token and the recurring
// subscription a successful (or processing) charge asked for, once. The
// token of a processing charge is answered at once, as the gateway does,
// but charges nothing until the charge completes (see dropPendingToken).
func (s *Server) applyCardEffects(t *txn) {
	if t.card == nil || t.method != "card" {
		return
	}
	x := t.extra()
	if x.remember && x.permanentToken == "" {
		t.more().permanentToken = s.st.newToken(t.project, t.card, true).id
	}
	if tok := s.st.tokens[t.extra().permanentToken]; tok != nil {
		tok.pending = t.status == paygate.StatusProcessing
	}
	if x.recurring && !x.subscribed && t.user != nil {
		t.more().subscribed = true
		s.st.subscribe(t, s.clock.Now())
	}
}

// dropSubscription forgets the subscription that t started while it was
// processing: a charge that ends unpaid subscribes nobody, and no
// automatic payment may follow it.
func (s *Server) dropSubscription(t *txn) {
	if !t.extra().subscribed || t.user == nil {
		return
	}
	if sub := s.st.recurring[t.user.id]; sub != nil && sub.referenceID == t.id {
		delete(s.st.recurring, t.user.id)
	}
	t.more().subscribed = false
}

// dropPendingToken forgets the permanent token of a charge that ended
// unpaid while processing: a card is remembered only by a charge that went
// through, so the token is unknown from now on.
func (s *Server) dropPendingToken(t *txn) {
	if tok := s.st.tokens[t.extra().permanentToken]; tok != nil && tok.pending {
		delete(s.st.tokens, tok.id)
		t.more().permanentToken = ""
	}
}

// schedule settles t after the processing delay. The caller holds s.mu.
func (s *Server) schedule(t *txn) {
	if s.isClosed() || s.processingDelay <= 0 {
		return
	}
	id := t.id
	s.timer[id] = time.AfterFunc(s.processingDelay, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.isClosed() {
			return
		}
		if t := s.st.txns[id]; t != nil {
			s.settle(t)
		}
	})
}

// isClosed reports whether Close has begun: timers and clock moves that
// fire after it change nothing.
func (s *Server) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// clockAdvanced runs after the clock moved: processing transactions settle
// and due recurring payments are made, a batch at a time (see
// chargeDueRecurring).
func (s *Server) clockAdvanced() {
	s.mu.Lock()
	if s.isClosed() {
		s.mu.Unlock()
		return
	}
	s.settleLocked()
	s.mu.Unlock()
	s.chargeDueRecurring()
}

// settleAll settles every processing transaction now.
func (s *Server) settleAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleLocked()
}

func (s *Server) settleLocked() {
	s.settleWhere(func(*txn) bool { return true })
}

// settleWhere settles the processing transactions that match, oldest
// first. It looks at those processing only, so that a clock move costs
// the same however many transactions the server keeps.
func (s *Server) settleWhere(match func(*txn) bool) {
	due := make([]*txn, 0, len(s.st.processing))
	for _, t := range s.st.processing {
		if match(t) {
			due = append(due, t)
		}
	}
	slices.SortFunc(due, func(a, b *txn) int { return cmp.Compare(a.id, b.id) })
	for _, t := range due {
		s.settle(t)
	}
}

// settle moves a processing transaction to its final status: a payout to
// the declined test card fails, everything else completes.
func (s *Server) settle(t *txn) {
	if t.status != paygate.StatusProcessing {
		return
	}
	s.stopTimer(t)
	if t.typ == paygate.TypePayout && t.card != nil && t.card.number == CardDeclined {
		t.more().reason = "payout declined by the card issuer"
		s.transition(t, paygate.StatusFailed)
		return
	}
	s.transition(t, paygate.StatusCompleted)
}

// callbackStatus is the callback status of t's current status, or "" when
// the status has none (opened, authenticating). notify leaves out the ones
// the basic form does not send.
func callbackStatus(t *txn) callback.Status {
	for cb, when := range sentCallbacks {
		if when.sentBy(t) {
			return cb // no two rows name the same change
		}
	}
	return ""
}

// sentCallback says which changes send one callback status: a row of
// sentCallbacks.
type sentCallback struct {
	// payment and payout are the statuses of a payment (or verification)
	// and of a payout that send it, if any.
	payment, payout paygate.Status
	// completed is the type of the transaction (a refund or a dispute)
	// whose completion sends it, if any.
	completed paygate.TransactionType
	// basic is set when the basic form sends it too.
	basic bool
}

// sentBy reports whether t's change to its current status sends the
// callback.
func (w sentCallback) sentBy(t *txn) bool {
	switch t.typ {
	case paygate.TypePayout:
		return w.payout != "" && w.payout == t.status
	case paygate.TypeRefund, paygate.TypeChargeback, paygate.TypeRetrieval, paygate.TypePenalty:
		return w.completed == t.typ && t.status == paygate.StatusCompleted
	}
	return w.payment != "" && w.payment == t.status
}

// sentCallbacks is the one table of the callbacks the sandbox sends: a row
// for every callback status of the spec (TestSentCallbacks_EveryStatusHasARow
// keeps it so), with the changes that send it.
var sentCallbacks = map[callback.Status]sentCallback{
	callback.Completed:       {payment: paygate.StatusCompleted, basic: true},
	callback.WaitingApproval: {payment: paygate.StatusWaitingApproval, payout: paygate.StatusWaitingApproval},
	callback.Processing:      {payment: paygate.StatusProcessing, payout: paygate.StatusProcessing},
	callback.Failed:          {payment: paygate.StatusFailed, basic: true},
	callback.Verified:        {payment: paygate.StatusVerified, basic: true},
	// Sent by the basic form's whole refund, which makes no refund
	// transaction (see reverse), not by a status change.
	callback.Reversed:            {basic: true},
	callback.RefundCompleted:     {completed: paygate.TypeRefund, basic: true},
	callback.ChargebackCompleted: {completed: paygate.TypeChargeback, basic: true},
	callback.RetrievalCompleted:  {completed: paygate.TypeRetrieval, basic: true},
	callback.PenaltyCompleted:    {completed: paygate.TypePenalty, basic: true},
	callback.PayoutCompleted:     {payout: paygate.StatusCompleted},
	callback.PayoutFailed:        {payout: paygate.StatusFailed},
	callback.PayoutCancelled:     {payout: paygate.StatusCancelled},
	callback.PayoutAbandoned:     {payout: paygate.StatusAbandoned},
}

// payoutReturns reports whether a payout taking status gives its amount
// back to the balance.
func payoutReturns(status paygate.Status) bool {
	switch status {
	case paygate.StatusFailed, paygate.StatusCancelled, paygate.StatusAbandoned:
		return true
	}
	return false
}
