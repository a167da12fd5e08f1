package paygate

import (
	"bytes"
	"cmp"
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
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paygate/paygate-go/internal/formenc"
	"github.com/paygate/paygate-go/internal/jsonscalar"
	"github.com/paygate/paygate-go/internal/redact"
)

// Version is the version of this SDK, sent in the User-Agent header.
const Version = "0.1.0"

// Defaults of a new client.
const (
	// DefaultTimeout bounds one call, retries and waits included, when the
	// caller's context has no earlier deadline.
	DefaultTimeout = 60 * time.Second
	// DefaultMaxResponseBytes bounds how much of a response body is read.
	DefaultMaxResponseBytes = 4 << 20
	// DefaultResponseHeaderTimeout bounds, per attempt, the wait for the
	// response headers once the request is written.
	DefaultResponseHeaderTimeout = 30 * time.Second
)

// Form selects the basic or the extended form of the gateway's interface.
type Form int

const (
	// FormExtended is the full interface, and the client's default.
	FormExtended Form = iota
	// FormBasic is the reduced interface: resolve needs an e-mail, charges
	// take only a token and an internal user id, and transaction/create,
	// payouts, balance and transaction listings do not exist.
	FormBasic
)

// String returns "extended" or "basic".
func (f Form) String() string {
	if f == FormBasic {
		return "basic"
	}
	return "extended"
}

// Client talks to the Payment Gateway API. It is safe for concurrent use;
// create one per project and reuse it.
type Client struct {
	// Users resolves users and manages their recurring subscriptions.
	Users *UsersService
	// Cards tokenizes and charges cards, and completes 3-D Secure.
	Cards *CardsService
	// Transactions reverses, starts, queries and lists transactions.
	Transactions *TransactionsService
	// Payouts lists payout types and parameters and creates payouts.
	Payouts *PayoutsService
	// Balance reads the merchant balance.
	Balance *BalanceService

	common service

	projectKey  string
	signer      *signer
	apiPrefix   string // base URL + "/v1/"
	checkoutURL string
	httpClient  *http.Client
	logger      *slog.Logger
	userAgent   string
	retry       RetryPolicy
	form        Form
	timeout     time.Duration
	headerWait  time.Duration // response-header timeout of the default transport
	maxBody     int64
	appInfo     string
	baseURL     string        // without credentials: safe to print
	baseUser    *url.Userinfo // credentials the base URL carried, sent as basic auth
	insecure    bool          // WithInsecureHTTP
}

type service struct{ client *Client }

// Option configures a Client in NewClient.
type Option func(*Client) error

// WithBaseURL sets the gateway's base address ({base_url} in the API
// documentation), without the /v1 prefix, for example
// "https://gateway.example.com". It is required.
//
// The address must use https unless its host is loopback (127.0.0.1, ::1,
// localhost, where the sandbox runs) or WithInsecureHTTP is given: card
// data must never cross a network in clear text. Credentials in the
// address (https://user:pass@host) are sent as HTTP basic authentication
// and never appear in an error, in Client.String or in an address given to
// a payer.
func WithBaseURL(base string) Option {
	return func(c *Client) error {
		u, err := parseHTTPURL(base)
		if err != nil {
			return fmt.Errorf("paygate: base URL: %w", err)
		}
		c.baseUser, u.User = u.User, nil
		c.baseURL = strings.TrimRight(u.String(), "/")
		return nil
	}
}

// WithInsecureHTTP allows a plain http:// base URL whose host is not
// loopback. Card data, signed requests and the gateway's answers then cross
// the network in clear text: use it only on a private test network (a
// sandbox in another container), never in production.
func WithInsecureHTTP() Option {
	return func(c *Client) error {
		c.insecure = true
		return nil
	}
}

// WithCheckoutURL sets the hosted confirmation address ({checkout_url})
// that alternative-method payments redirect the payer to. It defaults to the
// base URL.
func WithCheckoutURL(checkout string) Option {
	return func(c *Client) error {
		u, err := parseHTTPURL(checkout)
		if err != nil {
			return fmt.Errorf("paygate: checkout URL: %w", err)
		}
		if u.User != nil {
			// Payers' browsers are sent to this address.
			return errors.New("paygate: checkout URL: must not carry credentials: payers are sent to it")
		}
		c.checkoutURL = strings.TrimRight(u.String(), "/")
		return nil
	}
}

// WithHTTPClient sets the HTTP client. The default has connection, TLS and
// response-header timeouts and keeps up to 64 idle connections per host.
//
// The client is used through a shallow copy whose CheckRedirect refuses
// every redirect: a followed redirect would send a signed, card-bearing
// body (or, for a GET, the card in the query string and the Referer) to
// wherever the answer points. The given client itself is not changed.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("paygate: nil *http.Client")
		}
		c.httpClient = hc
		return nil
	}
}

