package paygate

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A page a merchant stored or received elsewhere decodes as List decodes
// it, totalCount as a number or a string.
func TestTransactionPage_UnmarshalJSONMatchesList(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		fixture    string
		totalCount int
		n          int
	}{
		{"transactions_list_page1.json", 5, 2},
		{"transactions_list_single.json", 1, 1}, // totalCount as a string
		{"transactions_list_empty.json", 0, 0},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			var direct TransactionPage
			require.NoError(t, json.Unmarshal(fixture(t, tt.fixture), &direct))
			assert.Equal(t, tt.totalCount, direct.TotalCount)
			assert.Len(t, direct.Transactions, tt.n)

			c, _ := stubFixture(t, http.MethodGet, "transactions", 200, tt.fixture)
			listed, err := c.Transactions.List(context.Background(), &TransactionListParams{OrderID: "ord-2026-0042"})
			require.NoError(t, err)
			assert.Equal(t, &direct, listed)
		})
	}
}

// The answer types a merchant may decode with encoding/json read their
// fields as the client does, and fail, as encoding/json does, on a field
// they cannot read, naming it.
func TestAnswerTypes_UnmarshalJSONReadsAsTheClientDoes(t *testing.T) {
	t.Parallel()
	var card Card
	require.NoError(t, json.Unmarshal([]byte(`{"last_four":4242,"expirationMonth":"07","expiration_year":"2031","expiresAt":"2031-07-31T23:59:59+0000"}`), &card))
	assert.Equal(t, "4242", card.LastFour)
	assert.Equal(t, 7, card.ExpirationMonth)
	assert.Equal(t, 2031, card.ExpirationYear)
	assert.Equal(t, 2031, card.ExpiresAt.Year())

	var types []PayoutType
	require.NoError(t, json.Unmarshal([]byte(`[{"id":"0","key":"CREDIT_CARD"},{"id":5,"key":"SEPA"}]`), &types))
	assert.Equal(t, []PayoutType{{ID: 0, Key: "CREDIT_CARD"}, {ID: 5, Key: "SEPA"}}, types)

	var params []PayoutParameter
	require.NoError(t, json.Unmarshal([]byte(`[{"name":"purposeCode","required":"1"},{"name":"receiverBankBIC","required":0}]`), &params))
	assert.True(t, params[0].Required)
	assert.False(t, params[1].Required)

	u := User{Email: "kept@shop.example"}
	require.NoError(t, json.Unmarshal([]byte(`{"identifier":100452,"phone":79161234567}`), &u))
	assert.Equal(t, User{Identifier: "100452", Phone: "79161234567", Email: "kept@shop.example"}, u, "absent fields keep their values")
	require.NoError(t, json.Unmarshal([]byte(`null`), &u))
	assert.Equal(t, "100452", u.Identifier, "null changes nothing")

	var r Recurring
	err := json.Unmarshal([]byte(`{"frequency":"monthly"}`), &r)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "frequency")
}
