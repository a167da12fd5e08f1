package paygatetest_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// browser is an HTTP client with a cookie jar that does not follow
// redirects, as a test of the dashboard's forms needs.
type browser struct {
	t  *testing.T
	hc *http.Client
}

func newBrowser(t *testing.T) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &browser{t: t, hc: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

func (b *browser) send(method, target string, form url.Values, origin string) (*http.Response, string) {
	b.t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(form.Encode()))
	require.NoError(b.t, err)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := b.hc.Do(req)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	return resp, string(body)
}

// signIn posts the key form and requires the session cookie.
func (b *browser) signIn(s *sandbox) {
	b.t.Helper()
	resp, _ := b.send(http.MethodPost, s.srv.URL+"/sandbox/login", url.Values{"key": {s.srv.PrivateKey}}, s.srv.URL)
	require.Equal(b.t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(b.t, "/sandbox/", resp.Header.Get("Location"))
	cookies := resp.Cookies()
	require.Len(b.t, cookies, 1)
	c := cookies[0]
	assert.True(b.t, c.HttpOnly)
	assert.Equal(b.t, http.SameSiteStrictMode, c.SameSite)
	assert.Equal(b.t, "/sandbox/", c.Path)
	assert.NotContains(b.t, c.Value, s.srv.PrivateKey, "the cookie never holds the key")
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]{64})"`)

func TestDashboard_KeyFormThenDashboard(t *testing.T) {
	s := newSandbox(t)
	pay := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, url.Values{"order_id": {"ord-5"}}))
	b := newBrowser(t)

	resp, body := b.send(http.MethodGet, s.srv.URL+"/sandbox/", nil, "")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, body, `action="/sandbox/login"`, "a browser without the key gets the key form")
	assert.NotContains(t, body, pay)

	resp, body = b.send(http.MethodPost, s.srv.URL+"/sandbox/login", url.Values{"key": {"guess"}}, s.srv.URL)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, body, "wrong key")
	resp, _ = b.send(http.MethodPost, s.srv.URL+"/sandbox/login", url.Values{"key": {s.srv.PrivateKey}}, "http://evil.example")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "a sign-in from another site")

	b.signIn(s)
	resp, body = b.send(http.MethodGet, s.srv.URL+"/sandbox/", nil, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	for _, want := range []string{`id="txn-` + pay + `"`, "ord-5", "10.00", "************4242", "card", "completed",
		`data-event="chargeback"`, `id="balance-EUR">9.71<`, "2026-03-01T12:00:00Z"} {
		assert.Contains(t, body, want)
	}
	assert.NotContains(t, body, `data-event="retrieval"`, "only the events that apply")
	assert.NotContains(t, body, s.srv.PrivateKey)
	assert.NotContains(t, body, paygatetest.CardApproved)
}

func TestDashboard_ButtonsArePOSTFormsWithAToken(t *testing.T) {
	for formName, form := range forms {
		t.Run(formName, func(t *testing.T) {
			s := newSandbox(t, paygatetest.WithForm(form))
			pay := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, nil))
			b := newBrowser(t)
			b.signIn(s)
			_, page := b.send(http.MethodGet, s.srv.URL+"/sandbox/", nil, "")
			m := csrfField.FindStringSubmatch(page)
			require.NotNil(t, m, "the forms carry a token")
			target := s.srv.URL + "/sandbox/transactions/" + pay + "/chargeback"

			for name, tc := range map[string]struct {
				form   url.Values
				origin string
			}{
				"no token":      {url.Values{}, s.srv.URL},
				"wrong token":   {url.Values{"csrf": {strings.Repeat("0", 64)}}, s.srv.URL},
				"other origin":  {url.Values{"csrf": {m[1]}}, "http://evil.example"},
				"broken origin": {url.Values{"csrf": {m[1]}}, "::"},
			} {
				resp, _ := b.send(http.MethodPost, target, tc.form, tc.origin)
				assert.Equal(t, http.StatusForbidden, resp.StatusCode, name)
			}
			st, _ := s.statusOf(pay)
			require.Equal(t, "completed", st, "refused forms change nothing")

			resp, _ := b.send(http.MethodPost, target, url.Values{"csrf": {m[1]}}, s.srv.URL)
			require.Equal(t, http.StatusSeeOther, resp.StatusCode)
			assert.True(t, strings.HasPrefix(resp.Header.Get("Location"), "/sandbox/?note="))
			st, _ = s.statusOf(pay)
			assert.Equal(t, "charged_back", st)

			_, page = b.send(http.MethodGet, s.srv.URL+resp.Header.Get("Location"), nil, "")
			assert.Contains(t, page, `data-status="chargeback_completed"`)
			assert.Contains(t, page, "done: transactions/"+pay+"/chargeback")

			resp, _ = b.send(http.MethodPost, target, url.Values{"csrf": {m[1]}}, "")
			loc, err := url.Parse(resp.Header.Get("Location"))
			require.NoError(t, err)
			assert.Contains(t, loc.Query().Get("error"), "does not apply", "a second chargeback is refused on the page")
			_, page = b.send(http.MethodGet, s.srv.URL+loc.String(), nil, "")
			assert.Contains(t, page, `id="error"`)

			resp, _ = b.send(http.MethodPost, s.srv.URL+"/sandbox/clock", url.Values{"csrf": {m[1]}, "advance": {"2h"}}, s.srv.URL)
			assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
			assert.Equal(t, testStart.Add(2*time.Hour), s.clock.Now())
		})
	}
}

