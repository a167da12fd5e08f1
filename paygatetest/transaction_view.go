package paygatetest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/paygate/paygate-go"
)

// Transaction is a transaction as the sandbox held it when it was read: a
// copy, so that a test or a page reads it without holding the server. Its
// JSON is that of GET transactions/{id} (the listing's fields) with every
// id a JSON string: a 19-digit id is beyond what a JavaScript number (a
// float64) holds, and a test in JavaScript reads the control plane with
// JSON.parse, so every id in every /sandbox/ answer is a string; the /v1
// answers keep the gateway's numbers, which clients of the gateway must
// read anyway.
type Transaction struct {
	ID paygate.ID
	// ReferenceID is the transaction this one refers to (a refund's
	// payment, a chargeback's payment); 0 for none.
	ReferenceID paygate.ID
	ProjectKey  string
	// Type is as the project's form names it: the basic form calls a
	// payment from a user a deposit.
	Type paygate.TransactionType
	// Status includes the later effects (a charged-back payment), as GET
	// transactions of the API shows it; OriginalStatus is its own.
	Status, OriginalStatus paygate.Status
	OrderID                string
	CreatedAt              time.Time
	// Events are those that apply to the transaction now, in Events order.
	Events []Event

	fields map[string]any
}

// MarshalJSON is the control plane's JSON of t (see Transaction).
func (t Transaction) MarshalJSON() ([]byte, error) { return json.Marshal(t.fields) }

// newTransaction copies t; the caller holds s.mu.
func (s *Server) newTransaction(t *txn) Transaction {
	fields := transactionFields(t, true)
	fields["id"] = idString(t.id)
	if t.referenceID != 0 {
		fields["referenceId"] = idString(t.referenceID)
	}
	return Transaction{
		ID: paygate.ID(t.id), ReferenceID: paygate.ID(t.referenceID), ProjectKey: t.project.Key,
		Type: wireType(t), Status: t.effectiveStatus(), OriginalStatus: t.status, OrderID: t.orderID,
		CreatedAt: t.createdAt, Events: s.applicableEvents(t), fields: fields,
	}
}

// TransactionFilter selects transactions for TransactionsPage; a zero
// field selects every transaction.
type TransactionFilter struct {
	// Status is the status including later effects (Transaction.Status).
	Status string
	// Type matches the sandbox's type or the one the project's form names.
	Type    string
	OrderID string
	// From and To bound the creation time, both inclusive.
	From, To time.Time
}

func (f TransactionFilter) matches(t *txn) bool {
	return (f.Status == "" || string(t.effectiveStatus()) == f.Status) &&
		(f.Type == "" || string(t.typ) == f.Type || string(wireType(t)) == f.Type) &&
		(f.OrderID == "" || t.orderID == f.OrderID) &&
		within(t.createdAt, f.From, f.To)
}

// Transaction is transaction id of the project with public key key, as it
// stands now; false when that project has no such transaction (kept).
func (s *Server) Transaction(key string, id paygate.ID) (Transaction, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.st.txns[int64(id)]
	if t == nil || t.project.Key != key {
		return Transaction{}, false
	}
	return s.newTransaction(t), true
}

// TransactionsPage is a page of the transactions of the project with
// public key key that match f, newest first: at most n of those older than
// transaction before (an id; 0 for none), skip of them left out first.
// total counts every match, before aside; more reports that matches follow
// the page.
func (s *Server) TransactionsPage(key string, f TransactionFilter, before paygate.ID, skip, n int) (page []Transaction, total int, more bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	page = []Transaction{}
	for i := len(s.st.order) - 1; i >= s.st.head; i-- {
		t := s.st.order[i]
		if t == nil || t.project.Key != key || !f.matches(t) {
			continue
		}
		total++
		if before != 0 && t.id >= int64(before) {
			continue
		}
		switch {
		case skip > 0:
			skip--
		case len(page) < n:
			page = append(page, s.newTransaction(t))
		default:
			more = true
		}
	}
	return page, total, more
}

// TriggerProject is Trigger for a transaction of the project with public
// key key only (another project's is ErrTransactionNotFound); it returns
// the transaction the event made, or the transaction itself when it made
// none, as it stands after the event.
func (s *Server) TriggerProject(key string, id paygate.ID, e Event) (Transaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.st.txns[int64(id)]; t == nil || t.project.Key != key {
		return Transaction{}, fmt.Errorf("%w: %d", ErrTransactionNotFound, id)
	}
	t, err := s.triggerLocked(int64(id), e)
	if err != nil {
		return Transaction{}, err
	}
	return s.newTransaction(t), nil
}
