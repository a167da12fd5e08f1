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
			listed, err := c.Transactions.List(context.Background(), &ListParams{OrderID: "ord-2026-0042"})
			require.NoError(t, err)
			assert.Equal(t, &direct, listed)
		})
	}
}