func TestDashboard_ShowsHistoryCallbacksAndAttempts(t *testing.T) {
	rcv := newReceiver(t, 1)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL), paygatetest.WithCallbackRetry(2, 0))
	pay := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, nil))
	attempted(t, s, pay, 1)
	s.clock.Advance(time.Minute)
	waitFor(t, s, delivered(pay, "completed"))
	status, body := s.controlRaw(http.MethodGet, "/sandbox/", "", "", s.srv.PrivateKey)
	require.Equal(t, http.StatusOK, status, "the bearer key opens the dashboard too")
	page := string(body)
	assert.Contains(t, page, "HTTP 500")
	assert.Contains(t, page, "HTTP 200")
	assert.Contains(t, page, "delivered")
	assert.Contains(t, page, `action="/sandbox/deliveries/1/redeliver"`)
	assert.Contains(t, page, "one already made keeps the URL it names below", "where retries go after the URL changed")
	assert.Regexp(t, `(?s)<h3>History</h3><ol><li>opened.*<li>completed`, page)
}

func TestDashboard_OnlyGET(t *testing.T) {
	s := newSandbox(t)
	status, raw := s.controlRaw(http.MethodPost, "/sandbox/", "", "", s.srv.PrivateKey)
	requireError(t, status, decode(t, raw), 40500)
	status, raw = s.controlRaw(http.MethodGet, "/sandbox/login", "", "", "")
	requireError(t, status, decode(t, raw), 40500)
	resp, err := s.hc.Get(s.srv.URL + "/sandbox")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "/sandbox/", resp.Header.Get("Location"))
}

func TestDashboard_ShowsTheNewestHundred(t *testing.T) {
	s := newSandbox(t)
	u := s.user("buyer")
	for range 101 {
		s.charge(u, paygatetest.CardApproved, nil)
	}
	status, body := s.controlRaw(http.MethodGet, "/sandbox/", "", "", s.srv.PrivateKey)
	require.Equal(t, http.StatusOK, status)
	page := string(body)
	assert.Contains(t, page, "The newest 100 of 101 transactions.")
	assert.Contains(t, page, `id="txn-1000000000000000101"`)
	assert.NotContains(t, page, `id="txn-1000000000000000001"`, "the oldest is left out")
	assert.Less(t, strings.Index(page, "txn-1000000000000000101"), strings.Index(page, "txn-1000000000000000100"), "newest first")
}

func TestDashboard_ACookieDoesNotAuthoriseAJSONPost(t *testing.T) {
	s := newSandbox(t)
	pay := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, nil))
	b := newBrowser(t)
	b.signIn(s)
	_, page := b.send(http.MethodGet, s.srv.URL+"/sandbox/", nil, "")
	token := csrfField.FindStringSubmatch(page)[1]
	req, err := http.NewRequest(http.MethodPost, s.srv.URL+"/sandbox/transactions/"+pay+"/chargeback",
		strings.NewReader(`{"csrf":"`+token+`"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.hc.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "the dashboard's token counts only in its forms")
	st, _ := s.statusOf(pay)
	assert.Equal(t, "completed", st)
}

// A callback of a project with no callback URL was never attempted: the
// dashboard says it is recorded only, never that it was given up.
func TestDashboard_ARecordedOnlyCallbackIsNotGivenUp(t *testing.T) {
	s := newSandbox(t)
	pay := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, nil))
	require.NotZero(t, pay)
	status, body := s.controlRaw(http.MethodGet, "/sandbox/", "", "", s.srv.PrivateKey)
	require.Equal(t, http.StatusOK, status)
	page := string(body)
	assert.Contains(t, page, "recorded only (no callback URL)")
	assert.NotContains(t, page, "given up", "a callback never attempted was not given up")
}
