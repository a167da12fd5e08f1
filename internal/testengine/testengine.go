// Package testengine starts real database servers for integration tests:
// redis-server and PostgreSQL from the operating system's packages, each
// on a free loopback port in a temporary directory, stopped when the test
// ends. A missing engine fails the test with the command that installs it;
// it never skips, so that a test run without the engines cannot pass.
package testengine

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// installHint says how to get the engines; .ci/install-engines runs it.
const installHint = "install it with: apt-get install -y redis-server postgresql (bash .ci/install-engines does)"

// Redis starts redis-server without persistence and returns its address
// (host:port).
func Redis(t testing.TB) string {
	t.Helper()
	return startRedis(t)
}

// RedisCluster starts a Redis Cluster of three masters without replicas,
// the slots split evenly between them, and returns their addresses once
// every node sees the cluster as ok.
func RedisCluster(t testing.TB) []string {
	t.Helper()
	addrs := make([]string, 3)
	for i := range addrs {
		addrs[i] = startRedis(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
	}
	const slots = 16384
	for i, addr := range addrs {
		from, to := i*slots/len(addrs), (i+1)*slots/len(addrs)-1
		mustRedis(t, addr, fmt.Sprintf("CLUSTER ADDSLOTSRANGE %d %d", from, to))
		if i > 0 {
			host, port, _ := net.SplitHostPort(addrs[0])
			mustRedis(t, addr, "CLUSTER MEET "+host+" "+port)
		}
	}
	for _, addr := range addrs {
		waitFor(t, "Redis Cluster", "", func() bool {
			info, err := redisCommand(addr, "CLUSTER INFO")
			return err == nil && strings.Contains(info, "cluster_state:ok") &&
				strings.Contains(info, "cluster_known_nodes:3") && strings.Contains(info, "cluster_slots_ok:16384")
		})
	}
	return addrs
}

func startRedis(t testing.TB, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server is not on PATH; %s", installHint)
	}
	var logfile string
	for range startAttempts {
		dir := t.TempDir()
		port := pickPort(t)
		logfile = filepath.Join(dir, "redis.log")
		cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--dir", dir, "--logfile", logfile}, args...)...)
		if err := start(cmd); err != nil {
			t.Fatalf("start redis-server: %v", err)
		}
		exited := watch(cmd)
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			<-exited
		})
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		// Ours is the server that names our process; one that exits could
		// not bind the port, taken meanwhile by another process.
		pid := "process_id:" + strconv.Itoa(cmd.Process.Pid) + "\r\n"
		if waitStarted(t, "redis-server", logfile, exited, func() bool {
			info, err := redisCommand(addr, "INFO server")
			return err == nil && strings.Contains(info, pid)
		}) {
			return addr
		}
	}
	t.Fatalf("redis-server found no free port in %d attempts:\n%s", startAttempts, tail(logfile))
	return ""
}

// Postgres initialises a PostgreSQL cluster in a temporary directory,
// starts it and returns a connection string for its "postgres" database.
// PostgreSQL refuses to run as root, so as root the server runs as the
// "postgres" user that Debian's package creates, in a directory made in
// that user's home: TMPDIR may be one the postgres user cannot enter.
func Postgres(t testing.TB) string {
	t.Helper()
	dsn, _ := startPostgres(t)
	return dsn
}

// startPostgres is Postgres, also returning the server's directory.
func startPostgres(t testing.TB) (dsn, dir string) {
	t.Helper()
	initdb, postgres := pgBinary(t, "initdb"), pgBinary(t, "postgres")
	asOwner := func(*exec.Cmd) {}
	parent := "" // the default, os.TempDir()
	var uid, gid int
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL needs the unprivileged user postgres (Debian's postgresql package creates it): %v", err)
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		asOwner = func(cmd *exec.Cmd) {
			if err := runAs(cmd, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
		parent = u.HomeDir
	}
	dir, err := os.MkdirTemp(parent, "paygate-pg-")
	if err != nil {
		t.Fatalf("directory for PostgreSQL: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	data, logfile := filepath.Join(dir, "data"), filepath.Join(dir, "postgres.log")
	cmd := exec.Command(initdb, "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync")
	asOwner(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	for range startAttempts {
		port := pickPort(t)
		// postgres itself, not pg_ctl, whose server would be no child of
		// ours and so outlive a killed test binary.
		cmd := exec.Command(postgres, "-D", data, "-p", strconv.Itoa(port), "-k", dir,
			"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
		asOwner(cmd)
		log, err := os.OpenFile(logfile, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = log, log
		err = start(cmd)
		log.Close()
		if err != nil {
			t.Fatalf("start postgres: %v", err)
		}
		exited := watch(cmd)
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGQUIT) // immediate shutdown
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
			}
		})
		if waitStarted(t, "PostgreSQL", logfile, exited, func() bool {
			return postmasterReady(filepath.Join(data, "postmaster.pid"), cmd.Process.Pid)
		}) {
			return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), dir
		}
		if !strings.Contains(tail(logfile), "already in use") {
			t.Fatalf("postgres exited:\n%s", tail(logfile))
		}
		// Another process took the port after pickPort: try another.
	}
	t.Fatalf("PostgreSQL found no free port in %d attempts:\n%s", startAttempts, tail(logfile))
	return "", ""
}

// postmasterReady reports whether the postmaster pid wrote in its lock
// file that it accepts connections, as pg_ctl -w waits for.
func postmasterReady(lockfile string, pid int) bool {
	b, err := os.ReadFile(lockfile)
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	// Line 1 is the pid, line 8 the status (PostgreSQL 10 and later).
	return len(lines) > 7 && lines[0] == strconv.Itoa(pid) && strings.TrimSpace(lines[7]) == "ready"
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

// pickPort is freePort; a test replaces it to hand out a taken port.
var pickPort = freePort

// startAttempts bounds the retries on a port another process took between
// pickPort and the server's start.
const startAttempts = 5

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

// waitFor polls ready for up to 30 s, failing with the end of logfile
// (if any).
func waitFor(t testing.TB, what, logfile string, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ready() {
		if time.Now().After(deadline) {
			if logfile == "" {
				t.Fatalf("%s did not start within 30 s", what)
			}
			t.Fatalf("%s did not start within 30 s:\n%s", what, tail(logfile))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// watch returns a channel closed once the started cmd has exited.
func watch(cmd *exec.Cmd) <-chan struct{} {
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	return exited
}

// waitStarted waits, as waitFor does, until the server reports ready or
// has exited, and reports whether it is ready: a server that exits at
// start could not bind its port, which another process may have taken.
func waitStarted(t testing.TB, what, logfile string, exited <-chan struct{}, ready func() bool) bool {
	t.Helper()
	ok := false
	waitFor(t, what, logfile, func() bool {
		select {
		case <-exited:
			return true
		default:
		}
		ok = ready()
		return ok
	})
	return ok
}

// mustRedis sends an inline command that must answer +OK.
func mustRedis(t testing.TB, addr, cmd string) {
	t.Helper()
	if got, err := redisCommand(addr, cmd); err != nil || got != "OK" {
		t.Fatalf("redis %s: %q, %v", cmd, got, err)
	}
}

// redisCommand sends one inline command and returns a simple-string or
// bulk-string answer; an error answer is an error.
func redisCommand(addr, cmd string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(cmd + "\r\n")); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	switch {
	case strings.HasPrefix(line, "+"):
		return line[1:], nil
	case strings.HasPrefix(line, "$"):
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "", fmt.Errorf("unexpected answer %q", line)
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return "", err
		}
		return string(b[:n]), nil
	}
	return "", fmt.Errorf("answer %q", line)
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
