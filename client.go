package paygate

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate-go/internal/cleartext"
	"github.com/paygate/paygate-go/internal/signing"
	"github.com/paygate/paygate-go/internal/wire"
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
// It is the type of callback.Callback's Form too.
type Form = wire.Form

const (
	// FormExtended is the full interface, and the client's default.
	FormExtended = wire.FormExtended
	// FormBasic is the reduced interface: resolve needs an e-mail, charges
	// take only a token and an internal user id, and transaction/create,
	// payouts, balance and transaction listings do not exist.
	FormBasic = wire.FormBasic
)

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
	signer      *signing.Signer
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
	observer    Observer      // WithObserver
	serverHost  string        // the base URL's host, for observers
	serverPort  int           // the base URL's port, explicit or implied
}

type service struct{ client *Client }

// Option configures a Client in NewClient.
type Option func(*Client) error

// WithBaseURL sets the gateway's base address ({base_url} in the API
// documentation), without the /v1 prefix, for example
// "https://gateway.example.com". It is required. An address ending in /v1
// is refused: the SDK adds /v1/ before every method, and the gateway
// answers 404 to /v1/v1/...
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
		if p := strings.ToLower(strings.TrimRight(u.Path, "/")); strings.HasSuffix(p, "/v1") {
			return fmt.Errorf("paygate: base URL must be given without the /v1 the SDK adds to every call: use %q", c.baseURL[:len(c.baseURL)-len("/v1")])
		}
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
// The default is DefaultRetryPolicy: 3 attempts, waits from 250 ms
// doubling to 10 s, full jitter.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) error {
		c.retry = p.normalized()
		return nil
	}
}

// WithForm selects the basic or extended form of the interface; the
// default is FormExtended. In the basic form Resolve needs an e-mail, a
// charge takes only a token and a user id, and the calls the basic form
// lacks fail locally with ErrBasicForm before anything is sent.
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
// context ends sooner (default DefaultTimeout, 60 s). Zero leaves only the
// caller's context.
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

// WithMaxResponseBytes bounds how much of a response body is read
// (default DefaultMaxResponseBytes); a larger body is an error, and to a
// POST an unknown outcome.
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
		signer:     signing.New(privateKey),
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
	c.serverHost, c.serverPort = hostPort(c.baseURL)
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
	// listBound overrides the bound of a walk over a listing; a zero field
	// keeps the walk's default.
	listBound ListBound
}

// WithCallRetryPolicy overrides the client's retry policy for one call.
func WithCallRetryPolicy(p RetryPolicy) CallOption {
	return func(s *callSettings) { s.retry = p.normalized() }
}

// WithListBound overrides the bound of a walk over a listing
// ([TransactionsService.All], Reconcile, Settle): it stops with a
// [*ListingBoundError] after pages pages or items transactions. A value of
// zero or less keeps that side's default ([DefaultListBound] for All,
// [DefaultReconcileBound] for Reconcile and Settle). Other calls ignore it.
func WithListBound(pages, items int) CallOption {
	return func(s *callSettings) { s.listBound = ListBound{Pages: max(pages, 0), Items: max(items, 0)} }
}

// WithCallTimeout overrides the client's timeout for one call.
func WithCallTimeout(d time.Duration) CallOption {
	return func(s *callSettings) { s.timeout = d }
}

// errCleartext is returned by NewClient for an http:// base URL whose host
// is not loopback, without WithInsecureHTTP.
var errCleartext = errors.New("paygate: base URL: plain http:// to a host that is not loopback would send card data in clear text; use https:// (or WithInsecureHTTP on a private test network)")

// checkCleartext refuses a plain http:// base URL whose host is not
// loopback, unless WithInsecureHTTP allowed it. The rule is
// internal/cleartext's, which the merchant's command applies too.
func (c *Client) checkCleartext() error {
	u, err := url.Parse(c.baseURL)
	if err != nil || c.insecure || !cleartext.Exposed(u) {
		return nil
	}
	return errCleartext
}

// hostPort returns the host and port of an address parseHTTPURL accepted,
// the port implied by the scheme when none is written.
func hostPort(address string) (string, int) {
	u, err := url.Parse(address)
	if err != nil {
		return "", 0
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		port = 443
		if u.Scheme == "http" {
			port = 80
		}
	}
	return u.Hostname(), port
}
