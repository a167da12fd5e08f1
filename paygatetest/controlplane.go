package paygatetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate-go"
)

// The control plane under {URL}/sandbox/ drives the sandbox over HTTP, for
// tests in any language and for the dashboard. Every request carries
// Authorization: Bearer <a project's private key>, or the dashboard's
// session cookie, and acts within that project only; input is a form, a
// query or a JSON object, output is JSON. The package documentation lists
// each operation.

// Bounds of the control plane's input.
const (
	maxControlBody  = 64 << 10
	maxControlValue = 2048
	// MaxAdvance is the most one POST /sandbox/clock moves the clock.
	MaxAdvance = 10 * 366 * 24 * time.Hour
)

// Where the dashboard lives, and its session cookie.
const (
	sessionCookie = "paygate_sandbox_session"
	dashboardPath = "/sandbox/"
)

// controlOp is one operation of the control plane: its HTTP method, and
// what it does with the input and the path's {id} within project p.
type controlOp struct {
	method string
	run    func(s *Server, p *Project, in url.Values, id string) (any, *Error)
}

// controlOps maps a path pattern (after /sandbox/, "{id}" for a variable
// segment) to its operation. POST /transactions/{id}/{event} is matched
// apart, since its last segment is the event.
var controlOps = map[string]controlOp{
	"clock":                     {http.MethodPost, (*Server).controlAdvance},
	"faults":                    {http.MethodPost, (*Server).controlFault},
	"deliveries":                {http.MethodGet, (*Server).controlDeliveries},
	"deliveries/{id}/redeliver": {http.MethodPost, (*Server).controlRedeliver},
	"callback-url":              {http.MethodPost, (*Server).controlCallbackURL},
	"reset":                     {http.MethodPost, (*Server).controlReset},
}

// serveControl serves everything under /sandbox/.
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/sandbox")
	switch path {
	case "":
		http.Redirect(w, r, dashboardPath, http.StatusMovedPermanently)
		return
	case "/":
		s.serveDashboard(w, r)
		return
	case "/login":
		s.serveLogin(w, r)
		return
	}
	auth, wait, ok := s.authorize(r)
	if !ok {
		writeAuthError(w, wait)
		return
	}
	browser := auth.browser
	if browser && r.Method != http.MethodGet && !s.sameOriginForm(r, auth) {
		WriteError(w, NewError(CodeForbidden, "the form's token is missing or wrong"))
		return
	}
	op, id, perr := matchControl(strings.Trim(path, "/"), r.Method)
	if perr != nil {
		WriteError(w, perr)
		return
	}
	var out any
	if document := controlDocuments[strings.Trim(path, "/")]; document != nil {
		r.Body = http.MaxBytesReader(w, r.Body, MaxFixtureBody)
		out, perr = document(s, auth.project, r.Body)
	} else {
		var in url.Values
		if in, perr = readControlInput(w, r); perr != nil {
			WriteError(w, perr)
			return
		}
		out, perr = op.run(s, auth.project, in, id)
	}
	if op.method != http.MethodGet {
		s.changed() // whatever the answer: fixtures may have been loaded in part
	}
	if browser && r.Method == http.MethodPost {
		// The dashboard's buttons come back to the dashboard, saying how
		// it went.
		q := url.Values{"note": {"done: " + strings.TrimPrefix(path, "/")}}
		if perr != nil {
			q = url.Values{"error": {perr.Error()}}
		}
		http.Redirect(w, r, dashboardPath+"?"+q.Encode(), http.StatusSeeOther)
		return
	}
	if perr != nil {
		WriteError(w, perr)
		return
	}
	writeJSON(w, "", http.StatusOK, out)
}

// matchControl finds the operation of path (without /sandbox/) for the
// HTTP method: 40400 for no operation, 40500 for another method.
func matchControl(path, method string) (controlOp, string, *Error) {
	parts := strings.Split(path, "/")
	var op controlOp
	var ok bool
	id := ""
	switch {
	case len(parts) == 3 && parts[0] == "transactions":
		id = parts[1] + "/" + parts[2]
		op, ok = controlOp{http.MethodPost, (*Server).controlEvent}, true
	case len(parts) == 3:
		id = parts[1]
		op, ok = controlOps[parts[0]+"/{id}/"+parts[2]]
	default:
		op, ok = controlOps[path]
		if read, found := controlOpsMore[path]; found && (method == http.MethodGet || !ok) {
			op, ok = read, true
		}
	}
	if !ok {
		return controlOp{}, "", NewError(CodeMethodNotFound, "no control operation at /sandbox/"+path)
	}
	if method != op.method {
		return controlOp{}, "", NewError(CodeNotAllowed, "use "+op.method)
	}
	return op, id, nil
}

