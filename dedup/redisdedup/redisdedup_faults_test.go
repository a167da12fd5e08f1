package redisdedup_test

import (
	"context"
	"testing"
	"time"

	"github.com/paygate/paygate-go/dedup/redisdedup"
	"github.com/paygate/paygate-go/internal/testkit/dedupsuite"
	"github.com/paygate/paygate-go/internal/testkit/testengine"
)

// faultLease is the claims' lease in the fault tests: the callbacks that
// run twice do so once it ended, so it is short; but the handler gives
// each store call a quarter of it, which a loaded machine must not miss.
const faultLease = 2 * time.Second

// appendOnly is the persistence that keeps every write across a crash.
var appendOnly = []string{"--appendonly", "yes", "--appendfsync", "always"}

// Each test fails Redis around one callback and counts the merchant
// function's runs once the gateway's redeliveries were acknowledged: once,
// or twice where the package documentation says so, with the error logged.
func TestStore_FaultsRunTheFunctionOnceOrAsDocumented(t *testing.T) {
	tests := []struct {
		name  string
		args  []string // of redis-server
		fault func(*testengine.RedisServer, *testengine.Proxy) dedupsuite.Fault
		want  dedupsuite.Want
	}{
		{
			"killed and restarted without persistence: processed again, logged", nil,
			func(s *testengine.RedisServer, _ *testengine.Proxy) dedupsuite.Fault {
				return dedupsuite.Fault{After: func(*testing.T) { s.Restart() }}
			},
			dedupsuite.Want{First: 200, Runs: 2, Error: "Redis lost the record of processed callbacks"},
		},
		{
			"killed and restarted with an append-only file synced always: once", appendOnly,
			func(s *testengine.RedisServer, _ *testengine.Proxy) dedupsuite.Fault {
				return dedupsuite.Fault{After: func(*testing.T) { s.Restart() }}
			},
			dedupsuite.Want{First: 200, Runs: 1},
		},
		{
			"flushed: processed again, logged", nil,
			func(s *testengine.RedisServer, _ *testengine.Proxy) dedupsuite.Fault {
				return dedupsuite.Fault{After: func(t *testing.T) {
					if err := connect(t, s.Addr()).FlushAll(context.Background()).Err(); err != nil {
						t.Fatal(err)
					}
				}}
			},
			dedupsuite.Want{First: 200, Runs: 2, Error: "Redis lost the record of processed callbacks"},
		},
		{
			"killed while the function runs: not recorded, processed again after the lease", appendOnly,
			func(s *testengine.RedisServer, _ *testengine.Proxy) dedupsuite.Fault {
				return dedupsuite.Fault{During: func(*testing.T) { s.Kill() }, After: func(*testing.T) { s.Restart() }}
			},
			dedupsuite.Want{First: 500, Runs: 2, Error: dedupsuite.NotRecorded},
		},
		{
			"stalled answers: recorded, acknowledged on the next delivery", nil,
			func(_ *testengine.RedisServer, p *testengine.Proxy) dedupsuite.Fault {
				return dedupsuite.Fault{During: func(*testing.T) { p.Stall(testengine.StallAnswers) }, After: func(*testing.T) { p.Resume() }}
			},
			dedupsuite.Want{First: 500, Runs: 1, Error: dedupsuite.NotRecorded},
		},
		{
			"stalled both ways: not recorded, processed again after the lease", nil,
			func(_ *testengine.RedisServer, p *testengine.Proxy) dedupsuite.Fault {
				return dedupsuite.Fault{During: func(*testing.T) { p.Stall(testengine.StallBoth) }, After: func(*testing.T) { p.Resume() }}
			},
			dedupsuite.Want{First: 500, Runs: 2, Error: dedupsuite.NotRecorded},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server := testengine.StartRedis(t, tt.args...)
			proxy := testengine.NewProxy(t, server.Addr())
			var logs dedupsuite.Logs
			// The client's own read timeout (3 s) is longer than the
			// handler's deadline: the store must abandon a stalled call.
			store := redisdedup.New(connect(t, proxy.Addr()), redisdedup.WithLease(faultLease), redisdedup.WithLogger(logs.Logger()))
			dedupsuite.FaultRuns(t, store, &logs, tt.fault(server, proxy), tt.want)
		})
	}
}
