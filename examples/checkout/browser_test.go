package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/internal/testkit/chromium"
	"github.com/paygate/paygate-go/internal/testkit/cmdtest"
	"github.com/paygate/paygate-go/paygatetest"
)

// The browser tests share one headless Chromium per test binary; each
// scenario runs in a tab of its own against a shop and sandbox of its own.
// Chromium is required: when it is missing the browser tests fail (CI
// installs it with .ci/install-chromium).

var browser struct {
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if browser.cancel != nil {
		browser.cancel()
	}
	os.Exit(code)
}

// newTab opens a tab in the shared browser, starting the browser on first
// use, and returns a context for it that ends with the test or after
// timeout.
func newTab(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	browser.once.Do(func() {
		path, err := chromium.Path()
		if err != nil {
			browser.err = err
			return
		}
		dir, err := os.MkdirTemp("", "checkout-chromium-")
		if err != nil {
			browser.err = err
			return
		}
		opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(path)}
		for name, value := range chromium.Flags(dir, 1000, 820) {
			opts = append(opts, chromedp.Flag(name, value))
		}
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelBrowser := chromedp.NewContext(alloc)
		browser.ctx = ctx
		browser.cancel = func() {
			cancelBrowser()
			cancelAlloc()
			os.RemoveAll(dir)
		}
		// The first Run starts the browser, which lives as long as ctx.
		browser.err = chromedp.Do(ctx)
	})
	require.NoError(t, browser.err, "starting headless Chromium")
	tab, closeTab := chromedp.NewContext(browser.ctx)
	t.Cleanup(closeTab)
	require.NoError(t, chromedp.Do(tab), "opening a tab")
	ctx, cancel := context.WithTimeout(tab, timeout)
	t.Cleanup(cancel)
	return ctx
}

// shop is the example app under test with its own sandbox.
type shop struct {
	URL     string
	Sandbox *paygatetest.Server
	Client  *paygate.Client
	app     *app
	seen    *requestLog
	log     *cmdtest.Buffer
}

// startShop starts the app on a loopback port, with a sandbox whose
// callbacks go to the app's /callback, and records every request the app
// receives. The app's client takes clientOpts.
func startShop(t *testing.T, clientOpts ...paygate.Option) *shop {
	t.Helper()
	return startShopWith(t, nil, clientOpts...)
}

// startShopWith is startShop on a sandbox given sandboxOpts too.
func startShopWith(t *testing.T, sandboxOpts []paygatetest.Option, clientOpts ...paygate.Option) *shop {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	shopURL := "http://" + ts.Listener.Addr().String()
	sandbox := paygatetest.NewServer(append([]paygatetest.Option{paygatetest.WithCallbackURL(shopURL + "/callback"), sandboxRetry}, sandboxOpts...)...)
	logs := &cmdtest.Buffer{}
	h, err := newApp(config{
		Client:      sandbox.Client(clientOpts...),
		CallbackKey: sandbox.PrivateKey,
		GatewayURL:  sandbox.URL,
		PublicURL:   shopURL,
		Logger:      slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	require.NoError(t, err)
	seen := &requestLog{}
	ts.Config.Handler = seen.wrap(h)
	ts.Start()
	t.Cleanup(func() {
		sandbox.Close()
		ts.Close()
	})
	return &shop{URL: shopURL, Sandbox: sandbox, Client: sandbox.Client(), app: h.(*app), seen: seen, log: logs}
}

// requireNeverSaw fails when any request the shop received (path, query,
// headers or body, percent-decoded, with spaces and dashes removed) or any
// line it logged contains the card number.
func (s *shop) requireNeverSaw(t *testing.T, pan string) {
	t.Helper()
	require.NotEmpty(t, s.seen.all(), "the shop received no request at all")
	for _, req := range s.seen.all() {
		require.NotContains(t, digitsJoined(req), pan, "the shop received the card number")
	}
	require.NotContains(t, digitsJoined(s.log.String()), pan, "the shop logged the card number")
}

// digitsJoined percent-decodes s and removes the separators payers type
// inside card numbers, so that "4242+4242+4242+4242" reads as the number.
func digitsJoined(s string) string {
	if d, err := url.QueryUnescape(s); err == nil {
		s = d
	}
	return strings.NewReplacer(" ", "", "-", "", "+", "").Replace(s)
}

// sawPath reports whether the shop received a request for path.
func (s *shop) sawPath(method, path string) bool {
	for _, req := range s.seen.all() {
		if strings.HasPrefix(req, method+" "+path+" ") || strings.HasPrefix(req, method+" "+path+"?") {
			return true
		}
	}
	return false
}

// requestLog records every request as one string: method, URL, headers
// and body.
type requestLog struct {
	mu   sync.Mutex
	reqs []string
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s \n", r.Method, r.URL.RequestURI())
		r.Header.Write(&b)
		b.Write(body)
		l.mu.Lock()
		l.reqs = append(l.reqs, b.String())
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *requestLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.reqs...)
}

// groupDigits writes a card number in groups of four, as payers type it.
func groupDigits(pan string) string {
	var parts []string
	for len(pan) > 4 {
		parts = append(parts, pan[:4])
		pan = pan[4:]
	}
	return strings.Join(append(parts, pan), " ")
}
