package paygatetest

// resetProject forgets what project key made (its users, tokens,
// transactions, subscriptions, balances and pending faults) as Reset does
// for the whole server; the other projects keep theirs, and ids keep
// counting.
func (s *Server) resetProject(key string) {
	s.faults.resetProject(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	kept := st.order[:0:0]
	for _, t := range st.order {
		if t.project.Key != key {
			kept = append(kept, t)
			continue
		}
		s.stopTimer(t)
		delete(st.txns, t.id)
		if t.md != "" {
			delete(st.byMD, t.md)
		}
	}
	// The order-id index is rebuilt from what is kept, on the next look-up.
	st.order, st.orders, st.indexed = kept, make(map[string][]*txn), 0
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
