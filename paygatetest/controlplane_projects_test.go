package paygatetest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// teamB is a second project on the sandbox of the tests below.
var teamB = paygatetest.Project{Key: "team-b", Secret: paygatetest.NewSecret("team-b-private-key"), Sandbox: true, CardRemembering: true,
	Form: paygate.FormExtended}

// twoProjects is a sandbox with project A (its own) and teamB, each with
// one completed payment: A's and B's ids.
func twoProjects(t *testing.T) (s *sandbox, payA, payB string) {
	t.Helper()
	s = newSandbox(t)
	s.srv.AddProject(teamB)
	payA = idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, nil))
	return s, payA, chargeAs(t, s, teamB)
}

// chargeAs makes a completed payment of project p through the SDK and
// returns its id.
func chargeAs(t *testing.T, s *sandbox, p paygatetest.Project) string {
	t.Helper()
	c, err := paygate.NewClient(p.Key, p.Secret.Reveal(), paygate.WithBaseURL(s.srv.URL), paygate.WithRetryPolicy(paygate.NoRetries))
	require.NoError(t, err)
	ctx := context.Background()
	u, err := c.Users.Resolve(ctx, &paygate.ResolveUserParams{Identifier: "buyer", IP: "192.0.2.1"})
	require.NoError(t, err)
	tok, err := c.Cards.Tokenize(ctx, &paygate.TokenizeParams{Number: paygate.NewCardNumber(paygatetest.CardApproved), Expiry: paygate.NewExpiry(12, 2030), SecurityCode: paygate.NewSecurityCode("123")})
	require.NoError(t, err)
	pay, err := c.Cards.Charge(ctx, &paygate.ChargeParams{User: u, CardToken: paygate.NewCardToken(tok.ID), Price: decimal.RequireFromString("3.00"),
		Currency: "EUR", Description: "team b"})
	require.NoError(t, err)
	return pay.ID.String()
}

// controlAs sends a control-plane request with key as bearer and decodes
// the answer.
func (s *sandbox) controlAs(key, httpMethod, path string, v url.Values) (int, map[string]any) {
	s.t.Helper()
	status, body := s.controlRaw(httpMethod, path, "application/x-www-form-urlencoded", v.Encode(), key)
	return status, decode(s.t, body)
}

func TestControlPlane_AKeyDrivesOnlyItsProjectsTransactions(t *testing.T) {
	t.Parallel()
	s, payA, payB := twoProjects(t)
	for _, tc := range []struct{ key, foreign string }{{s.srv.PrivateKey, payB}, {teamB.Secret.Reveal(), payA}} {
		status, out := s.controlAs(tc.key, http.MethodPost, "/sandbox/transactions/"+tc.foreign+"/chargeback", nil)
		requireError(t, status, out, paygate.CodeTransactionNotFound)
	}
	st, _ := s.statusOf(payA)
	assert.Equal(t, "completed", st, "another project's key changed nothing")

	status, out := s.controlAs(teamB.Secret.Reveal(), http.MethodPost, "/sandbox/transactions/"+payB+"/chargeback", nil)
	require.Equal(t, http.StatusOK, status, "%v", out)
	assert.Equal(t, payB, out["referenceId"])
}

func TestControlPlane_DeliveriesAndRedeliverOfTheKeysProjectOnly(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, 0)
	s := newSandbox(t, paygatetest.WithCallbackURL(rcv.URL))
	b := teamB
	b.CallbackURL = rcv.URL
	s.srv.AddProject(b)
	payA := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, nil))
	payB := chargeAs(t, s, b)
	ids := func(key string) (ids []string, seqs []string) {
		status, body := s.controlRaw(http.MethodGet, "/sandbox/deliveries", "", "", key)
		require.Equal(t, http.StatusOK, status, string(body))
		var list []struct {
			ID     json.Number
			Fields map[string]string
		}
		require.NoError(t, json.Unmarshal(body, &list))
		for _, d := range list {
			ids, seqs = append(ids, d.Fields["id"]), append(seqs, d.ID.String())
		}
		return ids, seqs
	}
	aIDs, aSeqs := ids(s.srv.PrivateKey)
	bIDs, bSeqs := ids(teamB.Secret.Reveal())
	assert.Equal(t, []string{payA}, aIDs)
	assert.Equal(t, []string{payB}, bIDs)

	status, out := s.controlAs(teamB.Secret.Reveal(), http.MethodPost, "/sandbox/deliveries/"+aSeqs[0]+"/redeliver", nil)
	requireError(t, status, out, 40400)
	status, out = s.controlAs(teamB.Secret.Reveal(), http.MethodPost, "/sandbox/deliveries/"+bSeqs[0]+"/redeliver", nil)
	require.Equal(t, http.StatusOK, status, "%v", out)
}