// WithLogger logs one record per HTTP attempt (method, path, status,
// duration, attempt) at debug level, and retries at info level. Parameters,
// bodies and keys are never logged. By default nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) error {
		c.logger = l
		return nil
	}
}

// WithAppInfo appends "name/version" of the merchant's application to the
// User-Agent header.
func WithAppInfo(name, version string) Option {
	return func(c *Client) error {
		if name == "" || strings.ContainsAny(name+version, " /\r\n") {
			return errors.New("paygate: app name and version must be non-empty tokens without spaces or slashes")
		}
		c.appInfo = name + "/" + version
		return nil
	}
}

// WithRetryPolicy sets how failed requests are retried; see [RetryPolicy].
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) error {
		c.retry = p.normalized()
		return nil
	}
}

// WithForm selects the basic or extended form of the interface.
func WithForm(f Form) Option {
	return func(c *Client) error {
		if f != FormBasic && f != FormExtended {
			return fmt.Errorf("paygate: unknown form %d", int(f))
		}
		c.form = f
		return nil
	}
}

// WithTimeout bounds each call, retries included, unless the caller's
// context ends sooner. Zero leaves only the caller's context.
func WithTimeout(d time.Duration) Option {
	return func(c *Client) error {
		if d < 0 {
			return errors.New("paygate: negative timeout")
		}
		c.timeout = d
		return nil
	}
}

// WithResponseHeaderTimeout bounds how long one attempt waits for the
// gateway's response headers once the request is written (default
// DefaultResponseHeaderTimeout), so that a gateway that accepts the
// connection and never answers ends the attempt before the call's timeout:
// a GET is then retried, a POST reports ErrOutcomeUnknown. It configures
// the default transport; with WithHTTPClient, set ResponseHeaderTimeout on
// that client's transport instead (NewClient rejects both together).
func WithResponseHeaderTimeout(d time.Duration) Option {
	return func(c *Client) error {
		if d <= 0 {
			return errors.New("paygate: response header timeout must be positive")
		}
		c.headerWait = d
		return nil
	}
}

// WithMaxResponseBytes bounds how much of a response body is read; a larger
// body is an error.
func WithMaxResponseBytes(n int64) Option {
	return func(c *Client) error {
		if n <= 0 || n > 1<<40 {
			return errors.New("paygate: max response bytes must be between 1 and 2^40")
		}
		c.maxBody = n
		return nil
	}
}

// NewClient returns a client for the project identified by projectKey (the
// public key, sent as "project"), signing with privateKey. WithBaseURL is
// required.
func NewClient(projectKey, privateKey string, opts ...Option) (*Client, error) {
	if projectKey == "" {
		return nil, &ValidationError{Field: "project", Reason: "the project's public key is required"}
	}
	if privateKey == "" {
		return nil, &ValidationError{Field: "private key", Reason: "the project's private key is required"}
	}
	c := &Client{
		projectKey: projectKey,
		signer:     newSigner(privateKey),
		retry:      DefaultRetryPolicy,
		timeout:    DefaultTimeout,
		maxBody:    DefaultMaxResponseBytes,
	}
	for _, opt := range opts {
		if err := opt(c); err != nil {
			return nil, err
		}
	}
	if c.baseURL == "" {
		return nil, errors.New("paygate: no base URL; pass WithBaseURL")
	}
	c.apiPrefix = c.baseURL + "/v1/"
	if c.checkoutURL == "" {
		c.checkoutURL = c.baseURL
	}
	switch {
	case c.httpClient == nil:
		c.httpClient = defaultHTTPClient(cmp.Or(c.headerWait, DefaultResponseHeaderTimeout))
	case c.headerWait != 0:
		return nil, errors.New("paygate: WithResponseHeaderTimeout configures the default transport; set ResponseHeaderTimeout on the transport given to WithHTTPClient")
	default:
		hc := *c.httpClient
		hc.CheckRedirect = refuseRedirect
		c.httpClient = &hc
	}
	if err := c.checkCleartext(); err != nil {
		return nil, err
	}
	c.userAgent = "paygate-go/" + Version + " go/" + runtime.Version()
	if c.appInfo != "" {
		c.userAgent += " " + c.appInfo
	}
	c.common.client = c
	c.Users = (*UsersService)(&c.common)
	c.Cards = (*CardsService)(&c.common)
	c.Transactions = (*TransactionsService)(&c.common)
	c.Payouts = (*PayoutsService)(&c.common)
	c.Balance = (*BalanceService)(&c.common)
	return c, nil
}

// ProjectKey returns the project's public key.
func (c *Client) ProjectKey() string { return c.projectKey }

// Form returns the form of the interface the client speaks.
func (c *Client) Form() Form { return c.form }

