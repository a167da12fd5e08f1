package paygatetest_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sessionOf signs b in and returns the session cookie's value.
func (b *browser) sessionOf(s *sandbox) string {
	b.t.Helper()
	b.signIn(s)
	u, err := url.Parse(s.srv.URL + "/sandbox/")
	require.NoError(b.t, err)
	cookies := b.hc.Jar.Cookies(u)
	require.Len(b.t, cookies, 1)
	return cookies[0].Value
}

// withSession sends GET /sandbox/ with the session cookie value and
// returns the status.
func withSession(t *testing.T, s *sandbox, value string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.srv.URL+"/sandbox/", nil)
	require.NoError(t, err)
	req.AddCookie(&http.Cookie{Name: "paygate_sandbox_session", Value: value})
	status, _ := s.exchange(req)
	return status
}

// Guessing the key is slow: a client gets a few tries a second, then 429
// with Retry-After, the right key included, until it waited.
func TestDashboard_KeyGuessesAreRateLimited(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	b := newBrowser(t)
	var resp *http.Response
	for i := 1; i <= 31; i++ {
		resp, _ = b.send(http.MethodPost, s.srv.URL+"/sandbox/login", url.Values{"key": {"guess-" + strconv.Itoa(i)}}, s.srv.URL)
		if resp.StatusCode == http.StatusTooManyRequests {
			break
		}
		require.Equal(t, http.StatusForbidden, resp.StatusCode, "guess %d", i)
	}
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "the 31st rapid guess at the latest is refused")
	wait, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	require.NoError(t, err, "Retry-After in seconds")
	assert.Positive(t, wait)
	for range 10 { // hammering on makes the wait longer
		resp, _ = b.send(http.MethodPost, s.srv.URL+"/sandbox/login", url.Values{"key": {"guess"}}, s.srv.URL)
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	}

	resp, _ = b.send(http.MethodPost, s.srv.URL+"/sandbox/login", url.Values{"key": {s.srv.PrivateKey}}, s.srv.URL)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "the right key waits too: a refusal tells nothing")
	status, _ := s.controlRaw(http.MethodGet, "/sandbox/deliveries", "", "", "another-guess")
	assert.Equal(t, http.StatusTooManyRequests, status, "bearer guesses share the budget")
}

// The session cookie is a new random value at each sign-in, valid only
// until the next one, and not derived from the key alone.
func TestDashboard_SessionIsRotatedAtEachSignIn(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	first := newBrowser(t).sessionOf(s)
	require.Equal(t, http.StatusOK, withSession(t, s, first))

	second := newBrowser(t).sessionOf(s)
	assert.NotEqual(t, first, second)
	assert.Equal(t, http.StatusOK, withSession(t, s, second))
	assert.Equal(t, http.StatusForbidden, withSession(t, s, first), "a cookie from before a sign-in no longer works")

	other := newSandbox(t)
	assert.Equal(t, http.StatusForbidden, withSession(t, other, second), "another server with the same key does not take it")
}

// The key form is the sandbox's own only at the addresses it listens and
// is reached at: a Host header naming the foreign origin changes nothing.
func TestDashboard_AHostHeaderNamingTheOriginIsNotTheSandbox(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	req, err := http.NewRequest(http.MethodPost, s.srv.URL+"/sandbox/login",
		strings.NewReader(url.Values{"key": {s.srv.PrivateKey}}.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Host = "evil.example"
	req.Header.Set("Origin", "http://evil.example")
	resp, err := s.hc.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Empty(t, resp.Cookies(), "no session for a foreign page")
}

// The browser forgets the session cookie when the session ends (12 hours),
// rather than keeping a dead cookie until it closes.
func TestDashboard_SessionCookieLastsAsLongAsTheSession(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	resp, _ := newBrowser(t).send(http.MethodPost, s.srv.URL+"/sandbox/login", url.Values{"key": {s.srv.PrivateKey}}, s.srv.URL)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Len(t, resp.Cookies(), 1)
	assert.Equal(t, 12*60*60, resp.Cookies()[0].MaxAge)

	link := s.srv.LoginURL()
	resp, _ = newBrowser(t).send(http.MethodGet, link, nil, "")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Len(t, resp.Cookies(), 1)
	assert.Equal(t, 12*60*60, resp.Cookies()[0].MaxAge, "a login link's session too")
}
