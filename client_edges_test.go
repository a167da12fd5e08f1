package paygate

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requestLog records what a server received.
type requestLog struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (l *requestLog) add(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, r)
}

func (l *requestLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.reqs)
}

func TestRedirects_NeverFollowedWithAMerchantClient(t *testing.T) {
	for _, status := range []int{301, 302, 307, 308} {
		for _, call := range []struct {
			name string
			do   func(*Client) error
		}{
			{"POST card/process", func(c *Client) error {
				_, err := c.Cards.Charge(context.Background(), &ChargeParams{User: "1",
					Card:  &CardDetails{Number: NewCardNumber(echoCardNumber), Expiry: NewExpiry(echoMonth, echoYear), SecurityCode: NewSecurityCode(echoCode)},
					Price: decimal.RequireFromString("9.99"), Currency: "EUR", Description: "Order 5", OrderID: "ord-5"})
				return err
			}},
			{"GET card/getToken", func(c *Client) error {
				_, err := c.Cards.Tokenize(context.Background(), &TokenizeParams{
					Number: NewCardNumber(echoCardNumber), Expiry: NewExpiry(echoMonth, echoYear), SecurityCode: NewSecurityCode(echoCode)})
				return err
			}},
			{"GET payout-types", func(c *Client) error {
				_, err := c.Payouts.Types(context.Background())
				return err
			}},
			{"GET payout-parameters", func(c *Client) error {
				_, err := c.Payouts.Parameters(context.Background(), &PayoutParametersParams{Type: PayoutType{ID: 5, Key: "SEPA", Label: "SEPA"},
					Account: NewAccountNumber(echoIBAN), Currency: "EUR"})
				return err
			}},
		} {
			t.Run(fmt.Sprintf("%d %s", status, call.name), func(t *testing.T) {
				var elsewhere requestLog
				other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					elsewhere.add(r)
					w.Write([]byte(`{"id":"tok","success":true}`))
				}))
				defer other.Close()
				otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
				gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, otherURL+"/collect"+"?"+r.URL.RawQuery, status)
				}))
				defer gw.Close()

				// A client as a merchant writes it: it follows redirects, with
				// a transport and a cookie jar of its own.
				jar, err := cookiejar.New(nil)
				require.NoError(t, err)
				followed := 0
				c, err := NewClient(testProject, testSecret, WithBaseURL(gw.URL),
					WithHTTPClient(&http.Client{Transport: &http.Transport{}, Jar: jar,
						CheckRedirect: func(*http.Request, []*http.Request) error { followed++; return nil }}),
					WithRetryPolicy(NoRetries))
				require.NoError(t, err)
				err = call.do(c)

				var apiErr *Error
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, status, apiErr.HTTPStatus)
				assert.Contains(t, err.Error(), "redirect to host localhost refused")
				assert.NotContains(t, err.Error(), "/collect")
				assert.NotContains(t, err.Error(), echoCardNumber)
				assert.Zero(t, elsewhere.len(), "the redirect target must receive nothing (no body, no Referer)")
				assert.Zero(t, followed, "the merchant's CheckRedirect is never asked")
				assert.NotContains(t, err.Error(), echoIBAN)
			})
		}
	}
}

func TestRedirects_MerchantClientLeftUnchanged(t *testing.T) {
	hc := &http.Client{}
	_, err := NewClient(testProject, testSecret, WithBaseURL(testBaseURL), WithHTTPClient(hc))
	require.NoError(t, err)
	assert.Nil(t, hc.CheckRedirect, "the merchant's own client keeps its behaviour for its own requests")
}

func TestBaseURL_CredentialsNeverPrintedButSent(t *testing.T) {
	var gotUser, gotPass string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotUser, gotPass, _ = r.BasicAuth()
		w.WriteHeader(http.StatusBadGateway)
		w.Write([]byte("<html>bad gateway</html>"))
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://merchant:s3cr3t-pass@", 1)
	c, err := NewClient(testProject, testSecret, WithBaseURL(base), WithRetryPolicy(NoRetries))
	require.NoError(t, err)
	_, apiErr := c.Balance.Get(context.Background(), nil)
	require.Error(t, apiErr)
	assert.Equal(t, "merchant", gotUser)
	assert.Equal(t, "s3cr3t-pass", gotPass)

	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := closed.Addr().String()
	closed.Close()
	c2, err := NewClient(testProject, testSecret, WithBaseURL("http://merchant:s3cr3t-pass@"+addr), WithRetryPolicy(NoRetries))
	require.NoError(t, err)
	_, netErr := c2.Balance.Get(context.Background(), nil)
	require.Error(t, netErr)

	_, optErr := NewClient(testProject, testSecret, WithBaseURL("https://merchant:s3cr3t-pass@gw.example/?x=1"))
	require.Error(t, optErr)
	_, optErr2 := NewClient(testProject, testSecret, WithBaseURL("merchant:s3cr3t-pass@gw.example"))
	require.Error(t, optErr2)

	for _, text := range []string{
		c.String(), fmt.Sprintf("%v %+v %#v", c, c, c), apiErr.Error(), netErr.Error(), fmt.Sprintf("%+v", netErr),
		optErr.Error(), optErr2.Error(),
	} {
		assert.NotContains(t, text, "s3cr3t-pass")
		assert.NotContains(t, text, "merchant:")
	}
}

