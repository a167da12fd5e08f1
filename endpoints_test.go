package paygate

import (
	"net/http"
	"strings"
	"testing"
)

// The fault and logging suites run everyEndpointCall: a row of the
// endpoint table that no call there reaches, with the row's method, is an
// endpoint those suites never prove.
func TestEveryEndpointCallCoversEndpointTable(t *testing.T) {
	t.Parallel()
	calls := everyEndpointCall()
	for _, row := range endpoints {
		covered := false
		for _, c := range calls {
			path := c.path
			if strings.HasPrefix(row.path, "transactions/") && strings.HasPrefix(path, "transactions/") {
				path = row.path // the call's path carries a real id for {id}
			}
			if path == row.path && c.method == row.method {
				covered = true
			}
		}
		if !covered {
			t.Errorf("row %s %s: no call of everyEndpointCall sends it", row.method, row.path)
		}
	}
}

// Only a method that only reads may be sent again after it may have
// reached the gateway: every POST moves money or changes a subscription.
func TestOnlyGETEndpointsAreIdempotent(t *testing.T) {
	t.Parallel()
	for _, row := range endpoints {
		if row.idempotent != (row.method == http.MethodGet) {
			t.Errorf("row %s %s: idempotent is %v", row.method, row.path, row.idempotent)
		}
	}
}
