package testengine

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// childEngine names the engine that TestChildProcess starts, in the test
// binary that TestServersDieWithAKilledTestBinary runs and kills.
const childEngine = "PAYGATE_TESTENGINE_CHILD"

// A test binary killed by go test -timeout or Ctrl-C runs no cleanup: its
// servers must die with it rather than keep their ports and memory.
func TestServersDieWithAKilledTestBinary(t *testing.T) {
	for _, engine := range []string{"redis", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestChildProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), childEngine+"="+engine, "TMPDIR="+t.TempDir())
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var addr, dir string
			for sc := bufio.NewScanner(stdout); addr == "" && sc.Scan(); {
				_, _ = fmt.Sscanf(sc.Text(), "started %s in %s", &addr, &dir)
			}
			if addr == "" {
				_ = cmd.Process.Kill()
				t.Fatalf("the child process started no %s: %v", engine, cmd.Wait())
			}
			t.Cleanup(func() { _ = os.RemoveAll(dir) })
			if !answers(addr) {
				t.Fatalf("%s at %s does not answer while the child runs", engine, addr)
			}

			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			deadline := time.Now().Add(30 * time.Second)
			for answers(addr) {
				if time.Now().After(deadline) {
					t.Fatalf("%s at %s still answers 30 s after its test binary was killed", engine, addr)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// answers reports whether a server accepts connections at addr.
func answers(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// TestChildProcess is the test binary that TestServersDieWithAKilledTestBinary
// kills: it starts the engine named in its environment, says where, and
// waits to be killed.
func TestChildProcess(t *testing.T) {
	var addr, dir string
	switch os.Getenv(childEngine) {
	case "":
		t.Skip("the child process of TestServersDieWithAKilledTestBinary")
	case "redis":
		addr, dir = Redis(t), t.TempDir()
	case "postgres":
		var dsn string
		pg := StartPostgres(t)
		dsn, dir = pg.DSN(), pg.dir
		addr = strings.TrimPrefix(strings.Split(dsn, "/")[2], "postgres@")
	}
	fmt.Printf("started %s in %s\n", addr, dir)
	_, _ = io.Copy(io.Discard, os.Stdin) // until killed
}

// As root, PostgreSQL runs as the postgres user, who may not be allowed
// into TMPDIR (mode 0700, owned by root): its directory must not depend on
// TMPDIR's permissions.
func TestPostgres_StartsWithATMPDIROnlyItsOwnerCanEnter(t *testing.T) {
	tmp := t.TempDir()
	if err := os.Chmod(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	dsn := Postgres(t)
	if addr := strings.TrimPrefix(strings.Split(dsn, "/")[2], "postgres@"); !answers(addr) {
		t.Fatalf("PostgreSQL at %s does not answer", addr)
	}
}