func TestCheckoutURL_RefusesCredentials(t *testing.T) {
	_, err := NewClient(testProject, testSecret, WithBaseURL(testBaseURL), WithCheckoutURL("https://u:s3cr3t-pass@pay.example"))
	require.ErrorContains(t, err, "must not carry credentials")
	assert.NotContains(t, err.Error(), "s3cr3t-pass")
}

// A base URL ending in /v1 (the path the API documentation writes after
// {base_url}) would make every call go to /v1/v1/... and answer 404.
func TestBaseURL_EndingInV1IsRefusedNamingTheFix(t *testing.T) {
	for _, base := range []string{"https://gateway.example.com/v1", "https://gateway.example.com/v1/", "https://gateway.example.com/pay/V1"} {
		_, err := NewClient(testProject, testSecret, WithBaseURL(base))
		require.ErrorContains(t, err, "base URL", base)
		require.ErrorContains(t, err, "without the /v1", base)
	}
	for _, base := range []string{"https://gateway.example.com/v10", "https://gateway.example.com/pay", "https://v1.example.com"} {
		_, err := NewClient(testProject, testSecret, WithBaseURL(base))
		require.NoError(t, err, base)
	}
}

func TestBaseURL_PlainHTTPRefusedUnlessLoopbackOrAllowed(t *testing.T) {
	for _, base := range []string{"http://gateway.example.com", "http://10.0.0.7:8080", "http://sandbox:8080"} {
		_, err := NewClient(testProject, testSecret, WithBaseURL(base))
		require.ErrorIs(t, err, errCleartext, base)
		_, err = NewClient(testProject, testSecret, WithBaseURL(base), WithInsecureHTTP())
		require.NoError(t, err, base)
	}
	for _, base := range []string{"http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080", "http://127.0.0.2", "https://gateway.example.com"} {
		_, err := NewClient(testProject, testSecret, WithBaseURL(base))
		require.NoError(t, err, base)
	}
}

// quotingTransport fails every request with an error that quotes its URL
// and Authorization header, as a logging or proxying transport a merchant
// wraps around the default one may.
// It records what it saw instead of blocking on it, so that a policy
// that retried by mistake fails the count below instead of hanging.
type quotingTransport struct {
	mu      sync.Mutex
	sawAuth []string
}

func (q *quotingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	q.mu.Lock()
	q.sawAuth = append(q.sawAuth, r.Header.Get("Authorization"))
	q.mu.Unlock()
	return nil, fmt.Errorf("upstream refused %s (authorization %q)", r.URL, r.Header.Get("Authorization"))
}

func TestBaseURL_CredentialsNeverInATransportError(t *testing.T) {
	const user, pass = "merchant", "s3cr3t-pass"
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	q := &quotingTransport{}
	c, err := NewClient(testProject, testSecret, WithBaseURL("https://"+user+":"+pass+"@gw.example"),
		WithHTTPClient(&http.Client{Transport: q}), WithRetryPolicy(NoRetries))
	require.NoError(t, err)
	calls := map[string]func() error{
		"GET balance": func() error { _, err := c.Balance.Get(context.Background(), nil); return err },
		"GET card/getToken": func() error {
			_, err := c.Cards.Tokenize(context.Background(), &TokenizeParams{
				Number: NewCardNumber(echoCardNumber), Expiry: NewExpiry(echoMonth, echoYear), SecurityCode: NewSecurityCode(echoCode)})
			return err
		},
		"POST card/process": func() error {
			_, err := c.Cards.Charge(context.Background(), &ChargeParams{User: "1", CardToken: NewCardToken(echoToken),
				Price: decimal.RequireFromString("9.99"), Currency: "EUR", Description: "Order 5", OrderID: "ord-5"})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			q.mu.Lock()
			q.sawAuth = nil
			q.mu.Unlock()
			err := call()
			require.Error(t, err)
			q.mu.Lock()
			assert.Equal(t, []string{basic}, q.sawAuth, "the credentials are sent, once under NoRetries")
			q.mu.Unlock()
			require.Contains(t, err.Error(), "upstream refused", "the transport's error is kept")
			for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
				assert.NotContains(t, text, pass)
				assert.NotContains(t, text, strings.TrimPrefix(basic, "Basic "))
				assert.NotContains(t, text, echoCardNumber)
			}
		})
	}
}
