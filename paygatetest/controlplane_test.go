package paygatetest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// controlPaths are every operation of the control plane with its method.
var controlPaths = []struct{ method, path string }{
	{http.MethodPost, "/sandbox/clock"},
	{http.MethodPost, "/sandbox/transactions/1000000000000000001/chargeback"},
	{http.MethodPost, "/sandbox/faults"},
	{http.MethodGet, "/sandbox/deliveries"},
	{http.MethodPost, "/sandbox/deliveries/1/redeliver"},
	{http.MethodPost, "/sandbox/callback-url"},
	{http.MethodPost, "/sandbox/reset"},
}

func TestControlPlane_RequiresThePrivateKey(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.charge(s.user("buyer"), paygatetest.CardApproved, nil)
	for _, p := range controlPaths {
		for name, key := range map[string]string{"no key": "", "wrong key": "not-the-key", "public key": s.srv.ProjectKey} {
			t.Run(p.path+"/"+name, func(t *testing.T) {
				status, body := s.controlRaw(p.method, p.path, "application/x-www-form-urlencoded", "advance=1h", key)
				requireError(t, status, decode(t, body), 40300)
			})
		}
	}
	st, _ := s.statusOf("1000000000000000001")
	assert.Equal(t, "completed", st, "nothing changed")
	assert.Equal(t, testStart, s.clock.Now())
}

// The scheme of an Authorization header is case-insensitive (RFC 9110,
// 11.1): clients that send "bearer" are let in, and only with the key.
func TestControlPlane_BearerSchemeInAnyCase(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		for key, want := range map[string]int{s.srv.PrivateKey: http.StatusOK, "not-the-key": http.StatusForbidden} {
			req, err := http.NewRequest(http.MethodGet, s.srv.URL+"/sandbox/deliveries", nil)
			require.NoError(t, err)
			req.Header.Set("Authorization", scheme+" "+key)
			resp, err := s.hc.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, want, resp.StatusCode, "%s %s", scheme, key)
		}
	}
}

func TestControlPlane_UnknownOperationAndWrongMethod(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.controlFails(http.MethodPost, "/sandbox/nothing", nil, 40400)
	s.controlFails(http.MethodGet, "/sandbox/reset", nil, 40500)
	s.controlFails(http.MethodPost, "/sandbox/transactions", nil, 40500)
	s.controlFails(http.MethodPost, "/sandbox/deliveries", nil, 40500)
	s.controlFails(http.MethodGet, "/sandbox/transactions/1000000000000000001/chargeback", nil, 40500)
}

func TestControlPlane_ClockAdvancesAndRunsWhatIsDue(t *testing.T) {
	t.Parallel()
	for _, body := range []struct {
		ct, text string
		form     paygate.Form
	}{
		{"application/x-www-form-urlencoded", "advance=11m", paygate.FormExtended},
		{"application/json", `{"advance":"11m"}`, paygate.FormBasic},
	} {
		t.Run(body.ct, func(t *testing.T) {
			s := newSandbox(t, paygatetest.WithProcessingDelay(0), paygatetest.WithForm(body.form))
			u := s.user("buyer")
			tok := s.token(paygatetest.CardApproved)
			processing := idOf(s.charge(u, paygatetest.CardProcessing, nil))

			status, raw := s.controlRaw(http.MethodPost, "/sandbox/clock", body.ct, body.text, s.srv.PrivateKey)
			require.Equal(t, http.StatusOK, status, string(raw))
			assert.JSONEq(t, `{"now":"2026-03-01T12:11:00Z"}`, string(raw))
			assert.Equal(t, testStart.Add(11*time.Minute), s.clock.Now())

			st, _ := s.statusOf(processing)
			assert.Equal(t, "completed", st, "the processing payment settled")
			s.fails("card/process", url.Values{"user": {u}, "card_token": {tok}, "price": {"1"}, "currency": {"EUR"},
				"description": {"d"}}, paygate.CodeCardTokenExpired)
		})
	}
}

func TestControlPlane_ClockBounds(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, v := range []string{"-1h", "soon", "1y", (paygatetest.MaxAdvance + time.Hour).String()} {
		s.controlFails(http.MethodPost, "/sandbox/clock", url.Values{"advance": {v}}, 40000)
	}
	assert.Equal(t, testStart, s.clock.Now())
	status, out := s.control(http.MethodPost, "/sandbox/clock", nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "2026-03-01T12:00:00Z", out["now"], "without advance: reads the clock")
}

