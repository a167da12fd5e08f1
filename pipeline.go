package paygate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paygate/paygate-go/internal/formenc"
	"github.com/paygate/paygate-go/internal/jsonscalar"
	"github.com/paygate/paygate-go/internal/redact"
	"github.com/paygate/paygate-go/internal/signing"
)

// The pipeline's two words for judging data: a request's parameters are
// validated (validate, returning a *ValidationError naming the parameter,
// before anything is sent); the gateway's answer is verified (verifyBody,
// verifyDecodedAmount, verifyAnswer, failing the call with a
// *ResponseError).

// validator is implemented by parameter structs that can be validated
// before anything is sent.
type validator interface {
	validate(Form) error
}

// answerVerifier is implemented by response types that verify, once
// decoded, what the per-field rules cannot express (fields required only
// together with others, contradictions).
type answerVerifier interface {
	verifyAnswer() error
}

var pairsPool = sync.Pool{New: func() any { p := make(formenc.Pairs, 0, 24); return &p }}

// call runs the endpoint named name with p and returns its decoded answer.
// A nil p is sent as the zero params, so that a call given nil names the
// same missing field as one given an empty struct.
func call[R, P any](ctx context.Context, c *Client, name endpointName, p *P, opts []CallOption) (*R, error) {
	if p == nil {
		p = new(P)
	}
	out := new(R)
	if err := c.do(ctx, endpoints[name], p, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// do is the one request pipeline: validate, encode, sign, send (with the
// retries the policy allows), read, decode, verify; told to the client's
// observer when it has one.
func (c *Client) do(ctx context.Context, ep endpoint, params any, out any, opts []CallOption) error {
	if c.observer != nil {
		return c.observed(ctx, ep, params, out, opts)
	}
	return c.run(ctx, ep, params, out, opts, nil)
}

// run is do's pipeline; obs, when not nil, hears of each attempt.
func (c *Client) run(ctx context.Context, ep endpoint, params any, out any, opts []CallOption, obs *callObservation) error {
	if ep.extendedOnly && c.form == FormBasic {
		return fmt.Errorf("%w: %s %s", ErrBasicForm, ep.method, ep.shownPath())
	}
	if v, ok := params.(validator); ok {
		if err := v.validate(c.form); err != nil {
			return err
		}
	}
	settings := callSettings{retry: c.retry, timeout: c.timeout}
	for _, o := range opts {
		o(&settings)
	}

	// The body is not pooled: the transport may still be writing it after
	// the answer arrived (see http.RoundTripper), when a pooled buffer could
	// already hold another request.
	if err := ctx.Err(); err != nil {
		// Nothing can be sent on an ended context: not an unknown outcome.
		return &NetworkError{Method: ep.method, Path: ep.shownPath(), Err: err}
	}
	encoded, unknown, err := c.encode(make([]byte, 0, 512), ep, params)
	if err != nil {
		return err
	}
	if obs != nil {
		obs.orderID, obs.transactionID = unknown.OrderID, unknown.TransactionID
	}

	if settings.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, settings.timeout)
		defer cancel()
	}
	r := &attempt{client: c, ep: ep, encoded: encoded, obs: obs}
	x, attempts := r.sendWithRetries(ctx, settings.retry)
	status, body := x.status, x.body
	if x.err != nil {
		if !ep.idempotent && r.mayHaveReached {
			return unknown.after(attempts, x.err)
		}
		return &NetworkError{Method: ep.method, Path: ep.shownPath(), Attempts: attempts, Err: x.err}
	}
	if isRedirect(status) {
		return &Error{HTTPStatus: status, Message: redirectRefused(r.location), Attempts: attempts}
	}
	warnings, err := c.decode(ep, status, body, out)
	if err != nil {
		err = ep.sentSecrets(encoded).scrub(err)
	}
	for _, w := range warnings {
		c.log(ctx, slog.LevelWarn, "paygate unreadable field left zero", logged{ep: ep, status: status, attempt: attempts},
			slog.String("field", w.Field), slog.String("problem", w.Problem))
	}
	if settings.warnings != nil {
		*settings.warnings = append(*settings.warnings, warnings...)
	}
	var apiErr *Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &apiErr):
		apiErr.Attempts = attempts
		if !ep.idempotent && apiErr.Code == 0 && status >= 500 {
			return unknown.after(attempts, err)
		}
	case !ep.idempotent:
		// The gateway answered 2xx, but with nothing we can read: it may
		// well have charged.
		return unknown.after(attempts, err)
	}
	return err
}

