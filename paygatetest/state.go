package paygatetest

import (
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
)

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
	order       []*txn            // in creation order; nil where one was dropped (see makeRoom)
	head, holes int               // order's first index that may be kept; how many nils it holds
	dropped     int               // transactions dropped since the maps were last rebuilt; see rebuildIndexes
	retention   int               // of transactions kept; see WithRetention
	log         *deliveryLog      // drops the callbacks of dropped transactions
	orders      map[orderKey]*txn // the newest of each; see byOrderID
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
	prevOrder *txn      // the one before it with the same project and order id; see byOrderID
	x         *txnExtra // what only some transactions have, set later; see extra and more

	// the callbacks of the transaction in the delivery log, which guards
	// firstSeq and callbacks: the seq of the first, how many the log holds
	firstSeq  int
	callbacks uint16
	lastKept  bool         // see history; here, where it takes no room of its own
	sending   atomic.Int32 // callbacks not done, which keep the transaction; see inFlight
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
	confirmTokens       []string // of the confirm forms served and not used, oldest first

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
	st.order = append(st.order, t)
	return t
}

// lookupTxn finds a transaction of project p by id or, without an id, the
// latest with order id orderID that is not a refund, chargeback, retrieval
// or penalty (they carry the order id of the payment they follow, and a
// look-up by order id means the payment, whose status shows their effect).
func (st *state) lookupTxn(p *Project, id, orderID string) (*txn, *apiError) {
	if id == "" && orderID == "" {
		return nil, errMerchantData("id or order_id")
	}
	if id != "" {
		n, err := strconv.ParseInt(id, 10, 64)
		t := st.txns[n]
		if err != nil || t == nil || t.project != p {
			return nil, newError(paygate.CodeTransactionNotFound, "")
		}
		return t, nil
	}
	list := st.byOrderID(p, orderID)
	for i := len(list) - 1; i >= 0; i-- {
		if t := list[i]; !followsPayment[t.typ] {
			return t, nil
		}
	}
	return nil, newError(paygate.CodeTransactionNotFound, "")
}

// followsPayment are the transaction types that take the order id of the
// payment they follow.
var followsPayment = map[paygate.TransactionType]bool{
	paygate.TypeRefund: true, paygate.TypeChargeback: true, paygate.TypeRetrieval: true, paygate.TypePenalty: true,
}

// byOrderID returns project p's transactions with orderID, oldest first.
// The index holds the newest, each linked to the one before (prevOrder):
// one map entry per order id, and no list to keep. It catches up with the
// transactions made since the last look-up: a transaction's order id is
// set in the same critical section that makes it and never changes, so
// every transaction a look-up can see is complete.
func (st *state) byOrderID(p *Project, orderID string) []*txn {
	st.indexOrders()
	var list []*txn
	for t := st.orders[orderKey{p, orderID}]; t != nil; t = t.prevOrder {
		list = append(list, t)
	}
	slices.Reverse(list)
	return list
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
			t.prevOrder, st.orders[k] = st.orders[k], t
		}
	}
	st.indexed = len(st.order)
}

// keep is get for a value the sandbox keeps: a string of its own, since
// the parsed value may share the memory of the whole request body.
func (c *call) keep(name string) string { return strings.Clone(c.get(name)) }

func idString(n int64) string { return strconv.FormatInt(n, 10) }

// addProject registers p, numbering it when it has no id.
func (st *state) addProject(p Project) {
	if p.ID == 0 {
		p.ID = len(st.projects) + 1
	}
	st.projects[p.Key] = &p
}
