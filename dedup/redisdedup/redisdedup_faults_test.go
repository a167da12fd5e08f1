package redisdedup_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate-go/dedup/redisdedup"
	"github.com/paygate/paygate-go/internal/dedupsuite"
	"github.com/paygate/paygate-go/internal/testengine"
)

// faultLease is the claims' lease in the fault tests: the callbacks that
// run twice do so once it ended, so it is short. The handler gives each
// store call a quarter of it.
const faultLease = time.Second

// appendOnly is the persistence that keeps every write across a crash.
var appendOnly = []string{"--appendonly", "yes", "--appendfsync", "always"}

// Each test fails Redis around one callback and counts the merchant
// function's runs once the gateway's redeliveries were acknowledged: once,
// or twice where the package documentation says so, with the error logged.
func TestStore_FaultsRunTheFunctionOnceOrAsDocumented(t *testing.T) {
	tests := []struct {
		name      string
		args      []string // of redis-server
		fault     func(*testengine.RedisServer, *testengine.Proxy) dedupsuite.Fault
		wantFirst int
		wantRuns  int32
		wantError string // in a line logged at error level
	}{
		{
			"killed and restarted without persistence: processed again, logged", nil,
			func(s *testengine.RedisServer, _ *testengine.Proxy) dedupsuite.Fault {
				return dedupsuite.Fault{After: func(*testing.T) { s.Restart() }}
			},
			200, 2, "Redis lost the record of processed callbacks",
		},
		{
			"killed and restarted with an append-only file synced always: once", appendOnly,
			func(s *testengine.RedisServer, _ *testengine.Proxy) dedupsuite.Fault {
				return dedupsuite.Fault{After: func(*testing.T) { s.Restart() }}
			},
			200, 1, "",
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
			200, 2, "Redis lost the record of processed callbacks",
		},
		{
			"killed while the function runs: not recorded, processed again after the lease", appendOnly,
			func(s *testengine.RedisServer, _ *testengine.Proxy) dedupsuite.Fault {
				return dedupsuite.Fault{During: func(*testing.T) { s.Kill() }, After: func(*testing.T) { s.Restart() }}
			},
			500, 2, "paygate callback processed, but recording it failed",
		},
		{
			"stalled answers: recorded, acknowledged on the next delivery", nil,
			func(_ *testengine.RedisServer, p *testengine.Proxy) dedupsuite.Fault {
				return dedupsuite.Fault{During: func(*testing.T) { p.Stall(testengine.StallAnswers) }, After: func(*testing.T) { p.Resume() }}
			},
			500, 1, "paygate callback processed, but recording it failed",
		},
		{
			"stalled both ways: not recorded, processed again after the lease", nil,
			func(_ *testengine.RedisServer, p *testengine.Proxy) dedupsuite.Fault {
				return dedupsuite.Fault{During: func(*testing.T) { p.Stall(testengine.StallBoth) }, After: func(*testing.T) { p.Resume() }}
			},
			500, 2, "paygate callback processed, but recording it failed",
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
			got := dedupsuite.FaultRuns(t, store, logs.Logger(), tt.fault(server, proxy))
			if got.First != tt.wantFirst || got.Runs != tt.wantRuns {
				t.Errorf("first answer %d, function ran %d times; want %d and %d", got.First, got.Runs, tt.wantFirst, tt.wantRuns)
			}
			errs := strings.Join(logs.Errors(), "\n")
			if tt.wantError != "" && !strings.Contains(errs, tt.wantError) {
				t.Errorf("logged at error level:\n%s\nwant a line with %q", errs, tt.wantError)
			}
			t.Logf("function ran %d times; errors logged:\n%s", got.Runs, errs)
		})
	}
}
