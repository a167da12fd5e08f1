package paygatetest

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/internal/signing"
)

// route is one API method.
type route struct {
	handle func(*Server, *call) (any, *Error)
	// unsigned methods are accepted with or without a signature; a
	// signature they carry is not checked, as the production gateway does.
	unsigned bool
	// extendedOnly methods answer 40400 to a basic-form project.
	extendedOnly bool
	// reads methods change nothing: the state file is not written for
	// them (see Server.changed).
	reads bool
}

// routes maps the decoded method path after /v1/ to its handler. The
// extended-only methods are those the spec takes from the basic form:
// transaction/create, payout, balance and transactions; payout-types and
// payout-parameters are not among them.
var routes = map[string]route{
	"user/resolve":          {handle: (*Server).resolveUser},
	"user/changeRecurring":  {handle: (*Server).changeRecurring},
	"user/cancelRecurring":  {handle: (*Server).cancelRecurring},
	"card/getToken":         {handle: (*Server).getToken, unsigned: true},
	"card/process":          {handle: (*Server).processCard},
	"card/authenticate":     {handle: (*Server).authenticate},
	"card/processRecurring": {handle: (*Server).processRecurring},
	"transaction/reverse":   {handle: (*Server).reverse},
	"transaction/create":    {handle: (*Server).createAlternative, extendedOnly: true},
	"transaction/status":    {handle: (*Server).transactionStatus, reads: true},
	"payout-types":          {handle: (*Server).payoutTypes, unsigned: true, reads: true},
	"payout-parameters":     {handle: (*Server).payoutParameters, unsigned: true, reads: true},
	"payout":                {handle: (*Server).createPayout, extendedOnly: true},
	"balance":               {handle: (*Server).balance, extendedOnly: true, reads: true},
	"transactions":          {handle: (*Server).listTransactions, extendedOnly: true, reads: true},
	"transactions/{id}":     {handle: (*Server).transactionByID, extendedOnly: true, reads: true},
}

// Methods are the API methods the sandbox serves, as InjectFault names
// them (the path after /v1/, "transactions/{id}" for one transaction),
// sorted.
func Methods() []string {
	out := make([]string, 0, len(routes))
	for name := range routes {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// call is one authenticated API request.
type call struct {
	project *Project
	params  url.Values
	pathID  string // the {id} of transactions/{id}
}

func (c *call) get(name string) string { return c.params.Get(name) }

func (c *call) basic() bool { return c.project.Form == paygate.FormBasic }

// ServeHTTP serves the API, the ACS page, the confirm pages, the control
// plane under /sandbox/ and the health check at HealthPath. Paths are
// matched decoded, so /v1/user%2Fresolve is user/resolve.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case path == "/acs" || path == "/acs/":
		s.serveACS(w, r)
	case strings.HasPrefix(path, "/confirm/"):
		s.serveConfirm(w, r, strings.Trim(strings.TrimPrefix(path, "/confirm/"), "/"))
	case strings.HasPrefix(path, "/v1/"):
		s.serveAPIWithFaults(w, r, strings.TrimPrefix(path, "/v1/"))
	case path == "/sandbox" || strings.HasPrefix(path, "/sandbox/"):
		s.serveControl(w, r)
	case path == HealthPath:
		serveHealth(w, r)
	default:
		writeError(w, "", NewError(CodeMethodNotFound, ""))
	}
}

// routeOf returns the key in routes of method (the decoded path after
// /v1/) and the id its path carries: "transactions/42" is
// "transactions/{id}" with id "42"; any other method is its own key.
func routeOf(method string) (key, id string) {
	if id, ok := strings.CutPrefix(method, "transactions/"); ok && id != "" && !strings.Contains(id, "/") {
		return "transactions/{id}", id
	}
	return method, ""
}