func TestControlPlane_CallbackURLFaultsAndResetOfTheKeysProjectOnly(t *testing.T) {
	t.Parallel()
	s, payA, payB := twoProjects(t)
	status, out := s.controlAs(teamB.Secret.Reveal(), http.MethodPost, "/sandbox/callback-url", url.Values{"url": {"http://b.example/hook"}})
	require.Equal(t, http.StatusOK, status, "%v", out)
	status, out = s.controlAs(teamB.Secret.Reveal(), http.MethodPost, "/sandbox/faults",
		url.Values{"method": {"transaction/status"}, "fault": {"status-500"}, "count": {"5"}})
	require.Equal(t, http.StatusOK, status, "%v", out)

	st, _ := s.statusOf(payA)
	assert.Equal(t, "completed", st, "B's fault does not touch A's calls")
	next := idOf(s.charge(s.user("buyer"), paygatetest.CardApproved, nil))
	last := s.srv.Deliveries()[len(s.srv.Deliveries())-1]
	assert.Equal(t, next, last.Values.Get("id"))
	assert.Empty(t, last.URL, "B's callback URL is not A's")

	status, out = s.controlAs(teamB.Secret.Reveal(), http.MethodPost, "/sandbox/reset", nil)
	require.Equal(t, http.StatusOK, status, "%v", out)
	st, _ = s.statusOf(payA)
	assert.Equal(t, "completed", st, "B's reset keeps A's transactions")
	status, out = s.controlAs(teamB.Secret.Reveal(), http.MethodPost, "/sandbox/transactions/"+payB+"/chargeback", nil)
	requireError(t, status, out, paygate.CodeTransactionNotFound)
	assert.Zero(t, s.deliveryCount(teamB.Secret.Reveal()), "B's reset forgets B's callbacks")
	assert.Equal(t, 2, s.deliveryCount(s.srv.PrivateKey), "and keeps A's")
}

// deliveryCount is how many callbacks GET /sandbox/deliveries lists for
// the project of key.
func (s *sandbox) deliveryCount(key string) int {
	s.t.Helper()
	status, body := s.controlRaw(http.MethodGet, "/sandbox/deliveries", "", "", key)
	require.Equal(s.t, http.StatusOK, status, string(body))
	var list []json.RawMessage
	require.NoError(s.t, json.Unmarshal(body, &list))
	return len(list)
}

// The clock is the server's, shared by its projects: only the key of the
// server's own project moves it; any project's key reads it.
func TestControlPlane_OnlyTheServersProjectMovesTheClock(t *testing.T) {
	t.Parallel()
	s, _, _ := twoProjects(t)
	status, out := s.controlAs(teamB.Secret.Reveal(), http.MethodPost, "/sandbox/clock", url.Values{"advance": {"1h"}})
	requireError(t, status, out, 40300)
	status, out = s.controlAs(teamB.Secret.Reveal(), http.MethodPost, "/sandbox/clock", nil)
	require.Equal(t, http.StatusOK, status, "%v", out)
	assert.Equal(t, testStart, s.clock.Now())
	status, _ = s.controlAs(s.srv.PrivateKey, http.MethodPost, "/sandbox/clock", url.Values{"advance": {"1h"}})
	require.Equal(t, http.StatusOK, status)
}

func TestDashboard_ShowsTheKeysProjectOnly(t *testing.T) {
	t.Parallel()
	s, payA, payB := twoProjects(t)
	for key, want := range map[string][2]string{s.srv.PrivateKey: {payA, payB}, teamB.Secret.Reveal(): {payB, payA}} {
		status, body := s.controlRaw(http.MethodGet, "/sandbox/", "", "", key)
		require.Equal(t, http.StatusOK, status)
		assert.Contains(t, string(body), `id="txn-`+want[0]+`"`)
		assert.NotContains(t, string(body), `id="txn-`+want[1]+`"`)
	}
}
