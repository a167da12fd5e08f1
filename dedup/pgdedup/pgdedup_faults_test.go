package pgdedup_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/paygate/paygate-go/callback"
	"github.com/paygate/paygate-go/dedup/pgdedup"
	"github.com/paygate/paygate-go/internal/testkit/dedupsuite"
	"github.com/paygate/paygate-go/internal/testkit/testengine"
)

// faultLease is the claims' lease in the fault tests: the callbacks that
// run twice do so once it ended, so it is short; but the handler gives
// each store call a quarter of it, which a loaded machine must not miss.
const faultLease = 2 * time.Second

// Each test fails PostgreSQL around one callback and counts the merchant
// function's runs once the gateway's redeliveries were acknowledged: once,
// or twice where the package documentation says so, with the error logged.
// The server commits synchronously, as a production one does, so that a
// commit survives its crash; the store reaches it through a proxy that can
// stall its connections.
func TestStore_FaultsRunTheFunctionOnceOrAsDocumented(t *testing.T) {
	server := testengine.StartPostgres(t, "synchronous_commit=on")
	dsn, err := url.Parse(server.DSN())
	if err != nil {
		t.Fatal(err)
	}
	proxy := testengine.NewProxy(t, dsn.Host)
	dsn.Host = proxy.Addr()
	// One connection, so that the warm-up below prepares the statements
	// on the connection the callback uses.
	q := dsn.Query()
	q.Set("pool_max_conns", "1")
	dsn.RawQuery = q.Encode()
	tests := []struct {
		name  string
		fault dedupsuite.Fault
		want  dedupsuite.Want
	}{
		{
			"stalled answers: recorded, acknowledged on the next delivery",
			dedupsuite.Fault{During: func(*testing.T) { proxy.Stall(testengine.StallAnswers) }, After: func(*testing.T) { proxy.Resume() }},
			dedupsuite.Want{First: 500, Runs: 1, Error: dedupsuite.NotRecorded},
		},
		{
			"stalled both ways: not recorded, processed again after the lease",
			dedupsuite.Fault{During: func(*testing.T) { proxy.Stall(testengine.StallBoth) }, After: func(*testing.T) { proxy.Resume() }},
			dedupsuite.Want{First: 500, Runs: 2, Error: dedupsuite.NotRecorded},
		},
		{
			"killed and restarted: once",
			dedupsuite.Fault{After: func(*testing.T) { server.Restart() }},
			dedupsuite.Want{First: 200, Runs: 1},
		},
		{
			"killed while the function runs: not recorded, processed again after the lease",
			dedupsuite.Fault{During: func(*testing.T) { server.Kill() }, After: func(*testing.T) { server.Restart() }},
			dedupsuite.Want{First: 500, Runs: 2, Error: dedupsuite.NotRecorded},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs dedupsuite.Logs
			store := newStore(t, dsn.String(), pgdedup.WithLease(faultLease), pgdedup.WithLogger(logs.Logger()))
			// pgx prepares a statement on its first use on a connection,
			// a round trip of its own: a statement sent the first time
			// through a stalled connection never runs. Warm, it is sent
			// in one.
			dedupsuite.Record(t, store, dedupsuite.Key(callback.ID(70+i)))
			dedupsuite.FaultRuns(t, store, &logs, tt.fault, tt.want)
		})
	}
}