// serveAPI serves an API call whose parameters readParams read (perr: why
// they could not be).
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, method string, params url.Values, perr *Error) {
	if perr != nil {
		s.writeAPIError(w, "", params, perr) // what was read before the refusal: the query is not read again
		return
	}
	c := &call{params: params}
	method, c.pathID = routeOf(method)
	jsonp := ""
	if method == "card/getToken" {
		jsonp = c.get("callback")
		if jsonp != "" && !jsonpName.MatchString(jsonp) {
			s.writeAPIError(w, "", params, errMerchantData("callback"))
			return
		}
	}
	rt, ok := routes[method]
	if !ok {
		writeError(w, jsonp, NewError(CodeMethodNotFound, ""))
		return
	}
	if err := s.authenticateRequest(w, r, c, rt); err != nil {
		s.writeAPIError(w, jsonp, params, err)
		return
	}
	out, err := rt.handle(s, c)
	if !rt.reads {
		// An error answer may follow a change too: a declined charge is a
		// failed transaction.
		s.changed()
	}
	if err != nil {
		s.writeAPIError(w, jsonp, params, err)
		return
	}
	writeJSON(w, jsonp, http.StatusOK, out)
}

// writeAPIError writes e as the form of the project the request names
// speaks: the basic form has none of the codes the spec gives only to the
// extended form.
func (s *Server) writeAPIError(w http.ResponseWriter, jsonp string, params url.Values, e *Error) {
	s.mu.Lock()
	p := s.st.projects[params.Get("project")]
	s.mu.Unlock()
	if p != nil && p.Form == paygate.FormBasic {
		e = e.inBasicForm()
	}
	writeError(w, jsonp, e)
}

// authenticateRequest finds the project and checks the signature over every
// received value, as the gateway does: 40001, 40401, 40101, 40301. A method
// the project's form lacks does not exist for it: 40400, before the
// signature is looked at. A wrong signature is a guess of the private key
// (see guessLimiter): a client out of guesses is 42900 with Retry-After
// before its signature is looked at, and the answer to a wrong one may be
// held.
func (s *Server) authenticateRequest(w http.ResponseWriter, r *http.Request, c *call, rt route) *Error {
	key := c.get("project")
	if key == "" {
		return NewError(paygate.CodeProjectKeyMissing, "")
	}
	s.mu.Lock()
	p := s.st.projects[key]
	s.mu.Unlock()
	if p == nil {
		return NewError(paygate.CodeProjectNotFound, "")
	}
	c.project = p
	if rt.extendedOnly && c.basic() {
		return NewError(CodeMethodNotFound, "not available in the basic form")
	}
	if rt.unsigned {
		return nil
	}
	if wait := s.guesses.wait(clientAddress(r)); wait > 0 {
		retryAfter(w, wait)
		return NewError(CodeTooManyGuesses, "too many wrong signatures from this address: try again later")
	}
	switch err := paygate.VerifySignature(c.params, p.Secret.Reveal()); {
	case errors.Is(err, paygate.ErrSignatureMissing):
		return NewError(paygate.CodeSignatureMissing, "")
	case err != nil:
		s.holdWrongGuess(r)
		return NewError(paygate.CodeSignatureInvalid, s.signedWhat(c.params))
	}
	return nil
}

// signedWhat says what the sandbox signed, for the answer to a wrong
// signature: the canonical string of the received values, with the card
// data in it masked (a client may log the answer), and where the private
// key comes from when WithKeySource says so; never the key.
func (s *Server) signedWhat(params url.Values) string {
	what := "the sandbox signed " + strconv.Quote(signing.CanonicalStringMasked(params, cardDataParam)) +
		" (values sorted, card data masked)"
	if s.keySource != "" {
		what += " with the private key from " + s.keySource
	}
	return what
}

// cardDataParam reports whether the parameter name holds card data: the
// number, security code or expiry, flat or in the card object.
func cardDataParam(name string) bool {
	name = strings.TrimSuffix(strings.TrimPrefix(name, "card["), "]")
	switch name {
	case "number", "security_code", "expiration_month", "expiration_year":
		return true
	}
	return false
}

// jsonpName is what card/getToken accepts as a JSONP function name.
var jsonpName = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$.]{0,127}$`)
