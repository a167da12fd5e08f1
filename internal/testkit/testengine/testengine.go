// Package testengine starts real database servers for integration tests:
// redis-server and PostgreSQL from the operating system's packages, each
// on a free loopback port in a temporary directory, stopped when the test
// ends. A missing engine fails the test with the command that installs it;
// it never skips, so that a test run without the engines cannot pass. For
// fault tests, a server can be killed and restarted on the same port and
// data (StartRedis, StartPostgres), and a Proxy stalls the connections to
// one.
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
	return StartRedis(t).Addr()
}

// RedisServer is a redis-server that a test can kill and start again, on
// the same port and in the same directory, so that what it persisted (an
// append-only file) is read back.
type RedisServer struct {
	t      testing.TB
	addr   string
	dir    string
	args   []string
	cmd    *exec.Cmd
	exited <-chan struct{}
}

// StartRedis starts redis-server without persistence (--save ” and
// --appendonly no) unless args, passed after those, turn it on
// ("--appendonly", "yes", "--appendfsync", "always").
func StartRedis(t testing.TB, args ...string) *RedisServer {
	t.Helper()
	return startRedis(t, args...)
}

// Addr returns the server's address, host:port, the same across restarts.
func (s *RedisServer) Addr() string { return s.addr }

// Kill kills the server with SIGKILL, as a crash does: nothing is saved
// on the way out, and what was not written to disk is lost.
func (s *RedisServer) Kill() {
	s.t.Helper()
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// Restart kills the server if it runs and starts it again on the same
// port and directory, returning once it answers.
func (s *RedisServer) Restart() {
	s.t.Helper()
	s.Kill()
	_, port, _ := net.SplitHostPort(s.addr)
	p, _ := strconv.Atoi(port)
	if !s.run(p) {
		s.t.Fatalf("redis-server did not start again on %s:\n%s", s.addr, tail(s.logfile()))
	}
}

func (s *RedisServer) logfile() string { return filepath.Join(s.dir, "redis.log") }

// run starts the server on port and reports whether it is ready: false
// when it exited, having found the port taken.
func (s *RedisServer) run(port int) bool {
	s.t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		s.t.Fatalf("redis-server is not on PATH; %s", installHint)
	}
	s.cmd = exec.Command(bin, append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir, "--logfile", s.logfile()}, s.args...)...)
	if err := start(s.cmd); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	cmd, exited := s.cmd, watch(s.cmd)
	s.exited = exited
	s.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	// Ours is the server that names our process; one that exits could
	// not bind the port, taken meanwhile by another process.
	pid := strconv.Itoa(cmd.Process.Pid)
	return waitStarted(s.t, "redis-server", s.logfile(), exited, func() bool {
		// INFO's "loading:0" is not enough: between the files of a
		// multi-part append-only file it reads 0 while the next file is
		// still to load, and commands then answer LOADING. The server
		// logs that it accepts connections once everything is loaded.
		info, err := redisCommand(s.addr, "INFO server")
		return err == nil && strings.Contains(info, "process_id:"+pid+"\r\n") &&
			acceptsConnections(s.logfile(), pid)
	})
}

// acceptsConnections reports whether the redis-server of process pid has
// logged, in logfile, that it is ready to accept connections: the log is
// kept across restarts, and each line starts with its writer's pid.
func acceptsConnections(logfile, pid string) bool {
	b, err := os.ReadFile(logfile)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, pid+":") && strings.Contains(strings.ToLower(line), "ready to accept connections") {
			return true
		}
	}
	return false
}

