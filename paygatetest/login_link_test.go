package paygatetest_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

func TestLoginURL_OpensTheDashboardOnce(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	link := s.srv.LoginURL()
	require.True(t, strings.HasPrefix(link, s.srv.URL+"/sandbox/login?token="), link)
	assert.NotContains(t, link, s.srv.PrivateKey)

	b := newBrowser(t)
	resp, _ := b.send(http.MethodGet, link, nil, "")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "/sandbox/", resp.Header.Get("Location"))
	assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
	resp, page := b.send(http.MethodGet, s.srv.URL+"/sandbox/", nil, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, page, `id="empty"`, "the dashboard, with the session cookie")

	again := newBrowser(t)
	resp, page = again.send(http.MethodGet, link, nil, "")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "single use")
	assert.Contains(t, page, "used already or has expired")
	assert.Contains(t, page, "get a new link (paygate dashboard, or POST /sandbox/login-url)", "says how to get another")
	resp, _ = again.send(http.MethodGet, s.srv.URL+"/sandbox/", nil, "")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "no session from a used link")
}

func TestLoginURL_ExpiresAfterFiveMinutes(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	fresh, stale := s.srv.LoginURL(), s.srv.LoginURL()
	s.srv.AgeLoginLinks(4 * time.Minute)
	resp, _ := newBrowser(t).send(http.MethodGet, fresh, nil, "")
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode, "valid 4 minutes later")
	s.srv.AgeLoginLinks(2 * time.Minute)
	resp, _ = newBrowser(t).send(http.MethodGet, stale, nil, "")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "expired 6 minutes later")
}

func TestLoginURL_ThroughTheControlPlaneForTheKeysProject(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	other := teamB
	s.srv.AddProject(other)
	s.charge(s.user("buyer"), paygatetest.CardApproved, nil)
	status, raw := s.controlRaw(http.MethodPost, "/sandbox/login-url", "", "", other.Secret.Reveal())
	require.Equal(t, http.StatusOK, status, string(raw))
	out := decode(t, raw)
	assert.Equal(t, jsonNumber(300), out["expires_in"])
	b := newBrowser(t)
	resp, _ := b.send(http.MethodGet, out["url"].(string), nil, "")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	_, page := b.send(http.MethodGet, s.srv.URL+"/sandbox/", nil, "")
	assert.Contains(t, page, `id="empty"`, "team B's dashboard: not the server project's payment")
}

func TestLoginURL_WrongTokensAreGuesses(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	b := newBrowser(t)
	last := 0
	for range 40 {
		resp, _ := b.send(http.MethodGet, s.srv.URL+"/sandbox/login?"+url.Values{"token": {"guess"}}.Encode(), nil, "")
		last = resp.StatusCode
	}
	assert.Equal(t, http.StatusTooManyRequests, last)
	resp, _ := b.send(http.MethodGet, s.srv.LoginURL(), nil, "")
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "out of guesses, the right link waits too")
}