func TestControlPlane_InputBounds(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	status, raw := s.controlRaw(http.MethodPost, "/sandbox/callback-url", "application/x-www-form-urlencoded",
		"url="+strings.Repeat("a", 70<<10), s.srv.PrivateKey)
	requireError(t, status, decode(t, raw), 41300)
	s.controlFails(http.MethodPost, "/sandbox/callback-url", url.Values{"url": {"http://x.example/" + strings.Repeat("a", 3000)}}, 40000)
	status, raw = s.controlRaw(http.MethodPost, "/sandbox/clock", "application/json", `["1h"]`, s.srv.PrivateKey)
	requireError(t, status, decode(t, raw), 40000)
	status, raw = s.controlRaw(http.MethodPost, "/sandbox/clock", "application/json", `{"advance":{"h":1}}`, s.srv.PrivateKey)
	requireError(t, status, decode(t, raw), 40000)
}

func TestControlPlane_EventAnswersTheByIDTransaction(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	pay := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, url.Values{"order_id": {"ord-9"}}))
	status, out := s.control(http.MethodPost, "/sandbox/transactions/"+pay+"/chargeback", nil)
	require.Equal(t, http.StatusOK, status)
	byID := s.ok("transactions/"+idOf(out), nil)
	assert.Equal(t, jsonNumber(idOf(out)), byID["id"], "/v1 keeps the gateway's numbers")
	byID["id"], byID["referenceId"] = idOf(out), pay
	assert.Equal(t, byID, out, "the JSON of GET transactions/{id}, its ids as strings")

	status, out = s.control(http.MethodPost, "/sandbox/transactions/"+pay+"/chargeback", nil)
	requireError(t, status, out, 40900)
	assert.Contains(t, out["error"].(map[string]any)["message"], "charged_back")
	s.controlFails(http.MethodPost, "/sandbox/transactions/not-a-number/chargeback", nil, paygate.CodeTransactionNotFound)
}

func TestControlPlane_FaultsThroughJSON(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	status, raw := s.controlRaw(http.MethodPost, "/sandbox/faults", "application/json",
		`{"method":"user/resolve","fault":"status-500","count":2}`, s.srv.PrivateKey)
	require.Equal(t, http.StatusOK, status, string(raw))
	assert.JSONEq(t, `{"method":"user/resolve","fault":"status-500","count":2}`, string(raw))
	v := url.Values{"identifier": {"u"}, "email": {"u@example.com"}, "ip": {"192.0.2.1"}}
	s.fails("user/resolve", v, 50000)
	s.fails("user/resolve", v, 50000)
	assert.Equal(t, jsonNumber(1), s.ok("user/resolve", v)["id"], "the faulted calls made no user")
}

// deliveriesJSON reads GET /sandbox/deliveries.
func (s *sandbox) deliveriesJSON() []map[string]any {
	s.t.Helper()
	status, raw := s.controlRaw(http.MethodGet, "/sandbox/deliveries", "", "", s.srv.PrivateKey)
	require.Equal(s.t, http.StatusOK, status, string(raw))
	var out []map[string]any
	require.NoError(s.t, json.Unmarshal(raw, &out))
	return out
}

func TestControlPlane_DeliveriesAndRedeliver(t *testing.T) {
	t.Parallel()
	for name, form := range forms {
		t.Run(name, func(t *testing.T) { testDeliveriesAndRedeliver(t, form) })
	}
}

func testDeliveriesAndRedeliver(t *testing.T, form paygate.Form) {
	rcv := newReceiver(t, 1)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL), paygatetest.WithCallbackRetry(1, 0), paygatetest.WithForm(form))
	pay := idOf(s.charge(s.user("u"), paygatetest.CardApproved, url.Values{"attr_realm": {"eu"}}))
	waitFor(t, s, func(d paygatetest.Delivery) bool { return d.Done })

	list := s.deliveriesJSON()
	require.Len(t, list, 1)
	d := list[0]
	assert.Equal(t, "1", d["id"], "a string, as every id of the control plane")
	assert.Equal(t, rcv.URL, d["url"])
	fields := d["fields"].(map[string]any)
	assert.Equal(t, pay, fields["id"])
	assert.Equal(t, "completed", fields["status"])
	assert.Equal(t, "eu", fields["attr_realm"])
	assert.Len(t, fields["signature"], 64)
	assert.Equal(t, []any{map[string]any{"time": "2026-03-01T12:00:00Z", "status": float64(500)}}, d["attempts"])
	assert.Equal(t, false, d["delivered"])

	s.clock.Advance(time.Minute)
	status, out := s.control(http.MethodPost, "/sandbox/deliveries/1/redeliver", nil)
	require.Equal(t, http.StatusOK, status, "%v", out)
	waitFor(t, s, delivered(pay, "completed"))
	d = s.deliveriesJSON()[0]
	assert.Equal(t, true, d["delivered"])
	assert.Equal(t, map[string]any{"time": "2026-03-01T12:01:00Z", "status": float64(200), "manual": true}, d["attempts"].([]any)[1])

	s.controlFails(http.MethodPost, "/sandbox/deliveries/7/redeliver", nil, 40400)
	s.controlFails(http.MethodPost, "/sandbox/deliveries/x/redeliver", nil, 40400)

	quiet := newSandbox(t, paygatetest.WithForm(form))
	quiet.charge(quiet.user("u"), paygatetest.CardApproved, nil)
	quiet.controlFails(http.MethodPost, "/sandbox/deliveries/1/redeliver", nil, 40900)
	assert.Equal(t, []any{}, quiet.deliveriesJSON()[0]["attempts"], "recorded, never sent")
}

