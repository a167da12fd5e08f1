package paygatetest

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/paygate/paygate-go"
)

// Project is a merchant project as the sandbox keeps it.
type Project struct {
	// ID is the project's numeric id, which callbacks carry in their
	// "project" field (integer(11) in the spec); zero takes the next free
	// id when the project is added.
	ID int
	// Key is the public key, sent as "project".
	Key string
	// Secret is the private key requests and callbacks are signed with
	// (NewSecret). It never prints, even from an unexported field of
	// another struct: see Secret.
	Secret Secret
	// CallbackURL receives a signed POST on every status change; empty
	// means callbacks are recorded but not sent.
	CallbackURL string
	// Sandbox is reported in callbacks' "sandbox" field.
	Sandbox bool
	// Forced3DS sends every charge through the ACS, whatever its 3ds
	// parameter says.
	Forced3DS bool
	// CardRemembering allows remember=1; when false, it is error 40312.
	CardRemembering bool
	// Form is the form of the interface the project speaks.
	Form paygate.Form
}

type config struct {
	project         Project
	clock           *Clock
	processingDelay time.Duration
	callbackWaits   []time.Duration
	timeouts        serverTimeouts
	maxConns        int // 0 is maxConnections
	maxTokens       int
	maxDeliveries   int
	retention       int
	publicURL       string
	keySource       string    // see WithKeySource
	stateFile       string    // see WithStateFile
	fixtures        io.Reader // see WithFixtures
}

// WithProject sets the public and private key of the server's project
// (default DefaultProjectKey and DefaultPrivateKey).
func WithProject(key, secret string) Option {
	return func(c *config) { c.project.Key, c.project.Secret = key, NewSecret(secret) }
}

// WithForm sets the form the project speaks (default extended). In the
// basic form the sandbox answers and calls back as the basic form does, and
// the extended-only endpoints answer 404 with error code 40400.
func WithForm(f paygate.Form) Option {
	return func(c *config) { c.project.Form = f }
}

// WithCallbackURL sets the project's callback URL. Without it, callbacks
// are recorded (see Server.Deliveries) but not sent.
func WithCallbackURL(u string) Option {
	return func(c *config) { c.project.CallbackURL = u }
}

// WithPublicURL sets the address at which browsers reach the server (for
// example http://localhost:8080 when it listens on 0.0.0.0:8080, or the
// address of a proxy in front of it): the acs.url of 3-D Secure charges is
// built on it, and the confirm page and the dashboard accept a form from
// it as from the server's URL (never from the host a request's Host
// header names). Default: the server's URL.
func WithPublicURL(u string) Option {
	return func(c *config) { c.publicURL = strings.TrimRight(u, "/") }
}

// WithKeySource says where the project's private key comes from ("the
// file /run/sandbox/key", "PAYGATE_SECRET"), for the answer to a wrong
// signature, which names it beside the canonical string the sandbox
// signed, so that a developer sees which key and which values to sign
// with. The key itself is never in an answer.
func WithKeySource(where string) Option {
	return func(c *config) { c.keySource = where }
}

// WithForced3DS makes 3-D Secure mandatory for the project: every charge
// that is not declined goes through the ACS.
func WithForced3DS(on bool) Option {
	return func(c *config) { c.project.Forced3DS = on }
}

// WithCardRemembering allows or forbids remembering cards (default
// allowed); a charge with remember=1 on a project that forbids it is error
// 40312.
func WithCardRemembering(on bool) Option {
	return func(c *config) { c.project.CardRemembering = on }
}

// WithSandboxFlag sets the "sandbox" field of callbacks (default on: "1").
func WithSandboxFlag(on bool) Option {
	return func(c *config) { c.project.Sandbox = on }
}

// WithClock sets the server's clock, typically one made by NewClock, so
// that the test controls token expiry and recurring frequency.
func WithClock(clock *Clock) Option {
	return func(c *config) { c.clock = clock }
}

// WithProcessingDelay sets how long a processing payment or payout waits
// before it settles (default 200ms of real time). It settles earlier when
// the clock is advanced or SettlePending is called; with d <= 0 it settles
// only then.
func WithProcessingDelay(d time.Duration) Option {
	return func(c *config) { c.processingDelay = d }
}

// WithCallbackRetry sets how many times a callback is sent at most and
// the wait after the first failed attempt, doubling after each further
// one, on the sandbox's clock: with a clock made by NewClock, retries come
// when the test advances it. The default is DefaultCallbackAttempts
// attempts: at once, then after 1m, 5m, 30m, 2h, 6h, 12h and 24h. Each
// wait, of either schedule, is lengthened by a random part of up to a tenth
// of itself, so that callbacks that failed together are not retried at the
// same instant: a test advances the clock to Delivery.NextAttempt. attempts
// below 1 or baseDelay below 0 leave the default.
func WithCallbackRetry(attempts int, baseDelay time.Duration) Option {
	return func(c *config) {
		if attempts < 1 || baseDelay < 0 {
			return
		}
		// wait is the option's own: one option may configure many servers.
		waits, wait := make([]time.Duration, attempts-1), baseDelay
		for i := range waits {
			waits[i] = wait
			if wait < time.Duration(math.MaxInt64)/2 {
				wait *= 2
			}
		}
		c.callbackWaits = waits
	}
}

// MarshalJSON encodes the project with its private key redacted (see
// Secret), so that encoding/json and slog's JSONHandler never show it.
func (p Project) MarshalJSON() ([]byte, error) {
	type fields Project // the fields without the methods: no recursion
	return json.Marshal(fields(p))
}

// Format prints the project without its private key, whatever the verb,
// so that a test log never shows it.
func (p Project) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "paygatetest.Project{Key:%q, Secret:%s, CallbackURL:%q, Sandbox:%t, Forced3DS:%t, CardRemembering:%t, Form:%s}",
		p.Key, p.Secret, p.CallbackURL, p.Sandbox, p.Forced3DS, p.CardRemembering, p.Form)
}