// String describes the client without its private key.
func (c *Client) String() string {
	return fmt.Sprintf("paygate.Client{project: %q, baseURL: %q, form: %s}", c.projectKey, c.baseURL, c.form)
}

// GoString is String, so that %#v never prints the private key.
func (c *Client) GoString() string { return c.String() }

// Format prints String for every verb, so that %v, %+v and %#v never print
// the private key.
func (c *Client) Format(f fmt.State, _ rune) { io.WriteString(f, c.String()) }

// LogValue logs the client without its private key.
func (c *Client) LogValue() slog.Value {
	return slog.GroupValue(slog.String("project", c.projectKey), slog.String("base_url", c.baseURL))
}

// parseHTTPURL parses an absolute http(s) address without query or
// fragment. Its errors quote the address without its credentials.
func parseHTTPURL(s string) (*url.URL, error) {
	u, ok := absoluteHTTPURL(s)
	if !ok {
		if strings.Contains(s, "@") {
			return nil, errors.New("the address is not an absolute http(s) URL")
		}
		return nil, fmt.Errorf("%q is not an absolute http(s) URL", s)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		bare := *u
		bare.User = nil
		return nil, fmt.Errorf("%q must not carry a query or fragment", bare.String())
	}
	return u, nil
}

// defaultHTTPClient is the client used when WithHTTPClient is not given:
// it never follows a redirect (see refuseRedirect), bounds dialling, the
// TLS handshake and the wait for the answer's header, and keeps enough idle
// connections for a busy shop talking to one host.
func defaultHTTPClient(headerWait time.Duration) *http.Client {
	return &http.Client{
		CheckRedirect: refuseRedirect,
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          256,
			MaxIdleConnsPerHost:   64,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: headerWait,
			ExpectContinueTimeout: time.Second,
		}}
}

// CallOption adjusts one call.
type CallOption func(*callSettings)

type callSettings struct {
	retry    RetryPolicy
	timeout  time.Duration
	warnings *[]DecodeWarning
}

// WithCallRetryPolicy overrides the client's retry policy for one call.
func WithCallRetryPolicy(p RetryPolicy) CallOption {
	return func(s *callSettings) { s.retry = p.normalized() }
}

// WithCallTimeout overrides the client's timeout for one call.
func WithCallTimeout(d time.Duration) CallOption {
	return func(s *callSettings) { s.timeout = d }
}

// endpoint describes one method of the gateway.
type endpoint struct {
	method       string // http.MethodGet or http.MethodPost
	path         string // below /v1/, for example "card/process"
	unsigned     bool   // sent without a signature
	extendedOnly bool   // absent from the basic form
}

// validator is implemented by parameter structs that can be checked before
// anything is sent.
type validator interface {
	validate(Form) error
}

// checker is implemented by response types that check, once decoded, what
// the per-field rules cannot express (fields required only together with
// others, contradictions).
type checker interface {
	check() error
}

var pairsPool = sync.Pool{New: func() any { p := make(formenc.Pairs, 0, 24); return &p }}

// do is the one request pipeline: validate, encode, sign, send (with the
// retries the policy allows), read, decode.
func (c *Client) do(ctx context.Context, ep endpoint, params any, out any, opts []CallOption) error {
	if ep.extendedOnly && c.form == FormBasic {
		return fmt.Errorf("%w: %s %s", ErrBasicForm, ep.method, ep.path)
	}
	if rv := reflect.ValueOf(params); rv.Kind() == reflect.Pointer && rv.IsNil() {
		params = nil // a typed nil sends no parameters and has nothing to validate
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
		return &NetworkError{Method: ep.method, Path: ep.path, Err: err}
	}
	encoded, unknown, err := c.encode(make([]byte, 0, 512), ep, params)
	if err != nil {
		return err
	}

	if settings.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, settings.timeout)
		defer cancel()
	}
	r := &attempt{client: c, ep: ep, encoded: encoded}
	status, body, attempts, err := r.sendWithRetries(ctx, settings.retry)
	if err != nil {
		if ep.method == http.MethodPost && r.mayHaveReached {
			return unknown.after(attempts, err)
		}
		return &NetworkError{Method: ep.method, Path: ep.path, Attempts: attempts, Err: err}
	}
	if isRedirect(status) {
		return &Error{HTTPStatus: status, Message: redirectRefused(r.location), Attempts: attempts}
	}
	warnings, err := c.decode(ep, status, body, out)
	if err != nil {
		err = secretsOf(encoded).scrub(err)
	}
	for _, w := range warnings {
		c.log(ctx, slog.LevelWarn, "paygate unreadable field left zero", ep, status, 0, attempts, nil,
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
		if ep.method == http.MethodPost && apiErr.Code == 0 && status >= 500 {
			return unknown.after(attempts, err)
		}
	case ep.method == http.MethodPost:
		// The gateway answered 2xx, but with nothing we can read: it may
		// well have charged.
		return unknown.after(attempts, err)
	}
	return err
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
	if pairs, err = formenc.Append(pairs, params); err != nil {
		return nil, unknown, err
	}
	if !ep.unsigned {
		pairs = append(pairs, formenc.Pair{Key: SignatureParam, Value: c.signer.signPairs(pairs)})
	}
	unknown = OutcomeUnknownError{Method: ep.method, Path: ep.path}
	unknown.OrderID, _ = pairs.Get("order_id")
	if unknown.OrderID == "" {
		unknown.OrderID, _ = pairs.Get("orderId")
	}
	if id, ok := pairs.Get("id"); ok {
		unknown.TransactionID, _ = ParseID(id)
	}
	return formenc.AppendEncoded(dst, pairs), unknown, nil
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
}