// readControlInput reads the query and a form or JSON object body, each
// value at most maxControlValue bytes.
func readControlInput(w http.ResponseWriter, r *http.Request) (url.Values, *Error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxControlBody)
	var in url.Values
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		in = r.URL.Query()
		var obj map[string]any
		dec := json.NewDecoder(r.Body)
		dec.UseNumber()
		// An empty body is no input, as an empty form is: a GET from a
		// client that names JSON on every request reads the query.
		if err := dec.Decode(&obj); err != nil && !errors.Is(err, io.EOF) {
			return nil, bodyError(err, "the body is not a JSON object")
		}
		for k, v := range obj {
			switch v := v.(type) {
			case string:
				in.Set(k, v)
			case json.Number:
				in.Set(k, v.String())
			case bool:
				in.Set(k, strconv.FormatBool(v))
			default:
				return nil, NewError(CodeMalformedRequest, k+" must be a string or a number")
			}
		}
	} else {
		if err := r.ParseForm(); err != nil {
			return nil, bodyError(err, "the form cannot be parsed")
		}
		in = r.Form
	}
	for k, vs := range in {
		for _, v := range vs {
			if len(v) > maxControlValue {
				return nil, NewError(CodeMalformedRequest, fmt.Sprintf("%s is longer than %d bytes", k, maxControlValue))
			}
		}
	}
	return in, nil
}

func bodyError(err error, msg string) *Error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return NewError(CodeBodyTooLarge, fmt.Sprintf("the body is larger than %d bytes", maxControlBody))
	}
	return NewError(CodeMalformedRequest, msg)
}

// controlAdvance serves POST clock: advance is a Go duration from 0 to
// MaxAdvance (the clock never goes back). The clock is the server's, shared
// by its projects, so only the key of the server's own project moves it;
// any project's key reads it.
func (s *Server) controlAdvance(p *Project, in url.Values, _ string) (any, *Error) {
	if v := in.Get("advance"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > MaxAdvance {
			return nil, NewError(CodeMalformedRequest, "advance must be a Go duration from 0s to "+MaxAdvance.String())
		}
		if p.Key != s.ProjectKey {
			return nil, NewError(CodeForbidden, "the clock is shared by every project: only the server's own project moves it")
		}
		s.Advance(d)
	}
	return map[string]any{"now": s.Clock().Now().Format(time.RFC3339Nano)}, nil
}

// controlEvent serves POST transactions/{id}/{event}: the by-id JSON of the
// transaction the event made, or of the transaction itself. Another
// project's transaction is unknown.
func (s *Server) controlEvent(p *Project, _ url.Values, idEvent string) (any, *Error) {
	idText, event, _ := strings.Cut(idEvent, "/")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		return nil, NewError(paygate.CodeTransactionNotFound, "")
	}
	t, err := s.TriggerProject(p.Key, paygate.ID(id), Event(event))
	switch {
	case errors.Is(err, ErrTransactionNotFound):
		return nil, NewError(paygate.CodeTransactionNotFound, "")
	case errors.Is(err, ErrUnknownEvent):
		return nil, NewError(CodeMethodNotFound, "unknown event "+strconv.Quote(event)+s.validEventsNote(p.Key, id))
	case err != nil:
		return nil, NewError(CodeConflict, strings.TrimPrefix(err.Error(), "paygatetest: ")+s.validEventsNote(p.Key, id))
	}
	return t, nil
}

