package testengine

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"testing"
)

// Between freePort closing its listener and the server binding the port,
// another process may take it (six people share these machines). A server
// already answering PING there must not be taken for ours.
func TestRedis_APortTakenMeanwhileIsNotMistakenForOurs(t *testing.T) {
	foreign, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer foreign.Close()
	go func() {
		for {
			c, err := foreign.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					if _, err := r.ReadString('\n'); err != nil {
						return
					}
					_, _ = c.Write([]byte("+PONG\r\n")) // answers everything as a stranger would
				}
			}()
		}
	}()
	taken := foreign.Addr().(*net.TCPAddr).Port
	handOutFirst(t, taken)

	addr := Redis(t)
	if addr == foreign.Addr().String() {
		t.Fatalf("Redis returned %s, the port another server took", addr)
	}
	if pong, err := redisCommand(addr, "PING"); err != nil || pong != "PONG" {
		t.Fatalf("PING %s = %q, %v", addr, pong, err)
	}
}

// PostgreSQL cannot bind a port taken meanwhile: the start is tried again
// on another.
func TestPostgres_APortTakenMeanwhileIsRetried(t *testing.T) {
	foreign, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer foreign.Close()
	taken := foreign.Addr().(*net.TCPAddr).Port
	handOutFirst(t, taken)

	dsn := Postgres(t)
	if strings.Contains(dsn, ":"+strconv.Itoa(taken)+"/") {
		t.Fatalf("Postgres returned %s, on the port another process took", dsn)
	}
}

// handOutFirst makes pickPort return port once, then free ports, for the
// rest of the test.
func handOutFirst(t *testing.T, port int) {
	handedOut := false
	pickPort = func(t testing.TB) int {
		if !handedOut {
			handedOut = true
			return port
		}
		return freePort(t)
	}
	t.Cleanup(func() { pickPort = freePort })
}