// ownParams are parameters that write themselves, in their own order (a
// raw call's, rawParams); any other parameters are a struct that formenc
// flattens.
type ownParams interface {
	appendTo(dst formenc.Pairs) formenc.Pairs
}

// encode appends the request's form body to dst: project, the fields of
// params and, unless the endpoint is unsigned, the signature. It also
// returns the error to report should the outcome be unknown, naming the
// order id or transaction id the params carry.
func (c *Client) encode(dst []byte, ep endpoint, params any) (body []byte, unknown OutcomeUnknownError, err error) {
	pp := pairsPool.Get().(*formenc.Pairs)
	pairs := append((*pp)[:0], formenc.Pair{Key: "project", Value: c.projectKey})
	defer func() {
		clear(pairs) // a pooled slice must not keep card data reachable
		*pp = pairs[:0]
		pairsPool.Put(pp)
	}()
	if own, ok := params.(ownParams); ok {
		pairs = own.appendTo(pairs)
	} else if pairs, err = formenc.Append(pairs, params); err != nil {
		return nil, unknown, err
	}
	unknown = OutcomeUnknownError{Method: ep.method, Path: ep.shownPath(), Kind: ep.kind}
	unknown.OrderID, _ = pairs.Get("order_id")
	if unknown.OrderID == "" {
		unknown.OrderID, _ = pairs.Get("orderId")
	}
	if id, ok := pairs.Get("id"); ok {
		unknown.TransactionID, _ = ParseID(id)
	}
	body = formenc.AppendEncoded(dst, pairs)
	if !ep.unsigned {
		// The signature comes last, its hex digits written straight into
		// the body: they need no escaping, and no string is made for them.
		var sig [signing.Len]byte
		c.signer.SumPairs(&sig, pairs)
		body = append(body, "&"+SignatureParam+"="...)
		body = append(body, sig[:]...)
	}
	return body, unknown, nil
}

// after returns the unknown-outcome error for a request sent attempts
// times that then failed with err. It works on a copy, so a successful call
// allocates none.
func (e OutcomeUnknownError) after(attempts int, err error) *OutcomeUnknownError {
	e.Attempts, e.Err = attempts, err
	return &e
}

// attempt sends one encoded request, as many times as the policy allows.
type attempt struct {
	client  *Client
	ep      endpoint
	encoded []byte
	// mayHaveReached is set once an attempt ended in a way that does not
	// prove the request never arrived.
	mayHaveReached bool
	// location is the Location header of a redirect answer.
	location string
	// obs hears of each exchange when the call is observed.
	obs *callObservation
}

// reply is what one HTTP exchange with the gateway gave.
type reply struct {
	status int
	header http.Header
	body   []byte
	// connected reports whether a connection to the gateway was obtained,
	// after which the request may have arrived.
	connected bool
	err       error
}

// sendWithRetries returns the last exchange and the number of attempts.
func (a *attempt) sendWithRetries(ctx context.Context, policy RetryPolicy) (x reply, attempts int) {
	for attempts = 1; ; attempts++ {
		began := a.obs.now()
		x = a.send(ctx, attempts)
		notSent := x.err != nil && !x.connected && isDialError(x.err)
		if !notSent {
			a.mayHaveReached = true
		}
		wait, again := a.retryWait(ctx, policy, x, attempts, notSent)
		a.obs.attempted(attempts, x, began, again, wait)
		if !again {
			return x, attempts
		}
		a.client.log(ctx, slog.LevelInfo, "paygate retry", logged{ep: a.ep, status: x.status, attempt: attempts, err: x.err}, slog.Duration("wait", wait))
		if werr := sleep(ctx, wait); werr != nil {
			if x.err == nil {
				x.err = werr
			}
			return x, attempts
		}
	}
}

// retryWait decides whether exchange x, the attempts-th, is followed by
// another, and after what wait.
func (a *attempt) retryWait(ctx context.Context, policy RetryPolicy, x reply, attempts int, notSent bool) (time.Duration, bool) {
	retryable := false
	switch {
	case ctx.Err() != nil:
	case x.err != nil:
		// Any other method is sent again only when it provably never left.
		retryable = a.ep.idempotent || notSent
	case a.ep.idempotent:
		retryable = retryableStatus(x.status)
	}
	if !retryable || attempts >= policy.MaxAttempts {
		return 0, false
	}
	wait, ok := policy.backoff(attempts, retryAfter(x.header, time.Now()))
	if !ok {
		return 0, false
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
		return 0, false
	}
	return wait, true
}

