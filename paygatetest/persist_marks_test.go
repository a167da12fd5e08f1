package paygatetest_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// markCase is one request and whether it marks the state to be written.
type markCase struct {
	name string
	send func(s *sandbox)
}

// heldSandbox is a sandbox on a state file with a payment of each kind (a
// card charge, a 3-D Secure charge, an open alternative payment), its
// writer held (see HoldStateWriter) and its mark cleared.
func heldSandbox(t *testing.T) (s *sandbox, charged, secure map[string]any, open string) {
	t.Helper()
	s = restartable(t, filepath.Join(t.TempDir(), "state.json"))
	buyer := s.user("buyer")
	charged = s.charge(buyer, paygatetest.CardApproved, url.Values{"order_id": {"o-1"}})
	secure = s.charge(buyer, paygatetest.Card3DSecure, nil)
	open = idOf(s.ok("transaction/create", altPayment()))
	s.srv.HoldStateWriter()
	s.srv.StateChanged()
	return s, charged, secure, open
}

// Requests that change nothing kept, refused or not, leave the state file
// alone: an outsider who can reach the port cannot keep the sandbox
// writing its whole state.
func TestStateFile_RequestsThatChangeNothingAreNotWritten(t *testing.T) {
	t.Parallel()
	s, charged, secure, open := heldSandbox(t)
	id := idOf(charged)
	md := secure["acs"].(map[string]any)["parameters"].(map[string]any)["MD"].(string)
	forged := s.signed(url.Values{"user": {"1"}, "card_token": {"x"}, "price": {"10.00"}, "currency": {"EUR"}, "description": {"d"}})
	forged.Set("price", "1.00")
	send := func(method, path string, v url.Values) func(*sandbox) {
		return func(s *sandbox) { s.do(method, path, v) }
	}
	control := func(method, path, key string) func(*sandbox) {
		return func(s *sandbox) { s.controlRaw(method, path, "application/x-www-form-urlencoded", "", key) }
	}
	cases := []markCase{
		// Refused before any handler ran.
		{"API call without a project", send(http.MethodPost, "/v1/card/process", url.Values{"price": {"1"}})},
		{"API call of an unknown project", send(http.MethodPost, "/v1/user/resolve", url.Values{"project": {"nope"}})},
		{"API call with a wrong signature", send(http.MethodPost, "/v1/card/process", forged)},
		{"API call without a signature", send(http.MethodGet, "/v1/user/resolve", s.withProject(url.Values{"identifier": {"x"}}))},
		{"unknown API method", send(http.MethodPost, "/v1/card/steal", s.signed(nil))},
		{"getToken with a bad JSONP name", send(http.MethodGet, "/v1/card/getToken", s.withProject(url.Values{"callback": {"<x>"}}))},
		{"API body over the bound", func(s *sandbox) {
			req, err := http.NewRequest(http.MethodPost, s.srv.URL+"/v1/user/resolve", strings.NewReader(strings.Repeat("a", 1<<20+1)))
			require.NoError(s.t, err)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			s.exchange(req)
		}},
		{"unknown path", send(http.MethodPost, "/nowhere", nil)},
		{"control plane without a key", control(http.MethodPost, "/sandbox/clock", "")},
		{"control plane, unknown operation", control(http.MethodPost, "/sandbox/nowhere", s.srv.PrivateKey)},
		{"control plane, wrong method", control(http.MethodGet, "/sandbox/reset", s.srv.PrivateKey)},
		{"control plane body over the bound", func(s *sandbox) {
			s.controlRaw(http.MethodPost, "/sandbox/clock", "application/x-www-form-urlencoded",
				"advance=1h&x="+strings.Repeat("a", 64<<10), s.srv.PrivateKey)
		}},
		{"confirm page of no payment", send(http.MethodGet, "/confirm/1000000000000000999/", nil)},
		{"confirm form not served by the page", send(http.MethodPost, "/confirm/"+open+"/", url.Values{"action": {"approve"}, "token": {"forged"}})},
		// A confirm page's form tokens live for the process only: showing
		// the page keeps nothing, so that anyone who has its address cannot
		// keep the sandbox writing its whole state.
		{"confirm page of an open payment", func(s *sandbox) { s.confirmToken(open) }},
		{"confirm form with an unknown action", func(s *sandbox) {
			token := s.confirmToken(open)
			s.do(http.MethodPost, "/confirm/"+open+"/", url.Values{"action": {"maybe"}, "token": {token}})
		}},
		// Pages that change nothing kept.
		{"ACS page", send(http.MethodGet, "/acs", url.Values{"MD": {md}, "PaReq": {"p"}, "TermUrl": {"https://shop.example/r"}})},
		{"ACS password", send(http.MethodPost, "/acs", url.Values{"MD": {md}, "password": {paygatetest.ACSPassword}, "TermUrl": {"https://shop.example/r"}})},
		{"ACS of no payment", send(http.MethodPost, "/acs", url.Values{"MD": {"unknown"}})},
		{"confirm page of a decided payment", func(s *sandbox) {
			s.mustTrigger("control", open, paygatetest.EventApprove)
			s.srv.StateChanged()
			s.do(http.MethodGet, "/confirm/"+open+"/", nil)
			s.do(http.MethodPost, "/confirm/"+open+"/", url.Values{"action": {"decline"}})
		}},
		{"dashboard without a key", send(http.MethodGet, "/sandbox/", nil)},
		{"dashboard with the key", control(http.MethodGet, "/sandbox/", s.srv.PrivateKey)},
		{"dashboard sign-in with a wrong key", send(http.MethodPost, "/sandbox/login", url.Values{"key": {"wrong"}})},
		{"dashboard sign-in with the key", send(http.MethodPost, "/sandbox/login", url.Values{"key": {s.srv.PrivateKey}})},
		{"dashboard login link used up", send(http.MethodGet, "/sandbox/login", url.Values{"token": {"unknown"}})},
		// Reads, by any HTTP method.
		{"transaction/status", send(http.MethodGet, "/v1/transaction/status", s.signed(url.Values{"id": {id}}))},
		{"transaction/status by POST", send(http.MethodPost, "/v1/transaction/status", s.signed(url.Values{"order_id": {"o-1"}}))},
		{"transactions", send(http.MethodGet, "/v1/transactions", s.signed(url.Values{"orderId": {"o-1"}}))},
		{"transactions/{id}", send(http.MethodGet, "/v1/transactions/"+id, s.signed(nil))},
		{"balance", send(http.MethodGet, "/v1/balance", s.signed(nil))},
		{"payout-types", send(http.MethodGet, "/v1/payout-types", s.withProject(nil))},
		{"payout-parameters", send(http.MethodGet, "/v1/payout-parameters",
			s.withProject(url.Values{"type": {cardPayout}, "account": {paygatetest.CardApproved}, "currency": {"EUR"}}))},
		{"control plane transactions", control(http.MethodGet, "/sandbox/transactions", s.srv.PrivateKey)},
		{"control plane deliveries", control(http.MethodGet, "/sandbox/deliveries", s.srv.PrivateKey)},
		{"control plane clock", control(http.MethodGet, "/sandbox/clock", s.srv.PrivateKey)},
		// Last: a burst of wrong keys, then the client is refused for a while.
		{"control plane, a burst of wrong keys", func(s *sandbox) {
			for range 50 {
				s.controlRaw(http.MethodPost, "/sandbox/reset", "", "", "wrong")
			}
			status, _ := s.controlRaw(http.MethodPost, "/sandbox/reset", "", "", s.srv.PrivateKey)
			assert.Equal(s.t, http.StatusTooManyRequests, status, "the guesses are limited")
		}},
	}
	// Every route marked reads is among them, by its path: it is the
	// router's word that the state file need not be written after it.
	for path, rt := range paygatetest.Routes() {
		if rt.Reads && !slices.ContainsFunc(cases, func(tc markCase) bool { return tc.name == path }) {
			t.Errorf("route %s reads, but no case here (named %q) proves it changes nothing", path, path)
		}
	}
	for _, tc := range cases {
		tc.send(s.in(t))
		assert.False(t, s.srv.StateChanged(), "%s: marked for a write", tc.name)
	}
}

