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

// transactions list without an order names the command's flag, not the
// gateway's parameter, and points at the sandbox's list of them all.
func TestTransactionsList_WithoutOrderNamesTheFlag(t *testing.T) {
	t.Parallel()
	r := paygateCmd(t, sandboxEnv("http://127.0.0.1:1"), "", "transactions", "list")
	assert.Equal(t, exitUsage, r.code, r.stderr)
	assert.Contains(t, r.stderr, "--order")
	assert.NotContains(t, r.stderr, "orderId")
}

// transactions list --sandbox lists every transaction of a sandbox, the
// control plane's list, which needs no order.
func TestTransactionsList_SandboxListsEveryOrder(t *testing.T) {
	t.Parallel()
	base := startSandbox(t)
	env := sandboxEnv(base)
	for range 2 {
		require.Zero(t, paygateCmd(t, env, "", "trigger", "complete").code)
	}
	r := paygateCmd(t, env, "", "transactions", "list", "--sandbox", "--type", "payment", "--csv")
	require.Zero(t, r.code, r.stderr)
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 3, r.stdout)
	assert.NotEqual(t, rows[1][6], rows[2][6], "two orders")
}

// The text and CSV listings print an amount with the decimals the gateway
// sent, as paygate get shows them: 10.00, not 10.
func TestTransactionsList_KeepsTheGatewaysScale(t *testing.T) {
	t.Parallel()
	base := startSandbox(t)
	env := sandboxEnv(base)
	r := paygateCmd(t, env, "", "trigger", "complete", "--json")
	require.Zero(t, r.code, r.stderr)
	var tx struct {
		ID      json.Number `json:"id"`
		OrderID string      `json:"orderId"`
	}
	decodeJSON(t, r.stdout, &tx)
	r = paygateCmd(t, env, "", "get", "transactions/"+tx.ID.String())
	require.Zero(t, r.code, r.stderr)
	var raw struct{ Price, Fee json.Number }
	decodeJSON(t, r.stdout, &raw)
	require.Equal(t, "10.00", raw.Price.String())

	r = paygateCmd(t, env, "", "transactions", "list", "--order", tx.OrderID, "--csv")
	require.Zero(t, r.code, r.stderr)
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 2, r.stdout)
	assert.Equal(t, raw.Price.String(), rows[1][3], "price")
	assert.Equal(t, raw.Fee.String(), rows[1][5], "fee")

	r = paygateCmd(t, env, "", "transactions", "get", tx.ID.String())
	require.Zero(t, r.code, r.stderr)
	assert.Contains(t, r.stdout, " 10.00 EUR ")
}
