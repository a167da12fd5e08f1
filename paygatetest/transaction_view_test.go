package paygatetest_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// TestTransactionsPage: a page holds the named project's transactions
// that match the filter, newest first, after the cursor and past the
// skipped ones; total counts every match; the JSON's ids are strings.
func TestTransactionsPage(t *testing.T) {
	s := newSandbox(t)
	user := s.user("u")
	var ids []paygate.ID
	for i := range 3 {
		n, err := strconv.ParseInt(idOf(s.charge(user, paygatetest.CardApproved, map[string][]string{"order_id": {"order-" + strconv.Itoa(i)}})), 10, 64)
		require.NoError(t, err)
		ids = append(ids, paygate.ID(n))
	}
	key := s.srv.ProjectKey
	idsOf := func(ts []paygatetest.Transaction) []paygate.ID {
		out := []paygate.ID{}
		for _, t := range ts {
			out = append(out, t.ID)
		}
		return out
	}

	page, total, more := s.srv.TransactionsPage(key, paygatetest.TransactionFilter{}, 0, 0, 2)
	require.Equal(t, []paygate.ID{ids[2], ids[1]}, idsOf(page))
	require.Equal(t, 3, total)
	require.True(t, more)

	page, total, more = s.srv.TransactionsPage(key, paygatetest.TransactionFilter{}, page[1].ID, 0, 2)
	require.Equal(t, []paygate.ID{ids[0]}, idsOf(page))
	require.Equal(t, 3, total, "total counts every match, the cursor aside")
	require.False(t, more)

	page, _, _ = s.srv.TransactionsPage(key, paygatetest.TransactionFilter{}, 0, 1, 1)
	require.Equal(t, []paygate.ID{ids[1]}, idsOf(page))

	page, total, _ = s.srv.TransactionsPage(key, paygatetest.TransactionFilter{OrderID: "order-1"}, 0, 0, 10)
	require.Equal(t, []paygate.ID{ids[1]}, idsOf(page))
	require.Equal(t, 1, total)
	require.Equal(t, "order-1", page[0].OrderID)
	require.Equal(t, key, page[0].ProjectKey)

	page, total, _ = s.srv.TransactionsPage("no-such-project", paygatetest.TransactionFilter{}, 0, 0, 10)
	require.Empty(t, page)
	require.Zero(t, total)

	body, err := json.Marshal(page)
	require.NoError(t, err)
	require.JSONEq(t, `[]`, string(body))
	tx, ok := s.srv.Transaction(key, ids[0])
	require.True(t, ok)
	body, err = json.Marshal(tx)
	require.NoError(t, err)
	out := decode(t, body)
	require.Equal(t, ids[0].String(), out["id"], "the control plane's ids are JSON strings")
	require.Equal(t, "order-0", out["orderId"])
}

// TestTriggerProject: an event applies only to a transaction of the named
// project, and answers the transaction it made.
func TestTriggerProject(t *testing.T) {
	s := newSandbox(t)
	n, err := strconv.ParseInt(idOf(s.charge(s.user("u"), paygatetest.CardApproved, nil)), 10, 64)
	require.NoError(t, err)
	id := paygate.ID(n)
	s.srv.AddProject(paygatetest.Project{Key: "other", Secret: paygatetest.NewSecret("other-secret")})

	_, err = s.srv.TriggerProject("other", id, paygatetest.EventChargeback)
	require.ErrorIs(t, err, paygatetest.ErrTransactionNotFound)
	_, ok := s.srv.Transaction("other", id)
	require.False(t, ok)

	before, ok := s.srv.Transaction(s.srv.ProjectKey, id)
	require.True(t, ok)
	require.Contains(t, before.Events, paygatetest.EventChargeback)

	chargeback, err := s.srv.TriggerProject(s.srv.ProjectKey, id, paygatetest.EventChargeback)
	require.NoError(t, err)
	require.NotEqual(t, id, chargeback.ID)
	require.Equal(t, id, chargeback.ReferenceID)
	require.Equal(t, paygate.TypeChargeback, chargeback.Type)
}
