package paygatetest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/paygate/paygate-go"
)

// snapshot copies what the state file keeps. It holds s.mu, then the
// delivery log's lock, as every change of the state does, so that the
// copy is of one moment.
func (s *Server) snapshot() savedState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	out := savedState{
		Version: stateVersion, SavedAt: time.Now().UTC(), Clock: s.clock.saved(),
		NextTxn: st.nextTxn, NextUser: st.nextUser, NextToken: st.nextToken,
		Users: make([]savedUser, 0, len(st.users)), Tokens: make([]savedToken, 0, len(st.tokens)),
		Transactions: make([]savedTxn, 0, len(st.txns)), Subscriptions: make([]savedSubscription, 0, len(st.recurring)),
		Balances: st.balances,
	}
	for _, u := range st.users {
		out.Users = append(out.Users, savedUser{ID: u.id, Project: u.project.Key, Identifier: u.identifier,
			DisplayName: u.displayName, Email: u.email, Phone: u.phone, IP: u.ip, Locale: u.locale})
	}
	slices.SortFunc(out.Users, func(a, b savedUser) int {
		return cmp.Or(cmp.Compare(len(a.ID), len(b.ID)), cmp.Compare(a.ID, b.ID))
	})
	for _, t := range st.tokens {
		out.Tokens = append(out.Tokens, savedToken{ID: t.id, Project: t.project.Key, Card: saveCard(t.card),
			ExpiresAt: t.expiresAt, Used: t.used, Permanent: t.permanent, Pending: t.pending})
	}
	slices.SortFunc(out.Tokens, func(a, b savedToken) int { return cmp.Compare(a.ID, b.ID) })
	for _, t := range st.order[st.head:] {
		if t != nil {
			out.Transactions = append(out.Transactions, saveTxn(t))
		}
	}
	for _, sub := range st.recurring {
		out.Subscriptions = append(out.Subscriptions, savedSubscription{User: sub.user.id, Card: saveCard(sub.card),
			ReferenceID: sub.referenceID, OrderID: sub.orderID, Interval: sub.interval, Price: sub.price,
			Currency: sub.currency, LastManual: sub.lastManual, NextAuto: sub.nextAuto, EndsAt: sub.endsAt,
			Cancelled: sub.cancelled})
	}
	slices.SortFunc(out.Subscriptions, func(a, b savedSubscription) int { return cmp.Compare(a.ReferenceID, b.ReferenceID) })
	l := s.deliveries.log
	l.mu.Lock()
	defer l.mu.Unlock()
	out.LastDelivery = l.lastSeq
	out.Deliveries = make([]savedDelivery, 0, len(l.list)-l.holes)
	for i := range l.list {
		if d := &l.list[i]; d.txn != nil {
			out.Deliveries = append(out.Deliveries, saveDelivery(d))
		}
	}
	return out
}

// saved is the clock as the state file keeps it.
func (c *Clock) saved() savedClock {
	now := c.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	return savedClock{Now: now, Offset: c.offset}
}

// restoreClock takes the saved clock back: a clock that follows real time
// takes its offset again (real time went on while the sandbox was down),
// a frozen one moves forward to the saved time if it is behind it.
func (c *Clock) restoreClock(saved savedClock) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.frozen {
		c.offset = max(saved.Offset, 0) // the clock never goes back
		return
	}
	if now := c.base.Add(c.offset); saved.Now.After(now) {
		c.offset += saved.Now.Sub(now)
	}
}

// restore replaces the state, which holds only the configured projects,
// by saved: every number in range (see persist_check.go), every name
// resolved (a project the configuration lacks, a user or transaction that
// is not in the file is an error). It runs before the server serves; on an
// error the server is not to be used. readState restores from the file
// itself the same way, record by record.
func (s *Server) restore(saved savedState) error {
	r := s.newRestorer()
	err := firstError(
		r.counter("next_transaction", saved.NextTxn), r.counter("next_user", saved.NextUser),
		r.counter("next_token", saved.NextToken), r.counter("last_delivery", int64(saved.LastDelivery)),
		r.clock(saved.Clock), r.balances(saved.Balances),
	)
	if err != nil {
		return err
	}
	for _, su := range saved.Users {
		if err := r.user(su); err != nil {
			return err
		}
	}
	for _, stok := range saved.Tokens {
		if err := r.token(stok); err != nil {
			return err
		}
	}
	for _, sx := range saved.Transactions {
		if err := r.txn(sx); err != nil {
			return err
		}
	}
	for _, ss := range saved.Subscriptions {
		if err := r.subscription(ss); err != nil {
			return err
		}
	}
	for _, sd := range saved.Deliveries {
		if err := r.delivery(sd); err != nil {
			return err
		}
	}
	r.commit()
	return nil
}

// restorer builds a state from the records of a state file, one at a
// time, in the order the file holds them (see stateFields): the counters
// before the records they number, users before what names them,
// transactions before their subscriptions and callbacks.
type restorer struct {
	s            *Server
	st           *state
	lastDelivery int
	saved        savedClock
	strs         map[string]string // see same
}

