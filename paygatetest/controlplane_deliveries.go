package paygatetest

import (
	"net/url"
	"strings"
	"time"

	"github.com/paygate/paygate-go"
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

// validEventsNote names the events that apply to transaction id of
// project key now, for an error answer that refused another.
func (s *Server) validEventsNote(key string, id int64) string {
	t, ok := s.Transaction(key, paygate.ID(id))
	if !ok {
		return ""
	}
	names := []string{}
	for _, e := range t.Events {
		names = append(names, string(e))
	}
	if len(names) == 0 {
		return "; no event applies to this transaction now"
	}
	return "; events that apply to this transaction now: " + strings.Join(names, ", ")
}