// controlFault serves POST faults: method, fault, count (default 1), for
// the calls of project p only.
func (s *Server) controlFault(p *Project, in url.Values, _ string) (any, *Error) {
	count := 1
	if v := in.Get("count"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, NewError(CodeMalformedRequest, "count must be a number")
		}
		count = n
	}
	method, f := in.Get("method"), Fault(in.Get("fault"))
	if err := s.InjectProjectFault(p.Key, method, f, count); err != nil {
		return nil, NewError(CodeMalformedRequest, strings.TrimPrefix(err.Error(), "paygatetest: "))
	}
	return map[string]any{"method": method, "fault": f, "count": count}, nil
}

// controlRedeliver serves POST deliveries/{id}/redeliver: 40400 for an
// unknown delivery (or another project's), 40900 when it cannot be sent
// (no URL, queue full). It answers the delivery after the new attempt, or
// as it stands when the attempt takes longer than redeliverWait.
func (s *Server) controlRedeliver(p *Project, _ url.Values, id string) (any, *Error) {
	seq, err := strconv.Atoi(id)
	d, ok := s.Delivery(seq)
	if err != nil || !ok || d.ProjectKey() != p.Key {
		return nil, NewError(CodeMethodNotFound, "no delivery "+strconv.Quote(id))
	}
	if err := s.Redeliver(seq); err != nil {
		return nil, NewError(CodeConflict, strings.TrimPrefix(err.Error(), "paygatetest: "))
	}
	ctx, cancel := context.WithTimeout(context.Background(), redeliverWait)
	defer cancel()
	return newDeliveryJSON(s.AwaitAttempt(ctx, d)), nil
}

// controlCallbackURL serves POST callback-url: url, or empty for none, of
// project p. It answers the URL it replaced too (previous), so that a tool
// that changes it for a while puts back exactly that.
func (s *Server) controlCallbackURL(p *Project, in url.Values, _ string) (any, *Error) {
	u := in.Get("url")
	previous, err := s.SetProjectCallbackURL(p.Key, u)
	if err != nil {
		return nil, NewError(CodeMalformedRequest, strings.TrimPrefix(err.Error(), "paygatetest: "))
	}
	return map[string]any{"url": u, "previous": previous}, nil
}

// controlReadCallbackURL serves GET callback-url: project p's callback
// URL, empty when callbacks are recorded only.
func (s *Server) controlReadCallbackURL(p *Project, _ url.Values, _ string) (any, *Error) {
	return map[string]any{"url": s.ProjectCallbackURL(p.Key)}, nil
}

// controlReset serves POST reset: project p forgets its users, tokens,
// transactions and faults.
func (s *Server) controlReset(p *Project, _ url.Values, _ string) (any, *Error) {
	s.ResetProject(p.Key)
	return map[string]any{"reset": true}, nil
}

// deliveryJSON is a Delivery as GET /sandbox/deliveries shows it. Its id
// is a JSON string, as every id of the control plane is (see
// Transaction); the callback's fields are strings already.
type deliveryJSON struct {
	ID        int               `json:"id,string"`
	URL       string            `json:"url"`
	Fields    map[string]string `json:"fields"`
	Attempts  []attemptJSON     `json:"attempts"`
	Delivered bool              `json:"delivered"`
	Done      bool              `json:"done"`
	// NextAttempt is when the retry schedule sends it next, on the
	// sandbox's clock; empty when no attempt is scheduled.
	NextAttempt string `json:"next_attempt,omitempty"`
	// GivenUp marks a callback given up unsent; see Delivery.GivenUp.
	GivenUp bool `json:"given_up,omitempty"`
}

type attemptJSON struct {
	Time   string `json:"time"`
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	Manual bool   `json:"manual,omitempty"`
}

func newDeliveryJSON(d Delivery) deliveryJSON {
	fields := make(map[string]string, len(d.Values))
	for k := range d.Values {
		fields[k] = d.Values.Get(k)
	}
	attempts := make([]attemptJSON, len(d.History))
	for i, a := range d.History {
		attempts[i] = attemptJSON{Time: a.At.Format(time.RFC3339Nano), Status: a.Status, Error: a.Error, Manual: a.Manual}
	}
	out := deliveryJSON{ID: d.Seq, URL: d.URL, Fields: fields, Attempts: attempts, Delivered: d.Delivered, Done: d.Done,
		GivenUp: d.GivenUp}
	if !d.NextAttempt.IsZero() {
		out.NextAttempt = d.NextAttempt.Format(time.RFC3339Nano)
	}
	return out
}
