package paygatetest

import (
	"strconv"
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
	order       []*txn            // in creation order
	orders      map[string][]*txn // by project key + "\x00" + order id, in creation order; see byOrderID
	indexed     int               // how much of order is in orders
	byMD        map[string]*txn   // 3-D Secure merchant data to payment
	balances    map[string]map[string]decimal.Decimal
	recurring   map[string]*subscription // by internal user id
}

func newState() *state {
	return &state{
		projects:    make(map[string]*Project),
		nextTxn:     firstTransactionID,
		nextUser:    1,
		nextToken:   1,
		users:       make(map[string]*user),
		identifiers: make(map[string]*user),
		tokens:      make(map[string]*token),
		txns:        make(map[int64]*txn),
		orders:      make(map[string][]*txn),
		byMD:        make(map[string]*txn),
		balances:    make(map[string]map[string]decimal.Decimal),
		recurring:   make(map[string]*subscription),
	}
}

// txn is a transaction of any type.
type txn struct {
	id          int64
	project     *Project
	orderID     string
	referenceID int64
	price       decimal.Decimal
	fee         decimal.Decimal
	currency    string
	typ         paygate.TransactionType
	method      string
	status      paygate.Status // the last status applied to the transaction itself
	reason      string
	createdAt   time.Time
	updatedAt   time.Time
	user        *user
	card        *cardData
	attrs       map[string]string
	reversed    decimal.Decimal // sum of reversals of a payment
	reversedTo  paygate.Status  // refunded or (basic form) reversed, once fully reversed

	// card payments
	md             string
	remember       bool
	recurring      bool
	recurInterval  int
	recurTrial     int
	permanentToken string
	subscribed     bool
	threeDSOutcome paygate.Status // the status the payment takes after the ACS

	// alternative-method payments
	successURL, failURL string
	confirmTokens       []string // of the confirm forms served and not used, oldest first

	// disputes (see events.go): the chargeback of a payment, the retrieval
	// of a chargeback, the penalty of a chargeback or refund
	chargebackID, retrievalID, penaltyID int64
	// history is every status change, oldest first, for the dashboard
	history []statusChange
}

// effectiveStatus is the status including later effects of other
// transactions: a fully reversed payment reads refunded (basic: reversed).
func (t *txn) effectiveStatus() paygate.Status {
	if t.reversedTo != "" {
		return t.reversedTo
	}
	return t.status
}

func (s *state) newTxn(p *Project, typ paygate.TransactionType, now time.Time) *txn {
	t := &txn{id: s.nextTxn, project: p, typ: typ, createdAt: now, updatedAt: now, status: paygate.StatusOpened}
	s.nextTxn++
	s.txns[t.id] = t
	s.order = append(s.order, t)
	return t
}

// lookupTxn finds a transaction of project p by id or, without an id, the
// latest with order id orderID that is not a refund, chargeback, retrieval
// or penalty (they carry the order id of the payment they follow, and a
// look-up by order id means the payment, whose status shows their effect).
func (s *state) lookupTxn(p *Project, id, orderID string) (*txn, *apiError) {
	if id == "" && orderID == "" {
		return nil, errMerchantData("id or order_id")
	}
	if id != "" {
		n, err := strconv.ParseInt(id, 10, 64)
		t := s.txns[n]
		if err != nil || t == nil || t.project != p {
			return nil, newError(paygate.CodeTransactionNotFound, "")
		}
		return t, nil
	}
	list := s.byOrderID(p, orderID)
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
// The index catches up with the transactions made since the last look-up:
// a transaction's order id is set in the same critical section that makes
// it and never changes, so every transaction a look-up can see is
// complete.
func (s *state) byOrderID(p *Project, orderID string) []*txn {
	for _, t := range s.order[s.indexed:] {
		if t.orderID != "" {
			k := t.project.Key + "\x00" + t.orderID
			s.orders[k] = append(s.orders[k], t)
		}
	}
	s.indexed = len(s.order)
	return s.orders[p.Key+"\x00"+orderID]
}

func idString(n int64) string { return strconv.FormatInt(n, 10) }

// addProject registers p, numbering it when it has no id.
func (s *state) addProject(p Project) {
	if p.ID == 0 {
		p.ID = len(s.projects) + 1
	}
	s.projects[p.Key] = &p
}
