package paygatetest

import (
	"net/url"
	"strings"
	"time"
)

// redeliverWait bounds how long POST /sandbox/deliveries/{id}/redeliver
// waits for its attempt before answering: long enough for a receiver on
// the same machine, short of the 10 seconds an attempt may take.
const redeliverWait = 5 * time.Second

// controlDeliveries serves GET deliveries: project p's callbacks, oldest
// first, paged: per_page (default 100, at most 1000), and page (from 1) or
// cursor (the id of the last delivery of the previous page).
func (s *Server) controlDeliveries(p *Project, in url.Values, _ string) (any, *Error) {
	pg, perr := readControlPaging(in)
	if perr != nil {
		return nil, perr
	}
	out := []deliveryJSON{}
	for _, d := range s.DeliveriesPage(p.Key, int(pg.cursor), pg.skip(), pg.perPage) {
		out = append(out, newDeliveryJSON(d))
	}
	return out, nil
}

// validEventsNote names the events that apply to transaction id now, for
// an error answer that refused another: the caller holds s.mu.
func (s *Server) validEventsNote(id int64) string {
	t := s.st.txns[id]
	if t == nil {
		return ""
	}
	names := []string{}
	for _, e := range s.applicableEvents(t) {
		names = append(names, string(e))
	}
	if len(names) == 0 {
		return "; no event applies to this transaction now"
	}
	return "; events that apply to this transaction now: " + strings.Join(names, ", ")
}
