package paygatetest_test

import (
	"errors"
	"strconv"
	"testing"

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
