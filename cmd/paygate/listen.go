package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/paygate/paygate-go/internal/cleartext"
)

const listenLong = `Send the sandbox's callbacks to URL while listen runs, and print each callback
and the receiver's answer as it arrives, as "stripe listen --forward-to" does.

listen points the sandbox's callback URL (POST /sandbox/callback-url) at a
forwarder of its own on 127.0.0.1, which passes each callback to URL as it
came, answers the sandbox what URL answered (so that the sandbox retries as
it would), and prints it. A sandbox that is not on this machine
(--remote-sandbox) cannot reach that forwarder: there, and with --direct,
listen points the callback URL at URL itself and follows the deliveries
(GET /sandbox/deliveries), printing each attempt's status.

On Ctrl-C (SIGINT, SIGTERM) it puts back the callback URL it replaced. With
--json it prints one JSON object a line: the callback's fields, where it went,
the receiver's HTTP status and answer (forwarder), or the delivery as paygate
deliveries --follow --json prints it (--direct).`

func newListenCmd(cfg *config) *cobra.Command {
	var forwardTo string
	var direct bool
	var every time.Duration
	cmd := &cobra.Command{
		Use:         "listen --forward-to URL [--direct]",
		Short:       "Forward the sandbox's callbacks to URL and print each as it arrives",
		Long:        listenLong,
		Example:     "  paygate listen --forward-to http://127.0.0.1:9090/callbacks",
		Args:        exactArgs(0),
		Annotations: calls("GET /sandbox/callback-url", "POST /sandbox/callback-url", "GET /sandbox/deliveries"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if forwardTo == "" {
				return usagef("listen needs --forward-to URL, where the callbacks go")
			}
			if _, err := cfg.checkedURL("--forward-to", forwardTo, "callbacks signed with the private key"); err != nil {
				return err
			}
			cp, err := cfg.controlPlane()
			if err != nil {
				return err
			}
			u, err := url.Parse(cp.base)
			if err != nil {
				return err
			}
			if direct || !cleartext.Loopback(u.Hostname()) {
				return cfg.listenDirect(cmd.Context(), cp, forwardTo, every)
			}
			return cfg.listenForwarding(cmd.Context(), cp, forwardTo)
		},
	}
	f := cmd.Flags()
	f.StringVar(&forwardTo, "forward-to", "", "where the callbacks go (your handler)")
	f.BoolVar(&direct, "direct", false, "point the callback URL at --forward-to itself and follow the deliveries, without a forwarder")
	f.DurationVar(&every, "interval", time.Second, "with --direct: how often to poll the deliveries")
	return cmd
}

// callbackURL is the sandbox's callback URL now.
func (p *controlPlane) callbackURL(ctx context.Context) (string, error) {
	var out struct {
		URL string `json:"url"`
	}
	err := p.do(ctx, http.MethodGet, "callback-url", nil, &out)
	return out.URL, err
}

// setCallbackURL points the sandbox's callbacks at u.
func (p *controlPlane) setCallbackURL(ctx context.Context, u string) error {
	var out map[string]any
	return p.do(ctx, http.MethodPost, "callback-url", url.Values{"url": {u}}, &out)
}

// divert points the sandbox's callbacks at target until ctx ends, and
// returns restore, which puts back the URL it replaced: with a context of
// its own, as ctx has ended by then.
func (c *config) divert(ctx context.Context, cp *controlPlane, target string) (restore func() error, err error) {
	previous, err := cp.callbackURL(ctx)
	if err != nil {
		return nil, err
	}
	if err := cp.setCallbackURL(ctx, target); err != nil {
		return nil, err
	}
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := cp.setCallbackURL(ctx, previous); err != nil {
			return fmt.Errorf("putting back the callback URL %q: %w", previous, err)
		}
		fmt.Fprintln(c.env.stderr, "put back:", callbackTarget(previous))
		return nil
	}, nil
}

// listenDirect points the callbacks at target and prints each new attempt
// until ctx ends.
func (c *config) listenDirect(ctx context.Context, cp *controlPlane, target string, every time.Duration) error {
	if every <= 0 {
		return usagef("--interval must be positive")
	}
	restore, err := c.divert(ctx, cp, target)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.env.stderr, "ready: the sandbox's callbacks go to %s; Ctrl-C puts the callback URL back\n", printable(target))
	err = c.followDeliveries(ctx, cp, every, true)
	return errors.Join(err, restore())
}

// maxForwarded bounds a callback the forwarder passes on (a callback is at
// most 64 KiB) and the receiver's answer it passes back.
const maxForwarded = 1 << 20

// forwarded is what listen --json prints of a forwarded callback.
type forwarded struct {
	Fields     map[string]any `json:"fields"`
	URL        string         `json:"url"`
	HTTPStatus int            `json:"http_status,omitempty"`
	Answer     string         `json:"answer"`
	Error      string         `json:"error,omitempty"`
}

// listenForwarding serves a forwarder on 127.0.0.1, points the callbacks
// at it, and passes each to target until ctx ends.
func (c *config) listenForwarding(ctx context.Context, cp *controlPlane, target string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	var mu sync.Mutex // one printed callback at a time
	hc := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "callbacks are POSTs", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxForwarded))
		if err != nil {
			http.Error(w, "the callback is too large", http.StatusRequestEntityTooLarge)
			return
		}
		out := forwarded{URL: target}
		if values, err := parseBody(body); err == nil {
			out.Fields = fieldsJSON(values)
		}
		status, answer, err := forward(r.Context(), hc, target, r.Header.Get("Content-Type"), body)
		out.HTTPStatus, out.Answer = status, string(answer)
		if err != nil {
			out.Error = err.Error()
			status, answer = http.StatusBadGateway, []byte("paygate listen: "+err.Error())
		}
		w.WriteHeader(status)
		w.Write(answer)
		mu.Lock()
		defer mu.Unlock()
		c.printForwarded(out)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	self := "http://" + ln.Addr().String() + "/"
	restore, err := c.divert(ctx, cp, self)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.env.stderr, "ready: the sandbox's callbacks go to %s and on to %s; Ctrl-C puts the callback URL back\n", self, printable(target))
	<-ctx.Done()
	return restore()
}

// forward POSTs a callback body to target and returns the receiver's
// status and answer.
func forward(ctx context.Context, hc *http.Client, target, contentType string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(res.Body, maxForwarded))
	return res.StatusCode, answer, err
}

// printForwarded prints one forwarded callback, a JSON line with --json.
func (c *config) printForwarded(f forwarded) {
	if c.json {
		line, _ := json.Marshal(f)
		fmt.Fprintf(c.env.stdout, "%s\n", jsonPrintable(line))
		return
	}
	result := printable(f.Error)
	if f.Error == "" {
		result = fmt.Sprintf("HTTP %d %s", f.HTTPStatus, printable(strings.TrimSpace(f.Answer)))
	}
	fmt.Fprintf(c.env.stdout, "callback %s id=%s to %s: %s\n", printable(fmt.Sprint(f.Fields["status"])),
		printable(fmt.Sprint(f.Fields["id"])), printable(f.URL), strings.TrimSpace(result))
}
