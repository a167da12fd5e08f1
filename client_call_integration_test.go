package paygate_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
	"github.com/paygate/paygate-go/paygatetest"
)

// An unmodeled parameter is signed over with the others: the sandbox, which
// checks the signature over every value it receives, accepts the raw call,
// and refuses the same request signed without that parameter.
func TestIntegration_CallSignsAParameterTheSDKDoesNotModel(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended)
	params := url.Values{"identifier": {"cust-raw"}, "ip": {"203.0.113.7"}, "x_campaign": {"spring"}}
	var out map[string]any
	require.NoError(t, sb.client.Call(testCtx(t), "POST", "user/resolve", params, &out))
	assert.NotEmpty(t, out["id"])

	unsigned := url.Values{"project": {sb.srv.ProjectKey}, "identifier": {"cust-raw"}, "ip": {"203.0.113.7"}}
	unsigned.Set("signature", paygate.Sign(unsigned, sb.srv.PrivateKey))
	unsigned.Set("x_campaign", "spring")
	res, err := http.PostForm(sb.srv.URL+"/v1/user/resolve", unsigned)
	require.NoError(t, err)
	defer res.Body.Close()
	var answer struct {
		Error struct{ Code int } `json:"error"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&answer))
	assert.Equal(t, int(paygate.CodeSignatureInvalid), answer.Error.Code)
}

// A raw GET of a known endpoint answers what the typed call reads.
func TestIntegration_CallReadsWhatTheTypedCallReads(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t, paygate.FormExtended)
	pay := sb.charge(t, paygatetest.CardApproved, "12.50", "ord-raw")
	var tx paygate.Transaction
	require.NoError(t, sb.client.Call(testCtx(t), "GET", "/v1/transactions/"+pay.ID.String(), nil, &tx))
	typed, err := sb.client.Transactions.Get(testCtx(t), pay.ID)
	require.NoError(t, err)
	assert.Equal(t, typed.ID, tx.ID)
	assert.Equal(t, typed.Status, tx.Status)
	assert.True(t, typed.Price.Equal(tx.Price))
}
