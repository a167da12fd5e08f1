package paygatetest

import (
	"cmp"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paygate/paygate-go"
)

// Default keys of the project a server starts with when WithProject is not
// given.
const (
	DefaultProjectKey = "sandbox-project"
	DefaultPrivateKey = "sandbox-private-key"
)

// Default timings; see WithProcessingDelay and WithCallbackRetry.
const (
	DefaultProcessingDelay = 200 * time.Millisecond
	// DefaultCallbackAttempts is how many times a callback is sent at most
	// by default: at once, then 1 minute, 5 minutes, 30 minutes, 2 hours,
	// 6 hours, 12 hours and 24 hours after each failed attempt, on the
	// sandbox's clock.
	DefaultCallbackAttempts = 8
)

const (
	maxRequestBody               = 1 << 20
	temporaryTokenLifetime       = 10 * time.Minute
	firstTransactionID     int64 = 1000000000000000001
)

// Server is a running sandbox gateway on a loopback listener, in the manner
// of httptest.Server. It serves the API under /v1, the ACS page at /acs and
// the alternative-method confirm page at /confirm/{id}/. All its state is
// its own: two servers share nothing, and ids are deterministic per server
// (transactions from 1000000000000000001, users from 1).
type Server struct {
	// URL is the base address, for example http://127.0.0.1:41235; it is
	// both the base URL and the checkout URL of the gateway.
	URL string
	// ProjectKey and PrivateKey are the keys of the server's project.
	ProjectKey string
	PrivateKey string

	publicURL string     // written into acs.url; URL unless WithPublicURL
	keySource string     // see WithKeySource
	ownHosts  []string   // of URL and publicURL: see foreignOrigin
	faults    faultTable // see InjectFault
	guesses   *guessLimiter
	sessions  *sessions
	logins    *loginLinks // see LoginURL

	hs              *httptest.Server
	clock           *Clock
	unsubscribe     func()
	processingDelay time.Duration

	mu    sync.Mutex // guards st, timers and closed
	st    *state
	timer map[int64]*time.Timer

	// autoCharges counts the automatic recurring payments made, so that a
	// fixture file's clock moves make a bounded number; see
	// fixtureLoader.step.
	autoCharges atomic.Int64

	closed     chan struct{}
	closeOnce  sync.Once
	deliveries *deliverer
	persist    *persister // nil without WithStateFile
}

// serverTimeouts bound how long a client may hold a connection: a client
// that sends its headers or body slowly, or reads the answer slowly, or
// keeps an idle connection open, is cut off.
type serverTimeouts struct {
	readHeader, read, write, idle time.Duration
}

var defaultTimeouts = serverTimeouts{readHeader: 5 * time.Second, read: 30 * time.Second, write: 30 * time.Second, idle: 30 * time.Second}

func (t serverTimeouts) apply(hs *http.Server) {
	hs.ReadHeaderTimeout, hs.ReadTimeout, hs.WriteTimeout, hs.IdleTimeout = t.readHeader, t.read, t.write, t.idle
	hs.MaxHeaderBytes = maxHeaderBytes
}

// Option configures a Server.
type Option func(*config)

// NewServer starts a sandbox on a loopback port and returns it. Close it
// when done. It panics when no port can be opened, as httptest.NewServer
// does.
func NewServer(opts ...Option) *Server {
	s, err := start("", opts)
	if err != nil {
		panic("paygatetest: " + err.Error())
	}
	return s
}

// Listen starts a sandbox on addr (host:port; port 0 picks a free one), for
// a standalone server. Close it when done.
func Listen(addr string, opts ...Option) (*Server, error) {
	return start(addr, opts)
}

// Client returns a client of the server's project that speaks the
// project's form, talks to this server for both the API and the checkout
// pages, and does not retry (a sandbox never needs it). opts are applied
// after these settings. It panics on an invalid option, since a test cannot
// go on without its client.
func (s *Server) Client(opts ...paygate.Option) *paygate.Client {
	s.mu.Lock()
	form := s.st.projects[s.ProjectKey].Form
	s.mu.Unlock()
	all := append([]paygate.Option{
		paygate.WithBaseURL(s.URL),
		paygate.WithCheckoutURL(s.URL),
		paygate.WithForm(form),
		paygate.WithRetryPolicy(paygate.NoRetries),
	}, opts...)
	c, err := paygate.NewClient(s.ProjectKey, s.PrivateKey, all...)
	if err != nil {
		panic("paygatetest: " + err.Error())
	}
	return c
}

// Clock returns the server's clock.
func (s *Server) Clock() *Clock { return s.clock }

// Advance moves the server's clock forward by d; see Clock.Advance.
func (s *Server) Advance(d time.Duration) { s.clock.Advance(d) }

// AddProject registers another project with the server. Requests name it by
// its Key and are signed with its Secret.
func (s *Server) AddProject(p Project) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.addProject(p)
}

// Project is the project with public key key as it stands now (a copy,
// which changes nothing when changed); false for none.
func (s *Server) Project(key string) (Project, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.st.projects[key]
	if p == nil {
		return Project{}, false
	}
	return *p, true
}

