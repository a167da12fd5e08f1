package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/paygatetest"
)

// gateway is the gateway the flow runs on, and the merchant's own endpoints
// the gateway and the payer's browser come back to.
type gateway struct {
	description string
	client      *paygate.Client
	// sandbox is the in-process sandbox, nil against a real gateway.
	sandbox *paygatetest.Server
	// merchant serves the merchant's endpoints: /callback (the SDK's
	// callback handler) and /orders/{order}/acs-return (3-D Secure comes
	// back here).
	merchant *httptest.Server
	// callbacks receives every verified callback the merchant endpoint
	// accepted.
	callbacks chan *callback.Callback
}

// openGateway connects to the gateway the PAYGATE_* variables name, or
// starts the sandbox when none is set.
func openGateway(getenv func(string) string) (*gateway, error) {
	gw := &gateway{callbacks: make(chan *callback.Callback, 64)}
	base, project, secret := getenv("PAYGATE_BASE_URL"), getenv("PAYGATE_PROJECT"), getenv("PAYGATE_SECRET")
	if base == "" && project == "" && secret == "" {
		gw.merchant = httptest.NewServer(nil) // handler set below, once the keys are known
		gw.sandbox = paygatetest.NewServer(
			paygatetest.WithClock(paygatetest.NewClock(time.Now().UTC())),
			paygatetest.WithCallbackURL(gw.merchant.URL+"/callback"),
		)
		gw.client = gw.sandbox.Client(paygate.WithAppInfo("quickstart", paygate.Version))
		secret = gw.sandbox.PrivateKey
		gw.description = "in-process sandbox at " + gw.sandbox.URL + " (no account needed)"
	} else {
		var missing []string
		for _, name := range []string{"PAYGATE_BASE_URL", "PAYGATE_PROJECT", "PAYGATE_SECRET"} {
			if getenv(name) == "" {
				missing = append(missing, name)
			}
		}
		if missing != nil {
			return nil, fmt.Errorf("set PAYGATE_BASE_URL, PAYGATE_PROJECT and PAYGATE_SECRET together (or none, for the sandbox); missing %s", strings.Join(missing, ", "))
		}
		opts := []paygate.Option{paygate.WithBaseURL(base), paygate.WithAppInfo("quickstart", paygate.Version)}
		if checkout := getenv("PAYGATE_CHECKOUT_URL"); checkout != "" {
			opts = append(opts, paygate.WithCheckoutURL(checkout))
		}
		// A standalone sandbox on another host of a private test network
		// (a compose service, say) speaks plain http; only then is this set.
		if getenv("PAYGATE_INSECURE_HTTP") == "1" {
			opts = append(opts, paygate.WithInsecureHTTP())
		}
		client, err := paygate.NewClient(project, secret, opts...)
		if err != nil {
			return nil, err
		}
		gw.client = client
		gw.merchant = httptest.NewServer(nil)
		gw.description = base
	}
	handler, err := gw.merchantHandler(secret)
	if err != nil {
		gw.Close()
		return nil, err
	}
	gw.merchant.Config.Handler = handler
	return gw, nil
}

// merchantHandler is the merchant side: what a real integration mounts on
// its own server.
func (gw *gateway) merchantHandler(secret string) (http.Handler, error) {
	callbacks, err := callback.NewHandler([]string{secret}, func(_ context.Context, cb *callback.Callback) error {
		select {
		case gw.callbacks <- cb:
		default: // nobody is waiting for more; the callback is still acknowledged
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("POST /callback", callbacks)
	// One return URL per order, and the return bound to it: anyone can post
	// one order's PaRes and MD to another order's return URL.
	mux.HandleFunc("POST /orders/{order}/acs-return", func(w http.ResponseWriter, r *http.Request) {
		params, err := paygate.ReadACSReturn(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		params.OrderID = r.PathValue("order")
		payment, err := gw.client.Cards.Authenticate(r.Context(), params)
		if errors.Is(err, paygate.ErrACSReturnMismatch) {
			http.Error(w, "this verification belongs to another payment", http.StatusBadRequest)
			return
		}
		if err != nil {
			http.Error(w, "authentication failed: "+err.Error(), http.StatusBadGateway)
			return
		}
		fmt.Fprintf(w, "payment %s %s", payment.ID, payment.Status)
	})
	return mux, nil
}

// waitForCallback returns the first verified callback for id with status.
func (gw *gateway) waitForCallback(ctx context.Context, id paygate.ID, status callback.Status) (*callback.Callback, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		select {
		case cb := <-gw.callbacks:
			if cb.ID == id && cb.Status == status {
				return cb, nil
			}
		case <-ctx.Done():
			return nil, errors.New("no " + string(status) + " callback for " + id.String() + " within 10s")
		}
	}
}

// Close stops the sandbox and the merchant endpoints.
func (gw *gateway) Close() {
	if gw.sandbox != nil {
		gw.sandbox.Close()
	}
	if gw.merchant != nil {
		gw.merchant.Close()
	}
}