func (a *attempt) sendWithRetries(ctx context.Context, policy RetryPolicy) (status int, body []byte, attempts int, err error) {
	for attempts = 1; ; attempts++ {
		var header http.Header
		var connected bool
		status, header, body, connected, err = a.send(ctx, attempts)
		notSent := err != nil && !connected && isDialError(err)
		if !notSent {
			a.mayHaveReached = true
		}
		retryable := false
		switch {
		case ctx.Err() != nil:
		case err != nil:
			// A POST is retried only when it provably never left.
			retryable = a.ep.method == http.MethodGet || notSent
		case a.ep.method == http.MethodGet:
			retryable = retryableStatus(status)
		}
		if !retryable || attempts >= policy.MaxAttempts {
			return status, body, attempts, err
		}
		wait, ok := policy.backoff(attempts, retryAfter(header, time.Now()))
		if !ok {
			return status, body, attempts, err
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			return status, body, attempts, err
		}
		a.client.log(ctx, slog.LevelInfo, "paygate retry", a.ep, status, 0, attempts, err, slog.Duration("wait", wait))
		if werr := sleep(ctx, wait); werr != nil {
			if err == nil {
				err = werr
			}
			return status, body, attempts, err
		}
	}
}

// send performs one HTTP exchange. connected reports whether a connection
// to the gateway was obtained, after which the request may have arrived.
func (a *attempt) send(ctx context.Context, n int) (status int, header http.Header, body []byte, connected bool, err error) {
	c := a.client
	var gotConn atomic.Bool
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { gotConn.Store(true) }}
	ctx = httptrace.WithClientTrace(ctx, trace)

	target := c.apiPrefix + a.ep.path
	var req *http.Request
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
		return 0, nil, nil, false, scrubURL(err, c.apiPrefix+a.ep.path)
	}
	req.URL.User = c.baseUser
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)

	start := time.Now()
	resp, err := c.httpClient.Do(req)
	if err != nil {
		// Before logging: a transport error can quote the answer, which
		// may echo the request.
		err = secretsOf(a.encoded).scrub(scrubURL(err, c.apiPrefix+a.ep.path))
		c.log(ctx, slog.LevelDebug, "paygate request", a.ep, 0, time.Since(start), n, err)
		return 0, nil, nil, gotConn.Load(), err
	}
	defer resp.Body.Close()
	if isRedirect(resp.StatusCode) {
		a.location = resp.Header.Get("Location")
	}
	body, err = readLimited(resp.Body, c.maxBody)
	if err != nil {
		err = secretsOf(a.encoded).scrub(err)
	}
	c.log(ctx, slog.LevelDebug, "paygate request", a.ep, resp.StatusCode, time.Since(start), n, err)
	if err != nil {
		return resp.StatusCode, resp.Header, nil, true, err
	}
	return resp.StatusCode, resp.Header, body, true, nil
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

func (c *Client) log(ctx context.Context, level slog.Level, msg string, ep endpoint, status int, d time.Duration, n int, err error, extra ...slog.Attr) {
	if c.logger == nil || !c.logger.Enabled(ctx, level) {
		return
	}
	attrs := append([]slog.Attr{
		slog.String("method", ep.method),
		slog.String("path", ep.path),
		slog.Int("status", status),
		slog.Duration("duration", d),
		slog.Int("attempt", n),
	}, extra...)
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
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
	if err := screenBody(body); err != nil {
		return nil, &ResponseError{Method: ep.method, Path: ep.path, HTTPStatus: status, Err: err}
	}
	warnings, err := decodeTolerant(body, out)
	if err == nil {
		if ch, ok := out.(checker); ok {
			err = ch.check()
		}
	}
	if err != nil {
		re := &ResponseError{Method: ep.method, Path: ep.path, HTTPStatus: status, Err: err}
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

// missingFieldError names a field the gateway always sends but did not.
type missingFieldError struct{ field string }

func (e *missingFieldError) Error() string { return "required field " + e.field + " is missing" }

func missing(field string) error { return &missingFieldError{field: field} }
