package paygatetest_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
)

// clientFrom is an HTTP client whose connections come from the loopback
// address ip (any of 127.0.0.0/8 on Linux), so that a test can be many
// clients; it follows no redirect.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{
		Transport:     &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 2},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// guess sends one wrong key from hc, in one of the three ways a key is
// guessed: the key form, a bearer key, a wrong signature on /v1. It
// returns the status, or 0 when ctx ended first.
func (s *sandbox) guess(ctx context.Context, hc *http.Client, way int, n int) int {
	var req *http.Request
	wrong := "guess-" + strconv.Itoa(n)
	switch way % 3 {
	case 0:
		req, _ = http.NewRequestWithContext(ctx, http.MethodPost, s.srv.URL+"/sandbox/login", strings.NewReader(url.Values{"key": {wrong}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	case 1:
		req, _ = http.NewRequestWithContext(ctx, http.MethodGet, s.srv.URL+"/sandbox/deliveries", nil)
		req.Header.Set("Authorization", "Bearer "+wrong)
	default:
		v := url.Values{"project": {s.srv.ProjectKey}, "id": {"1000000000000000001"}}
		v.Set("signature", paygate.Sign(v, wrong))
		req, _ = http.NewRequestWithContext(ctx, http.MethodPost, s.srv.URL+"/v1/transaction/status", strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// signIn posts the key form from hc and returns the status.
func (s *sandbox) signInFrom(hc *http.Client, key string) int {
	s.t.Helper()
	resp, err := hc.PostForm(s.srv.URL+"/sandbox/login", url.Values{"key": {key}})
	require.NoError(s.t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// The holder of the key is never refused because others guess: 80
// addresses guessing 3 times a second each spend every budget shared by
// all, and the right key, from an address of its own, still gets in at
// every try, on the key form, as a bearer key and as a signature.
func TestGuesses_TheRightKeyGetsInWhileOthersGuess(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 80 {
		hc := clientFrom("127.0.0." + strconv.Itoa(2+i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(time.Second / 3)
			defer tick.Stop()
			for n := 0; ; n++ {
				s.guess(ctx, hc, i+n, n)
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
			}
		}()
	}
	defer func() { stop(); wg.Wait() }()
	time.Sleep(time.Second) // every shared budget is spent by now

	holder := clientFrom("127.0.0.1")
	refused := 0
	for i := range 20 {
		var status int
		switch i % 3 {
		case 0:
			status = s.signInFrom(holder, s.srv.PrivateKey)
			if status == http.StatusSeeOther {
				status = http.StatusOK
			}
		case 1:
			req, err := http.NewRequest(http.MethodGet, s.srv.URL+"/sandbox/deliveries", nil)
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+s.srv.PrivateKey)
			resp, err := holder.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			status = resp.StatusCode
		default:
			resp, err := holder.PostForm(s.srv.URL+"/v1/payout-types", s.signed(url.Values{"currency": {"EUR"}}))
			require.NoError(t, err)
			resp.Body.Close()
			status = resp.StatusCode
			// A signed method, so that the signature is looked at.
			resp, err = holder.PostForm(s.srv.URL+"/v1/balance", s.signed(nil))
			require.NoError(t, err)
			resp.Body.Close()
			if status == http.StatusOK {
				status = resp.StatusCode
			}
		}
		if status != http.StatusOK {
			refused++
			t.Logf("try %d (way %d): %d", i+1, i%3, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	assert.Zero(t, refused, "tries of the right key refused while others guessed")
}

// A wrong signature is a guess of the private key: an address that sends
// too many gets 42900 with Retry-After, a right signature from it
// included, while another address still gets in.
func TestGuesses_WrongSignaturesCount(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	guesser := clientFrom("127.0.0.1")
	status := 0
	for n := 1; n <= 40; n++ {
		if status = s.guess(context.Background(), guesser, 2, n); status != http.StatusForbidden {
			break
		}
	}
	require.Equal(t, http.StatusTooManyRequests, status, "the 40th rapid wrong signature at the latest is refused")

	resp, err := guesser.PostForm(s.srv.URL+"/v1/balance", s.signed(nil))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "a refusal tells nothing about the signature")
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))

	resp, err = clientFrom("127.0.0.2").PostForm(s.srv.URL+"/v1/balance", s.signed(nil))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "another address has its own budget")

	resp, err = guesser.PostForm(s.srv.URL+"/v1/payout-types", url.Values{"project": {s.srv.ProjectKey}, "currency": {"EUR"}})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "an unsigned method looks at no key: no guess")
}

// A browser with a valid session is no guesser: it keeps its dashboard
// however many wrong keys its address sent.
func TestGuesses_AValidSessionIsExempt(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	b := newBrowser(t)
	cookie := b.sessionOf(s)
	for n := 1; n <= 40; n++ {
		if s.guess(context.Background(), b.hc, 0, n) == http.StatusTooManyRequests {
			break
		}
	}
	require.Equal(t, http.StatusTooManyRequests, s.guess(context.Background(), b.hc, 1, 0), "the address is out of guesses")
	assert.Equal(t, http.StatusOK, withSession(t, s, cookie), "the session still opens the dashboard")
}
