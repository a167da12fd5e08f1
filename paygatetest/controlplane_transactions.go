package paygatetest

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate-go"
)

// Paging of the control plane's lists: a page holds per_page items, 100
// unless asked otherwise, at most 1000, so that one answer stays small
// whatever the sandbox holds.
const (
	defaultControlPage = 100
	maxControlPage     = 1000
)

// controlOpsMore are the control plane's operations besides controlOps:
// the GET ones, among them those at a path that also has a POST one (clock,
// callback-url), which matchControl takes for a GET, and the fixtures.
var controlOpsMore = map[string]controlOp{
	"clock":        {http.MethodGet, (*Server).controlClock},
	"callback-url": {http.MethodGet, (*Server).controlReadCallbackURL},
	"transactions": {http.MethodGet, (*Server).controlTransactions},
	"fixtures":     {http.MethodPost, nil}, // a document: see controlDocuments
	"login-url":    {http.MethodPost, (*Server).controlLoginURL},
}

// controlDocuments are the operations that take the body as one JSON
// document, with nested objects, which the flat values of controlOp.run
// cannot hold.
var controlDocuments = map[string]func(s *Server, p *Project, body io.Reader) (any, *Error){
	"fixtures": (*Server).controlFixtures,
}

// controlClock serves GET clock: the sandbox's time, which every project
// reads.
func (s *Server) controlClock(*Project, url.Values, string) (any, *Error) {
	return map[string]any{"now": s.Clock().Now().Format(time.RFC3339Nano)}, nil
}

// controlPaging is a list's page as the query asks it: per_page, and
// either page (from 1) or cursor (the id of the last item of the previous
// page).
type controlPaging struct {
	perPage int
	page    int
	cursor  int64 // 0: none
}

// readControlPaging reads per_page, page and cursor: 40000 for one that is
// no positive number, as a list that silently ignored it would answer the
// wrong items.
func readControlPaging(in url.Values) (controlPaging, *Error) {
	pg := controlPaging{perPage: defaultControlPage, page: 1}
	read := func(name string) (int64, *Error) {
		v := in.Get(name)
		if v == "" {
			return 0, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return 0, NewError(CodeMalformedRequest, name+" must be a number from 1")
		}
		return n, nil
	}
	perPage, err1 := read("per_page")
	page, err2 := read("page")
	cursor, err3 := read("cursor")
	if err := cmp.Or(err1, err2, err3); err != nil {
		return pg, err
	}
	if page != 0 && cursor != 0 {
		return pg, NewError(CodeMalformedRequest, "give page or cursor, not both")
	}
	if perPage != 0 {
		pg.perPage = int(min(perPage, maxControlPage))
	}
	if page != 0 {
		pg.page = int(min(page, math.MaxInt32))
	}
	pg.cursor = cursor
	return pg, nil
}

// skip is how many matching items come before the page.
func (pg controlPaging) skip() int {
	if pg.cursor != 0 {
		return 0
	}
	return (pg.page - 1) * pg.perPage
}

func readTransactionFilter(in url.Values) (TransactionFilter, *Error) {
	f := TransactionFilter{Status: in.Get("status"), Type: in.Get("type"), OrderID: in.Get("order_id")}
	for name, dst := range map[string]*time.Time{"from": &f.From, "to": &f.To} {
		if v := in.Get(name); v != "" {
			t, ok := parseFilterTime(v)
			if !ok {
				return f, NewError(CodeMalformedRequest, name+" is no time (RFC 3339, a date or Unix seconds)")
			}
			*dst = t
		}
	}
	return f, nil
}

// controlTransactions serves GET transactions: project p's transactions,
// newest first, filtered by status (including later effects, as GET
// transactions of the API), type, order_id and from/to (the creation
// time, inclusive), paged. total counts every match; next_cursor, when
// more follow, is the cursor of the next page.
func (s *Server) controlTransactions(p *Project, in url.Values, _ string) (any, *Error) {
	f, perr := readTransactionFilter(in)
	if perr != nil {
		return nil, perr
	}
	pg, perr := readControlPaging(in)
	if perr != nil {
		return nil, perr
	}
	list, total, more := s.TransactionsPage(p.Key, f, paygate.ID(pg.cursor), pg.skip(), pg.perPage)
	out := map[string]any{"transactions": list, "total": total, "per_page": pg.perPage}
	if pg.cursor == 0 {
		out["page"] = pg.page
	}
	if more && len(list) > 0 {
		out["next_cursor"] = list[len(list)-1].ID.String()
	}
	return out, nil
}

// controlFixtures serves POST fixtures: the scenario in the body, made in
// project p; the answer names what was made. 40000 for a body that is no
// fixture file, 41300 for one over 1 MiB, 40900 for an entry the sandbox
// refused (those before it stay made).
func (s *Server) controlFixtures(p *Project, body io.Reader) (any, *Error) {
	ids, err := s.LoadProjectFixtures(p.Key, body)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, NewError(CodeBodyTooLarge, fmt.Sprintf("the body is larger than %d bytes", MaxFixtureBody))
	case err != nil && ids.Users == nil:
		return nil, NewError(CodeMalformedRequest, strings.TrimPrefix(err.Error(), "paygatetest: "))
	case err != nil:
		return nil, NewError(CodeConflict, strings.TrimPrefix(err.Error(), "paygatetest: "))
	}
	return ids, nil
}