// same returns the copy of v restored before, if any: the values a
// running sandbox shares among transactions and callbacks (a type, a
// status, a currency, a callback URL) are shared again, rather than each
// record keeping a copy of its own from the file.
func (r *restorer) same(v string) string {
	if kept, ok := r.strs[v]; ok {
		return kept
	}
	r.strs[v] = v
	return v
}

// newRestorer starts a state with only the configured projects, and
// empties the delivery log.
func (s *Server) newRestorer() *restorer {
	st := newState(s.st.retention, s.st.log)
	st.projects, st.maxTokens = s.st.projects, s.st.maxTokens
	s.deliveries.log.reset()
	return &restorer{s: s, st: st, strs: make(map[string]string)}
}

// commit makes the restored state the server's.
func (r *restorer) commit() {
	l := r.s.deliveries.log
	l.mu.Lock()
	l.lastSeq = r.lastDelivery
	l.mu.Unlock()
	r.s.clock.restoreClock(r.saved)
	r.s.st = r.st
}

// project returns the configured project of key.
func (r *restorer) project(key string) (*Project, error) {
	if p := r.st.projects[key]; p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("it holds the state of project %q, which this sandbox does not serve (start it with that project)", key)
}

// counter sets the id counter of the state file's field.
func (r *restorer) counter(field string, v int64) error {
	switch field {
	case "next_transaction":
		r.st.nextTxn = v
		return checkInt(field, v, firstTransactionID, lastTransactionID)
	case "next_user":
		r.st.nextUser = v
		return checkInt(field, v, 1, maxCounter)
	case "next_token":
		r.st.nextToken = v
		return checkInt(field, v, 1, lastTokenNumber)
	}
	r.lastDelivery = int(v)
	return checkInt(field, v, 0, maxCounter)
}

func (r *restorer) clock(c savedClock) error {
	r.saved = c
	return c.check()
}

func (r *restorer) balances(saved map[string]map[string]decimal.Decimal) error {
	if err := checkBalances(saved); err != nil {
		return err
	}
	for key, m := range saved {
		if _, err := r.project(key); err != nil {
			return err
		}
		r.st.balances[key] = make(map[string]decimal.Decimal, len(m))
		for cur, v := range m {
			r.st.balances[key][cur] = v
		}
	}
	return nil
}

func (r *restorer) user(su savedUser) error {
	st := r.st
	p, err := r.project(su.Project)
	if err != nil {
		return err
	}
	if n, err := strconv.ParseInt(su.ID, 10, 64); err != nil || n < 1 || n >= st.nextUser || st.users[su.ID] != nil {
		return fmt.Errorf("user id %q is repeated, or no number below the next user id %d", su.ID, st.nextUser)
	}
	u := &user{id: su.ID, project: p, identifier: su.Identifier, displayName: su.DisplayName, email: su.Email,
		phone: su.Phone, ip: su.IP, locale: su.Locale}
	st.users[u.id] = u
	st.identifiers[p.Key+"\x00"+u.identifier] = u
	return nil
}

func (r *restorer) token(stok savedToken) error {
	st := r.st
	p, err := r.project(stok.Project)
	if err != nil {
		return err
	}
	if err := stok.check(); err != nil {
		return fmt.Errorf("token %q: %w", stok.ID, err)
	}
	if !stok.Card.valid() || !validTokenID(stok.ID, st.nextToken) || st.tokens[stok.ID] != nil {
		return fmt.Errorf("token %q is repeated, has no card number, or is no id below the next token number %d", stok.ID, st.nextToken)
	}
	t := &token{id: stok.ID, project: p, card: st.sameCard(stok.Card.card()), expiresAt: stok.ExpiresAt,
		used: stok.Used, permanent: stok.Permanent, pending: stok.Pending}
	st.tokens[t.id] = t
	if !t.permanent {
		st.temporary = append(st.temporary, t) // in the order they were made: the file sorts them by id
	}
	return nil
}

// txn adds a saved transaction.
func (r *restorer) txn(sx savedTxn) error {
	sx.Type, sx.Status = paygate.TransactionType(r.same(string(sx.Type))), paygate.Status(r.same(string(sx.Status)))
	sx.Method, sx.Currency = r.same(sx.Method), r.same(sx.Currency)
	if err := r.st.restoreTxn(sx, r.project); err != nil {
		return fmt.Errorf("transaction %d: %w", sx.ID, err)
	}
	return nil
}

func (r *restorer) subscription(ss savedSubscription) error {
	st := r.st
	if err := ss.check(st.nextTxn); err != nil {
		return fmt.Errorf("the subscription of transaction %d: %w", ss.ReferenceID, err)
	}
	u := st.users[ss.User]
	if u == nil || !ss.Card.valid() {
		return fmt.Errorf("the subscription of transaction %d names no user or card number", ss.ReferenceID)
	}
	// A subscription runs recurringLifetime from its start, and its
	// first automatic charge is after the start: a file that says
	// otherwise would make the sandbox charge for centuries.
	if ss.EndsAt.Sub(ss.NextAuto) > recurringLifetime {
		return fmt.Errorf("the subscription of transaction %d runs longer than %s", ss.ReferenceID, recurringLifetime)
	}
	st.recurring[u.id] = &subscription{user: u, card: st.sameCard(ss.Card.card()), referenceID: ss.ReferenceID,
		orderID: ss.OrderID, interval: ss.Interval, price: ss.Price, currency: ss.Currency,
		lastManual: ss.LastManual, nextAuto: ss.NextAuto, endsAt: ss.EndsAt, cancelled: ss.Cancelled}
	return nil
}

