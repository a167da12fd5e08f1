package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go"
)

// The sandbox answers the deliveries a page at a time (per_page at most
// 1000, the next page after the cursor): the command reads them all, each
// once, oldest first.
func TestDeliveries_WalksEveryPage(t *testing.T) {
	t.Parallel()
	const total = 2500
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		perPage, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		cursor, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
		page := []map[string]any{}
		for id := cursor + 1; id <= total && len(page) < perPage; id++ {
			page = append(page, map[string]any{"id": id, "fields": map[string]string{}, "attempts": []any{}})
		}
		json.NewEncoder(w).Encode(page)
	}))
	t.Cleanup(srv.Close)
	cp := &controlPlane{base: srv.URL, secret: testSecret, http: srv.Client()}
	all, err := cp.deliveries(context.Background())
	require.NoError(t, err)
	require.Len(t, all, total)
	for i, d := range all {
		assert.Equal(t, paygate.ID(i+1), d.ID)
	}
}