// send performs one HTTP exchange.
func (a *attempt) send(ctx context.Context, n int) reply {
	c := a.client
	var gotConn atomic.Bool
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { gotConn.Store(true) }}
	ctx = httptrace.WithClientTrace(ctx, trace)

	target := c.apiPrefix + a.ep.path
	var req *http.Request
	var err error
	if a.ep.method == http.MethodGet {
		if len(a.encoded) > 0 {
			target += "?" + string(a.encoded)
		}
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	} else {
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(a.encoded))
		if req != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	}
	if err != nil {
		return reply{err: scrubURL(err, c.apiPrefix+a.ep.shownPath())}
	}
	if c.baseUser != nil {
		// As a header, not in req.URL: a transport (a proxy, a logging
		// wrapper) that quotes the request's URL in its error must not
		// quote the credentials too.
		pass, _ := c.baseUser.Password()
		req.SetBasicAuth(c.baseUser.Username(), pass)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)

	start := time.Now()
	resp, err := c.httpClient.Do(req)
	if err != nil {
		// Before logging: a transport error can quote the answer, which
		// may echo the request.
		err = append(a.ep.sentSecrets(a.encoded), c.credentials()...).scrub(scrubURL(err, c.apiPrefix+a.ep.shownPath()))
		c.log(ctx, slog.LevelDebug, "paygate request", logged{ep: a.ep, duration: time.Since(start), attempt: n, err: err})
		return reply{connected: gotConn.Load(), err: err}
	}
	defer resp.Body.Close()
	if isRedirect(resp.StatusCode) {
		a.location = resp.Header.Get("Location")
	}
	x := reply{status: resp.StatusCode, header: resp.Header, connected: true}
	x.body, x.err = readLimited(resp.Body, c.maxBody)
	if x.err != nil {
		x.err = a.ep.sentSecrets(a.encoded).scrub(x.err)
	}
	c.log(ctx, slog.LevelDebug, "paygate request", logged{ep: a.ep, status: x.status, duration: time.Since(start), attempt: n, err: x.err})
	return x
}

// refuseRedirect is the CheckRedirect of every client the SDK sends with: a
// redirect would re-send a signed, card-bearing body to wherever it points,
// turn a POST into a GET, or carry a card-bearing query in the Referer. The
// 3xx answer comes back as an *Error instead.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func isRedirect(status int) bool { return status >= 300 && status <= 399 }

// redirectRefused describes a refused redirect by the host it pointed to,
// never the full address, whose path or query may carry request data.
func redirectRefused(location string) string {
	host := "no location"
	if location != "" {
		host = "an unreadable location"
		if u, err := url.Parse(location); err == nil {
			host = "the same host"
			if u.Host != "" {
				host = "host " + u.Hostname()
			}
		}
	}
	return "redirect to " + host + " refused: the SDK never follows a redirect"
}

// isDialError reports whether err is a failure to open a connection (DNS,
// refused, unreachable), before which nothing of the request was written.
// Both this and the absence of a GotConn event are required before a POST is
// retried, so that a custom transport which reports neither is never taken
// for one that sent nothing.
func isDialError(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

// scrubURL replaces the URL in a transport error, whose query may carry card
// data (card/getToken), with the bare endpoint address.
func scrubURL(err error, bare string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return &url.Error{Op: ue.Op, URL: bare, Err: ue.Err}
	}
	return err
}

// errBodyTooLarge reports a response over the client's size limit.
var errBodyTooLarge = errors.New("response body exceeds the size limit")

func readLimited(r io.Reader, limit int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading response body: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%w of %d bytes", errBodyTooLarge, limit)
	}
	return body, nil
}

// logged is what every log record of a call carries.
type logged struct {
	ep       endpoint
	status   int           // the HTTP status answered, 0 when none came
	duration time.Duration // of the request; 0 on a record that times nothing
	attempt  int           // 1 for the first
	err      error         // already scrubbed of what the request sent
}

// log writes a record of a call at level, with r's attributes (method,
// path, status, duration, attempt, and error when there is one) and then
// extra.
func (c *Client) log(ctx context.Context, level slog.Level, msg string, r logged, extra ...slog.Attr) {
	if c.logger == nil || !c.logger.Enabled(ctx, level) {
		return
	}
	attrs := append([]slog.Attr{
		slog.String("method", r.ep.method),
		slog.String("path", r.ep.shownPath()),
		slog.Int("status", r.status),
		slog.Duration("duration", r.duration),
		slog.Int("attempt", r.attempt),
	}, extra...)
	if r.err != nil {
		attrs = append(attrs, slog.String("error", r.err.Error()))
	}
	c.logger.LogAttrs(ctx, level, msg, attrs...)
}

