package paygate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// A gateway (or a proxy before it) may answer before it has read the whole
// request body; the transport then goes on writing the body after Do has
// returned, so the body must not be a buffer the next request reuses. Run
// with -race.
func TestCharge_BodyIsNotReusedWhileTheTransportMayStillWriteIt(t *testing.T) {
	answer, err := os.ReadFile(filepath.Join("testdata", "card_process_extended.json"))
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer) // without reading the body
	}))
	defer srv.Close()
	c, err := NewClient("pk", "sk", WithBaseURL(srv.URL), WithRetryPolicy(NoRetries))
	require.NoError(t, err)
	long := strings.Repeat("x", 256<<10)
	var wg sync.WaitGroup
	ids := make(chan ID, 40)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				p, err := c.Cards.Charge(context.Background(), &ChargeParams{User: "1", CardToken: NewCardToken("tok"),
					Price: decimal.RequireFromString("1.00"), Currency: "EUR", Description: long})
				if err == nil {
					ids <- p.ID
				}
			}
		}()
	}
	wg.Wait()
	close(ids)
	n := 0
	for id := range ids {
		require.Equal(t, ID(4611686018427387913), id)
		n++
	}
	require.NotZero(t, n, "the early answers reach the caller")
}
