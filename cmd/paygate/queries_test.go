package main

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The queries print JSON that parses back into what the SDK read.
func TestQueries_JSONParsesBack(t *testing.T) {
	t.Parallel()
	base := startSandbox(t)
	env := sandboxEnv(base)
	r := paygateCmd(t, env, "", "trigger", "chargeback", "--json")
	require.Zero(t, r.code, r.stderr)
	var chargeback struct {
		ID          json.Number `json:"id"`
		OrderID     string      `json:"orderId"`
		ReferenceID json.Number `json:"referenceId"`
	}
	decodeJSON(t, r.stdout, &chargeback)
	require.NotEmpty(t, chargeback.OrderID)

	r = paygateCmd(t, env, "", "transactions", "list", "--order", chargeback.OrderID, "--json")
	require.Zero(t, r.code, r.stderr)
	var listed []struct {
		ID     json.Number `json:"id"`
		Type   string      `json:"type"`
		Status string      `json:"status"`
	}
	decodeJSON(t, r.stdout, &listed)
	types := map[string]json.Number{}
	for _, tx := range listed {
		types[tx.Type] = tx.ID
	}
	assert.Equal(t, chargeback.ReferenceID, types["payment"])
	assert.Equal(t, chargeback.ID, types["chargeback"])

	r = paygateCmd(t, env, "", "transactions", "list", "--order", chargeback.OrderID, "--type", "chargeback", "--csv")
	require.Zero(t, r.code, r.stderr)
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 2, r.stdout)
	assert.Equal(t, transactionColumns, rows[0])
	assert.Equal(t, chargeback.ID.String(), rows[1][0])

	r = paygateCmd(t, env, "", "transactions", "get", chargeback.ID.String(), "--json")
	require.Zero(t, r.code, r.stderr)
	var got struct{ Status string }
	decodeJSON(t, r.stdout, &got)
	assert.Equal(t, "completed", got.Status)

	r = paygateCmd(t, env, "", "transactions", "status", "--id", chargeback.ReferenceID.String(), "--json")
	require.Zero(t, r.code, r.stderr)
	decodeJSON(t, r.stdout, &got)
	assert.Equal(t, "charged_back", got.Status)

	r = paygateCmd(t, env, "", "balance", "--currency", "EUR", "--json")
	require.Zero(t, r.code, r.stderr)
	var balance struct{ Amount, Currency string }
	decodeJSON(t, r.stdout, &balance)
	assert.Equal(t, "EUR", balance.Currency)
	assert.NotEmpty(t, balance.Amount)

	r = paygateCmd(t, env, "", "reconcile", chargeback.OrderID, "--json")
	require.Zero(t, r.code, r.stderr)
	var rec reconciliation
	decodeJSON(t, r.stdout, &rec)
	assert.True(t, rec.Found)
	assert.Equal(t, chargeback.OrderID, rec.OrderID)
	assert.Equal(t, "charge", rec.Kind)

	r = paygateCmd(t, env, "", "reconcile", chargeback.OrderID, "--kind", "refund")
	assert.Equal(t, exitUsage, r.code, "an unknown kind is refused before anything is sent: %s", r.stderr)
}