// errorEnvelope is the gateway's failure body. Only the code decides what
// happened; a message that cannot be read is left empty.
type errorEnvelope struct {
	Error *struct {
		Code    json.RawMessage `json:"code"`
		Message json.RawMessage `json:"message"`
	} `json:"error"`
}

// decode maps an HTTP answer to out or to an error. The body is read as a
// tolerant reader (see decodeRules): only the fields that decide what
// happened can fail it; any other field that cannot be read is left zero
// and returned as a warning.
func (c *Client) decode(ep endpoint, status int, body []byte, out any) ([]DecodeWarning, error) {
	if apiErr := parseGatewayError(status, body); apiErr != nil {
		return nil, apiErr
	}
	if status < 200 || status > 299 {
		return nil, &Error{HTTPStatus: status, Body: redact.Excerpt(body, 200)}
	}
	if out == nil {
		return nil, nil
	}
	if err := verifyBody(body); err != nil {
		return nil, &ResponseError{Method: ep.method, Path: ep.shownPath(), HTTPStatus: status, Err: err}
	}
	warnings, err := decodeTolerant(body, out, &ep.answer)
	if err == nil {
		if v, ok := out.(answerVerifier); ok {
			err = v.verifyAnswer()
		}
	}
	if err != nil {
		re := &ResponseError{Method: ep.method, Path: ep.shownPath(), HTTPStatus: status, Err: err}
		var fe *fieldError
		var me *missingFieldError
		switch {
		case errors.As(err, &fe):
			re.Field = fe.field
		case errors.As(err, &me):
			re.Field = me.field
		}
		if len(bytes.TrimSpace(body)) == 0 {
			re.Err, re.Field = errors.New("empty body"), ""
		}
		return nil, re
	}
	if w, ok := out.(warned); ok && warnings != nil {
		w.setWarnings(warnings)
	}
	return warnings, nil
}

// parseGatewayError returns the gateway error object a body carries, with
// any HTTP status (the gateway sends errors with 200 and with mismatched
// statuses too), or nil.
func parseGatewayError(status int, body []byte) *Error {
	if !bytes.Contains(body, []byte(`"error"`)) {
		return nil
	}
	var env errorEnvelope
	if json.Unmarshal(body, &env) != nil || env.Error == nil {
		return nil
	}
	code, err := parseCode(env.Error.Code)
	if err != nil || code == 0 {
		return nil
	}
	message, _ := jsonscalar.Text(env.Error.Message)
	return &Error{HTTPStatus: status, Code: code, Message: redact.Excerpt([]byte(message), 255)}
}

func parseCode(raw json.RawMessage) (ErrorCode, error) {
	var n json.Number
	s := bytes.Trim(raw, `"`)
	if err := json.Unmarshal(s, &n); err != nil {
		return 0, err
	}
	i, err := n.Int64()
	if err != nil || i < 10000 || i > 99999 {
		return 0, fmt.Errorf("error code %q is not five digits", s)
	}
	return ErrorCode(i), nil
}

func missing(field string) error { return &missingFieldError{field: field} }

// verifyIDNotEmpty fails an answer whose id, the thing the call is for,
// came as "": present, so the required rule passes, yet of no use.
func verifyIDNotEmpty(what, id string) error {
	if id == "" {
		return &fieldError{field: "id", err: errors.New("the " + what + " id is empty")}
	}
	return nil
}

// Limits on what a response may hold, so that a broken or hostile answer
// (a proxy's garbage, a misconfigured gateway) is an error rather than a
// value that hangs the merchant's program or passes for a real amount (the
// decoder bounds each amount it reads: see maxMoneyIntegerDigits).
const (
	// maxDigitRun bounds a run of digits anywhere in a body. Parsing a
	// decimal is quadratic in its length (a million digits take seconds),
	// and no id or amount the gateway sends has more than a few dozen.
	maxDigitRun = 1000
)

var errNullBody = errors.New("the body is JSON null")

// verifyBody rejects a body before it is decoded: JSON null (which would
// decode as "nothing" into every type) and absurdly long numbers.
func verifyBody(body []byte) error {
	if string(bytes.TrimSpace(body)) == "null" {
		return errNullBody
	}
	run := 0
	for _, c := range body {
		if '0' <= c && c <= '9' {
			if run++; run > maxDigitRun {
				return fmt.Errorf("a number of more than %d digits", maxDigitRun)
			}
		} else {
			run = 0
		}
	}
	return nil
}