// ProjectBySecret is the project whose private key is secret (a copy);
// false for none. Every project's key is compared, each in constant time,
// so that how long a wrong guess takes says nothing of a key: a control
// plane that takes the key as a bearer token authenticates with it.
func (s *Server) ProjectBySecret(secret string) (Project, bool) {
	if secret == "" {
		return Project{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var found *Project
	for _, p := range s.st.projects {
		if subtle.ConstantTimeCompare([]byte(secret), []byte(p.Secret.Reveal())) == 1 {
			found = p
		}
	}
	if found == nil {
		return Project{}, false
	}
	return *found, true
}

// project is the project with public key key, nil for none: the state's
// own, which only the holder of s.mu reads or changes.
func (s *Server) project(key string) *Project {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.projects[key]
}

// SettlePending completes every payment and payout that is processing now,
// without waiting for the processing delay, and fires their callbacks.
func (s *Server) SettlePending() { s.settleAll() }

// Close stops the server: it waits for requests in flight, stops
// processing timers and callback deliveries, and closes idle connections.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.unsubscribe()
		s.mu.Lock()
		close(s.closed)
		for _, t := range s.timer {
			t.Stop()
		}
		s.mu.Unlock()
		s.hs.Close()
		if s.persist != nil {
			s.persist.finish(s)
			s.persist.release()
		}
		s.deliveries.close()
	})
}

// MarshalJSON encodes the server's URL and project key, never its private
// key, so that encoding/json and slog's JSONHandler never show it. (A copy
// of a Server, which fmt could print field by field, is refused by go vet:
// it holds a mutex.)
func (s *Server) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct{ URL, ProjectKey string }{s.URL, s.ProjectKey})
}

// Format prints the server's URL and project key, never its private key,
// whatever the verb.
func (s *Server) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "paygatetest.Server{URL:%q, ProjectKey:%q}", s.URL, s.ProjectKey)
}

func start(addr string, opts []Option) (*Server, error) {
	cfg := config{
		project: Project{
			Key:             DefaultProjectKey,
			Secret:          NewSecret(DefaultPrivateKey),
			Sandbox:         true,
			CardRemembering: true,
			Form:            paygate.FormExtended,
		},
		processingDelay: DefaultProcessingDelay,
		callbackWaits:   defaultCallbackWaits,
		timeouts:        defaultTimeouts,
		retention:       DefaultRetention,
	}
	for _, opt := range opts {
		opt(&cfg)
	}
	if cfg.clock == nil {
		cfg.clock = newRealClock()
	}
	s := &Server{
		ProjectKey:      cfg.project.Key,
		PrivateKey:      cfg.project.Secret.Reveal(),
		clock:           cfg.clock,
		processingDelay: cfg.processingDelay,
		timer:           make(map[int64]*time.Timer),
		closed:          make(chan struct{}),
		// The log keeps the callbacks of the transactions kept, about two
		// each at most, and of those Reset forgot within the same bound.
		deliveries: newDeliverer(cfg.clock, cfg.callbackWaits, cmp.Or(cfg.maxDeliveries, 2*cfg.retention),
			inFlightAllowance(cfg.retention)),
		// Real time: the sandbox's clock may stand still or jump.
		guesses:  newGuessLimiter(time.Now),
		sessions: newSessions(time.Now),
		logins:   newLoginLinks(time.Now),
	}
	s.st = newState(cfg.retention, s.deliveries.log)
	p := cfg.project
	s.st.addProject(p)
	s.st.maxTokens = cfg.maxTokens
	restored := false // from the state file: then the fixtures are in it
	var persist *persister
	if cfg.stateFile != "" {
		var err error
		if persist, err = openStateFile(cfg.stateFile); err != nil {
			return nil, err
		}
		if restored, err = s.loadStateFile(persist); err != nil {
			persist.release()
			return nil, err
		}
	}
	s.hs = httptest.NewUnstartedServer(s)
	cfg.timeouts.apply(s.hs.Config)
	if addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			if persist != nil {
				persist.release()
			}
			return nil, err
		}
		s.hs.Listener.Close()
		s.hs.Listener = ln
	}
	limiter := newConnLimiter(s.hs.Listener, cmp.Or(cfg.maxConns, maxConnections))
	s.hs.Listener, s.hs.Config.ConnState = limiter, limiter.track
	// URL is set before the first request can arrive: handlers read it.
	s.URL = "http://" + s.hs.Listener.Addr().String()
	s.publicURL = cmp.Or(cfg.publicURL, s.URL)
	s.keySource = cfg.keySource
	s.ownHosts = ownHosts(s.URL, s.publicURL)
	if persist != nil {
		if err := s.startPersisting(persist, restored); err != nil {
			s.hs.Listener.Close()
			persist.release()
			return nil, err
		}
	}
	s.hs.Start()
	unsubState := s.clock.subscribe(s.clockAdvanced)
	unsubRetries := s.clock.subscribe(s.deliveries.retryDue)
	s.unsubscribe = func() { unsubState(); unsubRetries() }
	if s.persist != nil {
		s.resume()
	}
	if cfg.fixtures != nil && !restored {
		if _, err := s.LoadFixtures(cfg.fixtures); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}