func (r *restorer) delivery(sd savedDelivery) error {
	if err := sd.check(r.lastDelivery); err != nil {
		return fmt.Errorf("delivery %d: %w", sd.Seq, err)
	}
	sd.URL = r.same(sd.URL)
	return r.s.deliveries.log.restore(sd, r.st.txns[sd.Transaction])
}

// restoreTxn adds a saved transaction to st.
func (st *state) restoreTxn(sx savedTxn, project func(string) (*Project, error)) error {
	if err := sx.check(st.nextTxn); err != nil {
		return err
	}
	p, err := project(sx.Project)
	if err != nil {
		return err
	}
	if st.txns[sx.ID] != nil {
		return errors.New("its id is repeated")
	}
	t := &txn{id: sx.ID, project: p, orderID: sx.OrderID, referenceID: sx.ReferenceID, price: st.sameAmount(sx.Price),
		currency: sx.Currency, typ: sx.Type, method: sx.Method, status: sx.Status, createdAt: sx.CreatedAt,
		updatedAt: sx.UpdatedAt, attrs: sx.Attrs, lastKept: sx.LastKept, x: sx.Extra.extra()}
	if sx.Card != nil {
		if !sx.Card.valid() {
			return errors.New("its card has no card number")
		}
		t.card = st.sameCard(sx.Card.card())
	}
	if sx.User != "" {
		if t.user = st.users[sx.User]; t.user == nil {
			return fmt.Errorf("it names user %s, who is not in the file", sx.User)
		}
	}
	if md := t.extra().md; md != "" {
		st.byMD[md] = t
	}
	st.txns[t.id] = t
	if t.status == paygate.StatusProcessing {
		st.processing[t.id] = t
	}
	st.appendOrder(t)
	return nil
}

// reset empties the log, before a restore.
func (l *deliveryLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list, l.holes, l.lastSeq = l.list[:0], 0, 0
	clear(l.retries)
	clear(l.kept)
}

// restore adds the saved callback sd of t (nil when the state holds no
// such transaction) after those restored before it. A callback that was
// queued or being sent when the state was saved is neither done nor
// scheduled: resume sends it again. The restorer sets the log's lastSeq
// once every callback is in.
func (l *deliveryLog) restore(sd savedDelivery, t *txn) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t == nil || (len(l.list) > 0 && sd.Seq <= l.list[len(l.list)-1].seq) {
		return fmt.Errorf("delivery %d names no kept transaction, or is out of order", sd.Seq)
	}
	d := delivery{seq: sd.Seq, prev: t.lastSeq, txn: t, url: sd.URL, status: l.status(sd.Status), reason: sd.Reason,
		attempts: sd.Attempts, automatic: sd.Automatic, delivered: sd.Delivered, done: true, givenUp: sd.GivenUp}
	if len(sd.History) > 0 {
		d.history = make([]attempt, len(sd.History))
		for i, a := range sd.History {
			d.history[i] = newAttempt(a.At, a.Status, nil, a.Manual)
			d.history[i].err = a.Error
		}
	}
	d.setNext(sd.NextAt)
	t.lastSeq = sd.Seq
	l.kept.add(t.project)
	l.list = append(l.list, d)
	l.setDone(&l.list[len(l.list)-1], sd.Done)
	if d.hasNext {
		l.retries[d.seq] = retry{seq: d.seq, target: d.url, at: d.nextAt()}
	}
	return nil
}

// resume restarts what was under way when the state was saved, once the
// server serves: processing transactions settle after the processing
// delay, callbacks that were queued are sent, retries are scheduled.
func (s *Server) resume() {
	s.mu.Lock()
	for _, t := range s.st.processing {
		s.schedule(t)
	}
	s.mu.Unlock()
	now := s.clock.Now()
	for _, d := range s.deliveries.log.records() {
		switch {
		case !d.done && !d.hasNext && d.url != "":
			s.deliveries.queue(job{seq: d.seq, target: d.url})
		case d.hasNext && s.clock.followsRealTime():
			s.deliveries.wakeAt(d.seq, d.nextAt().Sub(now))
		}
	}
	s.deliveries.retryDue()
}

// validTokenID reports whether id is a token id as newToken makes them,
// numbered below next, so that the tokens made after a restart never take
// an id the file holds.
func validTokenID(id string, next int64) bool {
	_, digits, ok := strings.Cut(id, "_")
	n, err := strconv.ParseInt(digits, 10, 64)
	return ok && err == nil && n >= 1 && n < next && (strings.HasPrefix(id, "tmp_") || strings.HasPrefix(id, "perm_"))
}
