package paygatetest

// Reset forgets every user, token, transaction, subscription and balance,
// and every pending fault, as if the server had just started; its
// projects, their settings and the clock stay. Transaction and user ids
// keep counting, so that the delivery log, which stays, never names two
// transactions with one id.
func (s *Server) Reset() {
	s.faults.reset()
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, t := range s.timer {
		t.Stop()
		delete(s.timer, id)
	}
	fresh := newState(s.st.retention, s.st.log)
	fresh.projects, fresh.maxTokens = s.st.projects, s.st.maxTokens
	fresh.nextTxn, fresh.nextUser, fresh.nextToken = s.st.nextTxn, s.st.nextUser, s.st.nextToken
	s.st = fresh
}

// ResetProject forgets what the project with public key key made (its
// users, tokens, transactions, subscriptions, balances and pending faults)
// as Reset does for the whole server, with its callbacks; the other
// projects keep theirs, and ids keep counting, so that the delivery log,
// which stays, never names two transactions with one id. An unknown key
// changes nothing.
func (s *Server) ResetProject(key string) {
	s.faults.resetProject(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	st.indexOrders() // drop unlinks from the index by order id
	for i, t := range st.order {
		if t == nil || t.project.Key != key {
			continue
		}
		s.stopTimer(t)
		st.drop(t)
		st.order[i] = nil
		st.holes++
	}
	for st.head < len(st.order) && st.order[st.head] == nil {
		st.head++
	}
	st.compactOrder()
	st.rebuildIndexes()
	for id, u := range st.users {
		if u.project.Key == key {
			delete(st.users, id)
		}
	}
	for k, u := range st.identifiers {
		if u.project.Key == key {
			delete(st.identifiers, k)
		}
	}
	for id, t := range st.tokens {
		if t.project.Key == key {
			delete(st.tokens, id)
		}
	}
	for id, sub := range st.recurring {
		if sub.user.project.Key == key {
			delete(st.recurring, id)
		}
	}
	delete(st.balances, key)
}
