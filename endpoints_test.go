package paygate

import (
	"net/http"
	"strings"
	"testing"
)

// Every row of the endpoint table has its row in endpointCases, with a
// call of its own and an answer to decode: the fault, logging, decoder,
// nil-params and fuzz suites range over those rows.
func TestEndpointCases_OneRowPerEndpoint(t *testing.T) {
	t.Parallel()
	cases := endpointCases()
	if len(cases) != len(endpoints) {
		t.Errorf("%d cases for %d endpoints", len(cases), len(endpoints))
	}
	for _, name := range endpointNames() {
		ec, ok := cases[name]
		row := endpoints[name]
		switch {
		case !ok:
			t.Errorf("row %s %s: no endpointCase", row.method, row.path)
		case len(ec.calls) == 0 || ec.calls[0].call == nil:
			t.Errorf("row %s %s: no call", row.method, row.path)
		case ec.answer.fixture == "" || ec.answer.decode == nil || ec.answer.into == nil:
			t.Errorf("row %s %s: no answer to decode", row.method, row.path)
		}
	}
}

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

// Every row says which fields of its answer decide what happened: a row
// without them would decode any answer, however broken, as a success.
func TestEndpoints_EveryRowHasAnswerRules(t *testing.T) {
	t.Parallel()
	for _, row := range endpoints {
		if len(row.answer.required) == 0 {
			t.Errorf("row %s %s: no required answer field", row.method, row.path)
		}
	}
}

// rowFor returns the row of endpoints that serves method and path (a path
// with a real id for {id}), with its path as given.
func rowFor(t testing.TB, method, path string) endpoint {
	t.Helper()
	row, ok := endpointFor(method, path)
	if !ok {
		t.Fatalf("no endpoint row serves %s %s", method, path)
	}
	return row
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