func TestControlPlane_CallbackURL(t *testing.T) {
	t.Parallel()
	for _, via := range drivers {
		t.Run(via, func(t *testing.T) {
			rcv := newReceiver(t, 0)
			s := newSandbox(t, paygatetest.WithForm(paygate.FormBasic))
			set := func(u string) (int, map[string]any) {
				if via == "go" {
					if err := s.srv.SetCallbackURL(u); err != nil {
						require.ErrorIs(t, err, paygatetest.ErrInvalidCallbackURL)
						return http.StatusBadRequest, nil
					}
					return http.StatusOK, nil
				}
				return s.control(http.MethodPost, "/sandbox/callback-url", url.Values{"url": {u}})
			}
			u := s.user("u")
			first := idOf(s.charge(u, paygatetest.CardApproved, nil))
			status, _ := set(rcv.URL + "/hook")
			require.Equal(t, http.StatusOK, status)
			second := idOf(s.charge(u, paygatetest.CardApproved, nil))
			d := waitFor(t, s, delivered(second, "completed"))
			assert.Equal(t, rcv.URL+"/hook", d.URL)
			assert.Empty(t, s.srv.Deliveries()[0].URL, "earlier callbacks keep their URL: "+first)

			for _, bad := range []string{"ftp://x.example/", "/relative", "http://"} {
				status, _ := set(bad)
				assert.Equal(t, http.StatusBadRequest, status, bad)
			}
			status, _ = set("")
			require.Equal(t, http.StatusOK, status)
			third := idOf(s.charge(u, paygatetest.CardApproved, nil))
			last := s.srv.Deliveries()[len(s.srv.Deliveries())-1]
			assert.Equal(t, third, last.Values.Get("id"))
			assert.Empty(t, last.URL, "an empty URL records callbacks only")
		})
	}
}

func TestControlPlane_Reset(t *testing.T) {
	t.Parallel()
	forEachFormAndDriver(t, func(t *testing.T, s *sandbox, form paygate.Form, via string) {
		u := s.user("buyer")
		pay := idOf(s.charge(u, paygatetest.CardApproved, url.Values{"remember": {"1"}, "order_id": {"ord-1"}}))
		tok := s.token(paygatetest.CardApproved)
		if via == "go" {
			require.NoError(t, s.srv.InjectFault("balance", paygatetest.FaultStatus500, 3))
			s.srv.Reset()
		} else {
			status, out := s.control(http.MethodPost, "/sandbox/faults", url.Values{"method": {"balance"}, "fault": {"status-500"}, "count": {"3"}})
			require.Equal(t, http.StatusOK, status, "%v", out)
			status, out = s.control(http.MethodPost, "/sandbox/reset", nil)
			require.Equal(t, http.StatusOK, status, "%v", out)
		}
		s.fails("transaction/status", url.Values{"id": {pay}}, paygate.CodeTransactionNotFound)
		s.fails("transaction/status", url.Values{"order_id": {"ord-1"}}, paygate.CodeTransactionNotFound)
		s.fails("card/process", url.Values{"user": {u}, "card_token": {tok}, "price": {"1"}, "currency": {"EUR"},
			"description": {"d"}}, paygate.CodeUserNotFound)
		assert.NotEqual(t, u, s.user("buyer"), "the user is new")
		if form == paygate.FormExtended {
			assert.Equal(t, "0.00", s.balanceEUR(), "no pending fault, no balance")
		}
		next := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, nil))
		assert.Greater(t, next, pay, "ids keep counting")
		assert.Equal(t, testStart, s.clock.Now(), "the clock stays")
	})
}

// GET /sandbox/callback-url reads what POST sets, so that a tool that
// changes it for a while (paygate listen) can put it back.
func TestControlPlane_CallbackURLReadsBack(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, paygatetest.WithCallbackURL("http://127.0.0.1:9/first"))
	status, out := s.control(http.MethodGet, "/sandbox/callback-url", nil)
	require.Equal(t, http.StatusOK, status, "%v", out)
	assert.Equal(t, "http://127.0.0.1:9/first", out["url"])
	status, out = s.control(http.MethodPost, "/sandbox/callback-url", url.Values{"url": {"http://127.0.0.1:9/second"}})
	require.Equal(t, http.StatusOK, status, "%v", out)
	assert.Equal(t, "http://127.0.0.1:9/first", out["previous"], "the POST answers what it replaced")
	_, out = s.control(http.MethodGet, "/sandbox/callback-url", nil)
	assert.Equal(t, "http://127.0.0.1:9/second", out["url"])
}