// Every request that may change what is kept marks it, whatever it
// answers: a declined charge is an error answer and a failed transaction.
func TestStateFile_RequestsThatChangeItAreWritten(t *testing.T) {
	t.Parallel()
	s, charged, secure, open := heldSandbox(t)
	id := idOf(charged)
	md := secure["acs"].(map[string]any)["parameters"].(map[string]any)["MD"].(string)
	buyer := s.user("buyer")
	s.srv.StateChanged()
	api := func(method string, v url.Values) func(*sandbox) {
		return func(s *sandbox) { s.call(method, v) }
	}
	control := func(path string, v url.Values) func(*sandbox) {
		return func(s *sandbox) { s.control(http.MethodPost, path, v) }
	}
	cases := []markCase{
		{"user/resolve", api("user/resolve", url.Values{"identifier": {"another"}})},
		{"user/resolve by GET", func(s *sandbox) {
			s.do(http.MethodGet, "/v1/user/resolve", s.signed(url.Values{"identifier": {"a third"}}))
		}},
		{"card/getToken", func(s *sandbox) { s.token(paygatetest.CardApproved) }},
		{"card/process", func(s *sandbox) { s.charge(buyer, paygatetest.CardApproved, nil) }},
		{"card/process declined", api("card/process", url.Values{"user": {buyer}, "card_token": {s.token(paygatetest.CardDeclined)},
			"price": {"10.00"}, "currency": {"EUR"}, "description": {"d"}})},
		{"card/authenticate", api("card/authenticate", url.Values{"PaRes": {s.srv.PaRes(md, paygatetest.ACSPassword)}, "MD": {md}})},
		{"transaction/reverse", api("transaction/reverse", url.Values{"id": {id}, "amount": {"1"}})},
		{"transaction/reverse refused", api("transaction/reverse", url.Values{"id": {id}, "amount": {"1000"}})},
		{"transaction/create", api("transaction/create", withValue(altPayment(), "order_id", "alt-2"))},
		{"payout", api("payout", url.Values{"type": {cardPayout}, "amount": {"1.00"}, "currency": {"EUR"},
			"account": {paygatetest.CardApproved}, "cardHolder": {"A B"}})},
		{"a call whose answer a fault discards", func(s *sandbox) {
			s.inject("go", "user/resolve", paygatetest.FaultResetAfterCommit, 1)
			s.srv.StateChanged()
			// The connection is reset after the call: no answer to read.
			if resp, err := s.hc.PostForm(s.srv.URL+"/v1/user/resolve", s.signed(url.Values{"identifier": {"lost"}})); err == nil {
				resp.Body.Close()
			}
		}},
		{"confirm form", func(s *sandbox) {
			token := s.confirmToken(open)
			s.srv.StateChanged()
			s.do(http.MethodPost, "/confirm/"+open+"/", url.Values{"action": {"approve"}, "token": {token}})
		}},
		{"control plane clock", control("/sandbox/clock", url.Values{"advance": {"1h"}})},
		{"control plane event", control("/sandbox/transactions/"+id+"/chargeback", nil)},
		{"control plane event refused", control("/sandbox/transactions/"+id+"/approve", nil)},
		{"control plane fixtures", func(s *sandbox) {
			s.controlRaw(http.MethodPost, "/sandbox/fixtures", "application/json", `{"users":[{"name":"f"}]}`, s.srv.PrivateKey)
		}},
		{"control plane reset", control("/sandbox/reset", nil)},
	}
	for _, tc := range cases {
		tc.send(s.in(t))
		assert.True(t, s.srv.StateChanged(), "%s: not marked for a write", tc.name)
	}
}

// What changes the state outside a request (the clock, a callback
// recorded) is written too, with the writer running.
func TestStateFile_ClockMovesAndCallbacksAreWritten(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	s := restartable(t, path)
	id := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, nil))
	rewritten := func(what string, change func(), saved func(raw string) bool) {
		t.Helper()
		require.Eventually(t, func() bool {
			raw, err := os.ReadFile(path)
			return err == nil && strings.Contains(string(raw), `"id":`+id)
		}, 3*time.Second, 10*time.Millisecond, "the charge is written")
		change()
		require.Eventually(t, func() bool {
			raw, err := os.ReadFile(path)
			return err == nil && saved(string(raw))
		}, 3*time.Second, 10*time.Millisecond, "%s is written", what)
	}
	rewritten("a clock move", func() { s.clock.Advance(time.Hour) }, func(raw string) bool {
		return strings.Contains(raw, testStart.Add(time.Hour).Format(time.RFC3339))
	})
	rewritten("a chargeback's callback", func() {
		_, err := s.srv.Chargeback(paygate.ID(mustInt(t, id)))
		require.NoError(t, err)
	}, func(raw string) bool { return strings.Contains(raw, `"chargeback"`) })
}
