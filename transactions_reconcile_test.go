package paygate

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// TestReconcile_SettlesAChargeThatTimedOut walks the worked example of the
// README: the gateway records a charge but answers after the merchant's
// deadline; the charge reports ErrOutcomeUnknown with the order id, is sent
// once, and Settle finds the completed payment. An order that never
// reached the gateway reconciles as nothing recorded.
func TestReconcile_SettlesAChargeThatTimedOut(t *testing.T) {
	var mu sync.Mutex
	charged := map[string]int{} // order id -> charges received
	listing := string(fixture(t, "transactions_list_single.json"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ParseForm() != nil {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/v1/card/process":
			mu.Lock()
			charged[r.PostForm.Get("order_id")]++
			mu.Unlock()
			<-r.Context().Done() // charged, but the answer never makes it in time
		case "/v1/transactions":
			mu.Lock()
			n := charged[r.Form.Get("orderId")]
			mu.Unlock()
			if n == 0 {
				io.WriteString(w, `{"totalCount":0,"transactions":[]}`)
				return
			}
			io.WriteString(w, strings.ReplaceAll(listing, "ord-2026-0042", r.Form.Get("orderId")))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	client, err := NewClient(testProject, testSecret, WithBaseURL(srv.URL))
	require.NoError(t, err)
	ctx := context.Background()

	_, err = client.Cards.Charge(ctx, &ChargeParams{User: "100452", CardToken: NewCardToken("5f0c2e9a7d1b4c3e8a6f2b9d0e1c7a45"),
		Price: decimal.RequireFromString("10.00"), Currency: "EUR", Description: "Order ord-1001", OrderID: "ord-1001"},
		WithCallTimeout(200*time.Millisecond))
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	var unknown *OutcomeUnknownError
	require.True(t, errors.As(err, &unknown))
	require.Equal(t, "ord-1001", unknown.OrderID)

	rec, err := client.Transactions.Settle(ctx, unknown.SettleParams())
	require.NoError(t, err)
	require.True(t, rec.Found)
	require.Equal(t, KindCharge, rec.Kind)
	require.True(t, rec.Completed(), "the charge went through: fulfil the order")
	require.Len(t, rec.Transactions, 1)
	require.Equal(t, "ord-1001", rec.Transactions[0].OrderID)
	require.Equal(t, ID(9007199254740993107), rec.Transactions[0].ID)

	rec, err = client.Transactions.Reconcile(ctx, "ord-1002")
	require.NoError(t, err)
	require.False(t, rec.Found, "nothing recorded for an order never sent")
	require.Equal(t, OutcomeNotFound, rec.Outcome)
	require.False(t, rec.Completed())

	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, map[string]int{"ord-1001": 1}, charged, "the charge was sent once and never again")
}
