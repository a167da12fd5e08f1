package paygate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endlessPageLimit is where the endless listing gives up, far past every
// bound the tests set, so that a walk without a bound ends (and fails the
// test) instead of running for ever.
const endlessPageLimit = 5000

// endlessListing serves GET transactions as an answer that never ends:
// every page is full (size transactions, new ids) and totalCount huge. It
// returns the client and the count of pages served.
func endlessListing(t *testing.T, size int) (*Client, *atomic.Int64) {
	t.Helper()
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := served.Add(1)
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if n > endlessPageLimit {
			fmt.Fprint(w, `{"totalCount":0,"transactions":[]}`)
			return
		}
		var b strings.Builder
		b.WriteString(`{"totalCount":9007199254740993,"transactions":[`)
		for i := range size {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"%d","orderId":"ord-1","type":"payment","status":"failed","price":"1.00","currency":"EUR"}`, page*size+i+1)
		}
		b.WriteString(`]}`)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, b.String())
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(testProject, testSecret, WithBaseURL(srv.URL), WithRetryPolicy(NoRetries))
	require.NoError(t, err)
	return c, &served
}

// walkAll ranges over All and returns how many transactions it yielded and
// the error that ended it.
func walkAll(ctx context.Context, c *Client, opts ...CallOption) (items int, err error) {
	for _, err := range c.Transactions.All(ctx, &ListParams{OrderID: "ord-1"}, opts...) {
		if err != nil {
			return items, err
		}
		items++
	}
	return items, nil
}

func TestAll_StopsAtItsDefaultBoundOfPages(t *testing.T) {
	t.Parallel()
	c, served := endlessListing(t, 1)
	items, err := walkAll(context.Background(), c)
	require.ErrorIs(t, err, ErrListingBound)
	var bound *ListingBoundError
	require.ErrorAs(t, err, &bound)
	assert.Equal(t, DefaultListBound, bound.Bound)
	assert.Equal(t, DefaultListBound.Pages, bound.Pages)
	assert.Equal(t, int64(DefaultListBound.Pages), served.Load(), "exactly the bound's number of pages is fetched")
	assert.Equal(t, DefaultListBound.Pages, items)
	assert.Contains(t, err.Error(), "bound of 1000 pages")
}

func TestAll_StopsAtTheBoundGivenWithTheCall(t *testing.T) {
	t.Parallel()
	t.Run("pages", func(t *testing.T) {
		c, served := endlessListing(t, 3)
		items, err := walkAll(context.Background(), c, WithListBound(4, 0))
		require.ErrorIs(t, err, ErrListingBound)
		assert.Equal(t, int64(4), served.Load())
		assert.Equal(t, 12, items)
		var bound *ListingBoundError
		require.ErrorAs(t, err, &bound)
		assert.Equal(t, ListBound{Pages: 4, Items: DefaultListBound.Items}, bound.Bound, "the other side keeps its default")
	})
	t.Run("items", func(t *testing.T) {
		c, served := endlessListing(t, 3)
		items, err := walkAll(context.Background(), c, WithListBound(0, 7))
		require.ErrorIs(t, err, ErrListingBound)
		assert.Equal(t, 7, items, "no more than the bound is yielded")
		assert.Equal(t, int64(3), served.Load(), "the page holding the eighth transaction is the last fetched")
		assert.Contains(t, err.Error(), "7 transactions")
	})
}

func TestReconcile_StopsAtItsSmallerBound(t *testing.T) {
	t.Parallel()
	c, served := endlessListing(t, 5)
	_, err := c.Transactions.Reconcile(context.Background(), "ord-1")
	require.ErrorIs(t, err, ErrListingBound)
	assert.Equal(t, int64(DefaultReconcileBound.Pages), served.Load())

	served.Store(0)
	_, err = c.Transactions.Settle(context.Background(), &SettleParams{Kind: KindPayout, OrderID: "ord-1"}, WithListBound(2, 0))
	require.ErrorIs(t, err, ErrListingBound)
	assert.Equal(t, int64(2), served.Load())
}

func TestAll_ACancelledContextStopsTheWalkBetweenPages(t *testing.T) {
	t.Parallel()
	c, served := endlessListing(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	items := 0
	var err error
	for _, e := range c.Transactions.All(ctx, &ListParams{OrderID: "ord-1"}) {
		if e != nil {
			err = e
			break
		}
		if items++; items == 3 { // in the second page
			cancel()
		}
	}
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, errors.Is(err, ErrListingBound))
	assert.Equal(t, 4, items, "the page already fetched is yielded to its end")
	assert.Equal(t, int64(2), served.Load(), "no page is fetched once the context is done")
}
