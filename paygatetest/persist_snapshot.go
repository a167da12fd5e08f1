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
// by saved: every name in it must resolve (a project the configuration
// lacks, a user or transaction that is not in the file), else it is an
// error and nothing changed. It runs before the server serves.
func (s *Server) restore(saved savedState) error {
	st := newState(s.st.retention, s.st.log)
	st.projects, st.maxTokens = s.st.projects, s.st.maxTokens
	st.nextTxn, st.nextUser, st.nextToken = saved.NextTxn, saved.NextUser, saved.NextToken
	project := func(key string) (*Project, error) {
		if p := st.projects[key]; p != nil {
			return p, nil
		}
		return nil, fmt.Errorf("it holds the state of project %q, which this sandbox does not serve (start it with that project)", key)
	}
	for _, su := range saved.Users {
		p, err := project(su.Project)
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
	}
	for _, stok := range saved.Tokens {
		p, err := project(stok.Project)
		if err != nil {
			return err
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
	}
	for _, sx := range saved.Transactions {
		if err := st.restoreTxn(sx, project); err != nil {
			return fmt.Errorf("transaction %d: %w", sx.ID, err)
		}
	}
	for _, ss := range saved.Subscriptions {
		u := st.users[ss.User]
		if u == nil || !ss.Card.valid() {
			return fmt.Errorf("the subscription of transaction %d names no user or card number", ss.ReferenceID)
		}
		// A subscription runs recurringLifetime from its start, and its
		// first automatic charge is after the start: a file that says
		// otherwise would make the sandbox charge for centuries.
		if ss.Interval < 0 || ss.EndsAt.Sub(ss.NextAuto) > recurringLifetime {
			return fmt.Errorf("the subscription of transaction %d runs longer than %s", ss.ReferenceID, recurringLifetime)
		}
		st.recurring[u.id] = &subscription{user: u, card: st.sameCard(ss.Card.card()), referenceID: ss.ReferenceID,
			orderID: ss.OrderID, interval: ss.Interval, price: ss.Price, currency: ss.Currency,
			lastManual: ss.LastManual, nextAuto: ss.NextAuto, endsAt: ss.EndsAt, cancelled: ss.Cancelled}
	}
	for key, m := range saved.Balances {
		if _, err := project(key); err != nil {
			return err
		}
		st.balances[key] = make(map[string]decimal.Decimal, len(m))
		for cur, v := range m {
			st.balances[key][cur] = v
		}
	}
	if err := s.deliveries.log.restore(saved, st.txns); err != nil {
		return err
	}
	s.clock.restoreClock(saved.Clock)
	s.st = st
	return nil
}

// restoreTxn adds a saved transaction to st.
func (st *state) restoreTxn(sx savedTxn, project func(string) (*Project, error)) error {
	p, err := project(sx.Project)
	if err != nil {
		return err
	}
	if st.txns[sx.ID] != nil || sx.ID >= st.nextTxn {
		return fmt.Errorf("its id is repeated or beyond the next id %d", st.nextTxn)
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

// restore fills the empty log with the saved deliveries of txns. A
// callback that was queued or being sent when the state was saved is
// neither done nor scheduled: resume sends it again.
func (l *deliveryLog) restore(saved savedState, txns map[int64]*txn) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list, l.holes, l.lastSeq = l.list[:0], 0, saved.LastDelivery
	clear(l.retries)
	clear(l.kept)
	for _, sd := range saved.Deliveries {
		t := txns[sd.Transaction]
		if t == nil || sd.Seq > saved.LastDelivery || (len(l.list) > 0 && sd.Seq <= l.list[len(l.list)-1].seq) {
			return fmt.Errorf("delivery %d names no kept transaction, or is out of order", sd.Seq)
		}
		d := delivery{seq: sd.Seq, prev: t.lastSeq, txn: t, url: sd.URL, status: l.status(sd.Status), reason: sd.Reason,
			attempts: sd.Attempts, automatic: sd.Automatic, delivered: sd.Delivered, done: true, givenUp: sd.GivenUp}
		for _, a := range sd.History {
			d.history = append(d.history, newAttempt(a.At, a.Status, nil, a.Manual))
			d.history[len(d.history)-1].err = a.Error
		}
		d.setNext(sd.NextAt)
		t.lastSeq = sd.Seq
		l.kept.add(t.project)
		l.list = append(l.list, d)
		l.setDone(&l.list[len(l.list)-1], sd.Done)
		if d.hasNext {
			l.retries[d.seq] = retry{seq: d.seq, target: d.url, at: d.nextAt()}
		}
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
