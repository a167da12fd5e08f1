package paygatetest

// resetProject forgets what project key made (its users, tokens,
// transactions, subscriptions, balances and pending faults) as Reset does
// for the whole server, with its callbacks; the other projects keep
// theirs, and ids keep counting.
func (s *Server) resetProject(key string) {
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
