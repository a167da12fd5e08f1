package testengine

import "testing"

// A restarted server answers on the same address; what it kept depends on
// its persistence: an append-only file synced on every write keeps a key,
// a server without persistence forgets it.
func TestRedisServer_RestartKeepsWhatItPersisted(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		kept bool
	}{
		{"without persistence", nil, false},
		{"append-only, fsync always", []string{"--appendonly", "yes", "--appendfsync", "always"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := StartRedis(t, tt.args...)
			mustRedis(t, s.Addr(), "SET survivor here")
			before := s.Addr()
			s.Restart()
			if s.Addr() != before {
				t.Fatalf("restarted on %s, want %s", s.Addr(), before)
			}
			got, err := redisCommand(s.Addr(), "GET survivor")
			if kept := err == nil && got == "here"; kept != tt.kept {
				t.Fatalf("after the restart GET = %q, %v; kept = %v, want %v", got, err, kept, tt.kept)
			}
		})
	}
}
