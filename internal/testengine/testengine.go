// Package testengine starts real database servers for integration tests:
// redis-server and PostgreSQL from the operating system's packages, each
// on a free loopback port in a temporary directory, stopped when the test
// ends. A missing engine fails the test with the command that installs it;
// it never skips, so that a test run without the engines cannot pass.
package testengine

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// installHint says how to get the engines; .ci/install-engines runs it.
const installHint = "install it with: apt-get install -y redis-server postgresql (bash .ci/install-engines does)"

// Redis starts redis-server without persistence and returns its address
// (host:port).
func Redis(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server is not on PATH; %s", installHint)
	}
	dir := t.TempDir()
	port := freePort(t)
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--logfile", filepath.Join(dir, "redis.log"))
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	waitFor(t, "redis-server", filepath.Join(dir, "redis.log"), func() bool { return redisPing(addr) })
	return addr
}

// Postgres initialises a PostgreSQL cluster in a temporary directory,
// starts it and returns a connection string for its "postgres" database.
// PostgreSQL refuses to run as root, so as root the server runs as the
// "postgres" user that Debian's package creates.
func Postgres(t testing.TB) string {
	t.Helper()
	initdb, pgctl := pgBinary(t, "initdb"), pgBinary(t, "pg_ctl")
	run := func(args ...string) *exec.Cmd { return exec.Command(args[0], args[1:]...) }
	dir, err := os.MkdirTemp("", "paygate-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL needs the unprivileged user postgres (Debian's postgresql package creates it): %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		runuser, err := exec.LookPath("runuser")
		if err != nil {
			t.Fatalf("running as root, runuser is needed to start PostgreSQL as postgres: %v", err)
		}
		run = func(args ...string) *exec.Cmd {
			return exec.Command(runuser, append([]string{"-u", "postgres", "--"}, args...)...)
		}
	}
	data, logfile := filepath.Join(dir, "data"), filepath.Join(dir, "postgres.log")
	if out, err := run(initdb, "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := freePort(t)
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off", port, dir)
	if out, err := run(pgctl, "-D", data, "-o", opts, "-l", logfile, "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, tail(logfile))
	}
	t.Cleanup(func() { _ = run(pgctl, "-D", data, "-m", "immediate", "-w", "stop").Run() })
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
}

// pgBinary finds a PostgreSQL program on PATH, else in the newest
// /usr/lib/postgresql/<version>/bin (where Debian puts them).
func pgBinary(t testing.TB, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("PostgreSQL's %s is neither on PATH nor in /usr/lib/postgresql/*/bin; %s", name, installHint)
	return ""
}

// version reads the major version out of /usr/lib/postgresql/<v>/bin.
func version(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

// freePort asks the kernel for a loopback port that is free now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitFor polls ready for up to 30 s, failing with the end of logfile.
func waitFor(t testing.TB, what, logfile string, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ready() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not start within 30 s:\n%s", what, tail(logfile))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// redisPing reports whether a Redis server answers PING at addr.
func redisPing(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// tail returns the last lines of a log file, for a failure message.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}