// RedisCluster starts a Redis Cluster of three masters without replicas,
// the slots split evenly between them, and returns their addresses once
// every node sees the cluster as ok.
func RedisCluster(t testing.TB) []string {
	t.Helper()
	addrs := make([]string, 3)
	for i := range addrs {
		addrs[i] = startRedis(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf").Addr()
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

func startRedis(t testing.TB, args ...string) *RedisServer {
	t.Helper()
	for range startAttempts {
		s := &RedisServer{t: t, dir: t.TempDir(), args: args}
		if s.run(pickPort(t)) {
			return s
		}
	}
	t.Fatalf("redis-server found no free port in %d attempts", startAttempts)
	return nil
}

// Postgres initialises a PostgreSQL cluster in a temporary directory,
// starts it and returns a connection string for its "postgres" database.
// PostgreSQL refuses to run as root, so as root the server runs as the
// "postgres" user that Debian's package creates, in a directory made in
// that user's home: TMPDIR may be one the postgres user cannot enter.
func Postgres(t testing.TB) string {
	t.Helper()
	return StartPostgres(t).DSN()
}

// PostgresServer is a PostgreSQL server that a test can kill and start
// again, on the same port and data directory.
type PostgresServer struct {
	t        testing.TB
	dsn      string
	dir      string // holds data/, the log and the socket
	port     int
	settings []string
	asOwner  func(*exec.Cmd)
	cmd      *exec.Cmd
	exited   <-chan struct{}
}

// StartPostgres is Postgres, returning the server. settings are
// name=value pairs for postgres -c, applied after the tests' defaults
// (fsync, synchronous_commit and full_page_writes off: fast, and safe
// while the machine does not crash); "synchronous_commit=on" makes a
// commit survive Kill.
func StartPostgres(t testing.TB, settings ...string) *PostgresServer {
	t.Helper()
	s := &PostgresServer{t: t, settings: settings}
	s.initdb()
	for range startAttempts {
		if s.run(pickPort(t)) {
			return s
		}
		if !strings.Contains(tail(s.logfile()), "already in use") {
			t.Fatalf("postgres exited:\n%s", tail(s.logfile()))
		}
		// Another process took the port after pickPort: try another.
	}
	t.Fatalf("PostgreSQL found no free port in %d attempts:\n%s", startAttempts, tail(s.logfile()))
	return nil
}

// DSN returns the connection string of the "postgres" database, the same
// across restarts.
func (s *PostgresServer) DSN() string { return s.dsn }

// Kill stops the server in PostgreSQL's immediate mode (SIGQUIT to the
// postmaster, which ends every backend at once and writes nothing more),
// as a crash does: the next start recovers from the write-ahead log.
func (s *PostgresServer) Kill() {
	s.t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// Restart kills the server if it runs and starts it again on the same
// port and data, returning once it accepts connections.
func (s *PostgresServer) Restart() {
	s.t.Helper()
	s.Kill()
	if !s.run(s.port) {
		s.t.Fatalf("postgres did not start again on port %d:\n%s", s.port, tail(s.logfile()))
	}
}

func (s *PostgresServer) logfile() string { return filepath.Join(s.dir, "postgres.log") }

// initdb makes the server's directory and data.
func (s *PostgresServer) initdb() {
	t := s.t
	t.Helper()
	initdb := pgBinary(t, "initdb")
	s.asOwner = func(*exec.Cmd) {}
	parent := "" // the default, os.TempDir()
	var uid, gid int
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL needs the unprivileged user postgres (Debian's postgresql package creates it): %v", err)
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		s.asOwner = func(cmd *exec.Cmd) {
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
	s.dir = dir
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(initdb, "-D", filepath.Join(dir, "data"), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync")
	s.asOwner(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
}

// run starts postgres on port and reports whether it accepts
// connections: false when it exited.
func (s *PostgresServer) run(port int) bool {
	t := s.t
	t.Helper()
	data := filepath.Join(s.dir, "data")
	args := []string{"-D", data, "-p", strconv.Itoa(port), "-k", s.dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"}
	for _, kv := range s.settings {
		args = append(args, "-c", kv)
	}
	// postgres itself, not pg_ctl, whose server would be no child of
	// ours and so outlive a killed test binary.
	cmd := exec.Command(pgBinary(t, "postgres"), args...)
	s.asOwner(cmd)
	log, err := os.OpenFile(s.logfile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
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
	s.cmd, s.exited, s.port = cmd, exited, port
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGQUIT) // immediate shutdown
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	s.dsn = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return waitStarted(t, "PostgreSQL", s.logfile(), exited, func() bool {
		return postmasterReady(filepath.Join(data, "postmaster.pid"), cmd.Process.Pid)
	})
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
