package paygatetest_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// TestResetProject: ResetProject forgets the transactions of the project
// it names only, and an unknown key changes nothing.
func TestResetProject(t *testing.T) {
	s := newSandbox(t)
	n, err := strconv.ParseInt(idOf(s.charge(s.user("u"), paygatetest.CardApproved, nil)), 10, 64)
	require.NoError(t, err)
	s.srv.AddProject(paygatetest.Project{Key: "other", Secret: paygatetest.NewSecret("other-secret")})

	s.srv.ResetProject("other")
	s.srv.ResetProject("no-such-project")
	_, err = s.srv.Trigger(paygate.ID(n), paygatetest.EventChargeback)
	require.NoError(t, err, "another project's reset forgot this one's payment")

	s.srv.ResetProject(s.srv.ProjectKey)
	_, err = s.srv.Trigger(paygate.ID(n), paygatetest.EventChargeback)
	require.ErrorIs(t, err, paygatetest.ErrTransactionNotFound)
}

// TestProjectCallbackURL: SetProjectCallbackURL changes one project's URL
// and answers the one it replaced; it refuses an unknown project and a
// URL that is not absolute http(s).
func TestProjectCallbackURL(t *testing.T) {
	s := newSandbox(t, paygatetest.WithCallbackURL("https://shop.example/callback"))
	s.srv.AddProject(paygatetest.Project{Key: "other", Secret: paygatetest.NewSecret("other-secret")})

	previous, err := s.srv.SetProjectCallbackURL("other", "https://other.example/cb")
	require.NoError(t, err)
	require.Empty(t, previous)
	require.Equal(t, "https://other.example/cb", s.srv.ProjectCallbackURL("other"))
	require.Equal(t, "https://shop.example/callback", s.srv.ProjectCallbackURL(s.srv.ProjectKey))

	previous, err = s.srv.SetProjectCallbackURL(s.srv.ProjectKey, "")
	require.NoError(t, err)
	require.Equal(t, "https://shop.example/callback", previous)
	require.Empty(t, s.srv.ProjectCallbackURL(s.srv.ProjectKey))

	_, err = s.srv.SetProjectCallbackURL("no-such-project", "https://x.example/")
	require.ErrorIs(t, err, paygatetest.ErrUnknownProject)
	require.Empty(t, s.srv.ProjectCallbackURL("no-such-project"))
	_, err = s.srv.SetProjectCallbackURL("other", "/relative")
	require.True(t, errors.Is(err, paygatetest.ErrInvalidCallbackURL), err)
	require.Equal(t, "https://other.example/cb", s.srv.ProjectCallbackURL("other"), "a refused URL replaced the old one")
}

// TestDelivery: Delivery finds a callback of the log by its Seq, and
// reports a sequence number the log never had.
func TestDelivery(t *testing.T) {
	s := newSandbox(t)
	s.charge(s.user("u"), paygatetest.CardApproved, nil)
	all := s.srv.Deliveries()
	require.NotEmpty(t, all)
	d, ok := s.srv.Delivery(all[0].Seq)
	require.True(t, ok)
	require.Equal(t, all[0].Seq, d.Seq)
	require.Equal(t, all[0].Values, d.Values)
	_, ok = s.srv.Delivery(all[len(all)-1].Seq + 1000)
	require.False(t, ok)
}

// TestInjectProjectFault: a fault injected for one project's calls leaves
// the other projects' calls alone.
func TestInjectProjectFault(t *testing.T) {
	s := newSandbox(t)
	s.srv.AddProject(paygatetest.Project{Key: "other", Secret: paygatetest.NewSecret("other-secret")})
	require.NoError(t, s.srv.InjectProjectFault("other", "user/resolve", paygatetest.FaultStatus503, 1))
	s.user("u") // the server's own project: no fault

	require.NoError(t, s.srv.InjectProjectFault(s.srv.ProjectKey, "user/resolve", paygatetest.FaultStatus503, 1))
	status, _ := s.call("user/resolve", url.Values{"identifier": {"u"}, "email": {"u@example.com"}, "ip": {"192.0.2.1"}})
	require.Equal(t, http.StatusServiceUnavailable, status)

	require.ErrorIs(t, s.srv.InjectProjectFault("other", "no/such-method", paygatetest.FaultStatus503, 1), paygatetest.ErrInvalidFault)
}

// TestDeliveriesPage: a page holds the named project's callbacks only,
// oldest first, after the cursor and past the skipped ones.
func TestDeliveriesPage(t *testing.T) {
	s := newSandbox(t)
	for range 3 {
		s.charge(s.user("u"), paygatetest.CardApproved, nil)
	}
	all := s.srv.Deliveries()
	require.GreaterOrEqual(t, len(all), 3)
	seqs := func(ds []paygatetest.Delivery) []int {
		out := []int{}
		for _, d := range ds {
			out = append(out, d.Seq)
		}
		return out
	}
	require.Equal(t, seqs(all), seqs(s.srv.DeliveriesPage(s.srv.ProjectKey, 0, 0, 1000)))
	require.Equal(t, seqs(all[1:3]), seqs(s.srv.DeliveriesPage(s.srv.ProjectKey, 0, 1, 2)))
	require.Equal(t, seqs(all[1:2]), seqs(s.srv.DeliveriesPage(s.srv.ProjectKey, all[0].Seq, 0, 1)))
	require.Empty(t, s.srv.DeliveriesPage("no-such-project", 0, 0, 1000))
}

// TestAwaitAttempt: after Redeliver, AwaitAttempt answers the callback
// with the new attempt; with nothing to wait for it answers when ctx ends.
func TestAwaitAttempt(t *testing.T) {
	rcv := newReceiver(t, 1) // the first attempt fails with 500
	s := newSandbox(t, paygatetest.WithCallbackRetry(1, time.Hour))
	_, err := s.srv.SetProjectCallbackURL(s.srv.ProjectKey, rcv.URL)
	require.NoError(t, err)
	s.charge(s.user("u"), paygatetest.CardApproved, nil)
	before := waitFor(t, s, func(d paygatetest.Delivery) bool { return len(d.History) == 1 })

	require.NoError(t, s.srv.Redeliver(before.Seq))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	after := s.srv.AwaitAttempt(ctx, before)
	require.Len(t, after.History, 2)
	require.Equal(t, http.StatusOK, after.History[1].Status)

	done, cancelDone := context.WithCancel(context.Background())
	cancelDone()
	require.Equal(t, after.History, s.srv.AwaitAttempt(done, after).History)
}

// TestLoadProjectFixtures: fixtures load into the named project only, and
// an unknown project is refused.
func TestLoadProjectFixtures(t *testing.T) {
	s := newSandbox(t)
	s.srv.AddProject(paygatetest.Project{Key: "other", Secret: paygatetest.NewSecret("other-secret"), CardRemembering: true, Form: paygate.FormExtended})
	example := []byte(`{"users": [{"name": "bob", "identifier": "customer-42"}],
		"payments": [{"name": "paid", "user": "bob", "price": "9.99", "order_id": "order-1"}]}`)

	_, err := s.srv.LoadProjectFixtures("no-such-project", bytes.NewReader(example))
	require.ErrorIs(t, err, paygatetest.ErrUnknownProject)

	_, err = s.srv.LoadProjectFixtures("other", bytes.NewReader(example))
	require.NoError(t, err)
	_, total, _ := s.srv.TransactionsPage("other", paygatetest.TransactionFilter{}, 0, 0, 1)
	require.NotZero(t, total)
	_, total, _ = s.srv.TransactionsPage(s.srv.ProjectKey, paygatetest.TransactionFilter{}, 0, 0, 1)
	require.Zero(t, total, "another project's fixtures were made in this one")
	for _, d := range s.srv.Deliveries() {
		require.Equal(t, "other", d.ProjectKey())
	}
}

// TestProjectLookups: Project finds a project by its public key and
// ProjectBySecret by its private key; each answers a copy.
func TestProjectLookups(t *testing.T) {
	s := newSandbox(t)
	s.srv.AddProject(paygatetest.Project{Key: "other", Secret: paygatetest.NewSecret("other-secret")})

	p, ok := s.srv.Project("other")
	require.True(t, ok)
	require.Equal(t, "other", p.Key)
	p.CallbackURL = "https://changed.example/"
	require.Empty(t, s.srv.ProjectCallbackURL("other"), "changing the copy changed the server's project")

	p, ok = s.srv.ProjectBySecret("other-secret")
	require.True(t, ok)
	require.Equal(t, "other", p.Key)
	p, ok = s.srv.ProjectBySecret(s.srv.PrivateKey)
	require.True(t, ok)
	require.Equal(t, s.srv.ProjectKey, p.Key)

	for _, wrong := range []string{"", "other", "other-secre", "no-such-secret"} {
		_, ok = s.srv.ProjectBySecret(wrong)
		require.False(t, ok, wrong)
	}
	_, ok = s.srv.Project("no-such-project")
	require.False(t, ok)
}

// TestMethods: every method Methods names takes a fault, sorted, and the
// list holds the gateway's methods.
func TestMethods(t *testing.T) {
	s := newSandbox(t)
	methods := paygatetest.Methods()
	require.True(t, sort.StringsAreSorted(methods), methods)
	require.Contains(t, methods, "card/process")
	require.Contains(t, methods, "transactions/{id}")
	for _, m := range methods {
		require.NoError(t, s.srv.InjectFault(m, paygatetest.FaultStatus503, 0), m)
	}
}

// TestBalancesAndDeliveryCount: Balances is a copy of the project's
// balances, and DeliveryCount counts its callbacks the log keeps.
func TestBalancesAndDeliveryCount(t *testing.T) {
	s := newSandbox(t)
	s.srv.AddProject(paygatetest.Project{Key: "other", Secret: paygatetest.NewSecret("other-secret")})
	s.charge(s.user("u"), paygatetest.CardApproved, map[string][]string{"currency": {"USD"}})

	balances := s.srv.Balances(s.srv.ProjectKey)
	require.True(t, balances["USD"].IsPositive(), balances)
	delete(balances, "USD")
	require.True(t, s.srv.Balances(s.srv.ProjectKey)["USD"].IsPositive(), "changing the copy changed the server's balance")
	require.Empty(t, s.srv.Balances("other"))

	require.Equal(t, len(s.srv.Deliveries()), s.srv.DeliveryCount(s.srv.ProjectKey))
	require.NotZero(t, s.srv.DeliveryCount(s.srv.ProjectKey))
	require.Zero(t, s.srv.DeliveryCount("other"))
}
