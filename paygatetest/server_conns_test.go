//go:build unix

package paygatetest_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate-go/paygatetest"
)

// descriptorLimitEnv makes TestServer_IdleConnectionsDoNotBlockANewRequest
// the standalone sandbox in a process of its own, whose descriptors are
// limited as a CI machine's often are.
const descriptorLimitEnv = "PAYGATETEST_SERVE_UNDER_DESCRIPTOR_LIMIT"

// Two thousand idle connections, half of them after a request and half
// without one, do not keep a new request from being answered by a sandbox
// that may open only 1,024 descriptors, and the sandbox holds fewer of
// them than it could open.
func TestServer_IdleConnectionsDoNotBlockANewRequest(t *testing.T) {
	if os.Getenv(descriptorLimitEnv) != "" {
		serveUnderDescriptorLimit(t, 1024)
		return
	}
	base := startLimitedSandbox(t)
	addr := strings.TrimPrefix(base, "http://")
	const idle = 2000
	conns := make([]net.Conn, idle)
	t.Cleanup(func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	})
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < idle; i = int(next.Add(1) - 1) {
				conns[i] = openIdle(t, addr, i%2 == 0)
			}
		}()
	}
	wg.Wait()

	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Get(base + "/v1/payout-types?project=" + paygatetest.DefaultProjectKey)
	require.NoError(t, err, "a new request after %d idle connections", idle)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	assert.Greater(t, closedByServer(conns), idle-1000, "connections the sandbox closed to stay within its descriptors")
}

// openIdle opens a connection to addr and, if request, has one request
// answered on it first (the server may be too busy to: the connection
// stays open all the same).
func openIdle(t *testing.T, addr string, request bool) net.Conn {
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	if !request {
		return conn
	}
	_, err = io.WriteString(conn, "GET /v1/payout-types?project="+paygatetest.DefaultProjectKey+" HTTP/1.1\r\nHost: sandbox\r\n\r\n")
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(3*time.Second)))
	if resp, err := http.ReadResponse(bufio.NewReader(conn), nil); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return conn
}

// closedByServer counts the connections the server has closed.
func closedByServer(conns []net.Conn) int {
	var closed atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(2 * time.Second)
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetReadDeadline(deadline)
			_, err := c.Read(make([]byte, 1))
			var ne net.Error
			if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
				closed.Add(1)
			}
		}()
	}
	wg.Wait()
	return int(closed.Load())
}

// startLimitedSandbox runs this test binary as a standalone sandbox under a
// descriptor limit and returns its URL.
func startLimitedSandbox(t *testing.T) string {
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
	cmd.Env = append(os.Environ(), descriptorLimitEnv+"=1")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = io.Discard // "too many open files" from the accept loop of a sandbox without a cap
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close() // the sandbox ends when its input does
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if url, ok := strings.CutPrefix(lines.Text(), "listening on "); ok {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return url
		}
	}
	t.Fatalf("the sandbox did not start: %v", lines.Err())
	return ""
}

// serveUnderDescriptorLimit serves a standalone sandbox with at most limit
// descriptors until its standard input ends.
func serveUnderDescriptorLimit(t *testing.T, limit uint64) {
	var rl syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl))
	rl.Cur = limit
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl))
	srv, err := paygatetest.Listen("127.0.0.1:0")
	require.NoError(t, err)
	defer srv.Close()
	fmt.Println("listening on " + srv.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// At the cap, a new connection waits while every connection is serving a
// request, and takes the place of the first to become idle: no request in
// progress is ever cut.
func TestServer_AtTheConnectionCapRequestsInProgressAreNeverCut(t *testing.T) {
	s := newSandbox(t, paygatetest.WithConnectionLimit(2))
	addr := strings.TrimPrefix(s.srv.URL, "http://")
	first, second := startRequest(t, addr), startRequest(t, addr)

	answered := make(chan int, 1)
	go func() {
		resp, err := http.Get(s.srv.URL + "/v1/payout-types?project=" + s.srv.ProjectKey)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	select {
	case status := <-answered:
		t.Fatalf("a third connection was served (%d) while two requests were in progress", status)
	case <-time.After(100 * time.Millisecond):
	}

	first.finish(t)
	assert.Equal(t, http.StatusOK, <-answered, "the third connection, once the first request was done")
	second.finish(t)
}

// inProgressBody is the body of a requestInProgress.
const inProgressBody = "project=" + paygatetest.DefaultProjectKey

// requestInProgress is a request whose headers the server has read and
// whose body it waits for.
type requestInProgress struct {
	conn net.Conn
	r    *bufio.Reader
}

// startRequest sends the headers of a request and waits until the server
// reads them: it asks for the body with 100 Continue.
func startRequest(t *testing.T, addr string) requestInProgress {
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	_, err = fmt.Fprintf(conn, "POST /v1/payout-types HTTP/1.1\r\nHost: sandbox\r\n"+
		"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", len(inProgressBody))
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "HTTP/1.1 100 Continue\r\n", line)
	_, err = r.ReadString('\n')
	require.NoError(t, err)
	return requestInProgress{conn: conn, r: r}
}

// finish sends the body and requires the whole answer.
func (p requestInProgress) finish(t *testing.T) {
	_, err := io.WriteString(p.conn, inProgressBody)
	require.NoError(t, err)
	resp, err := http.ReadResponse(p.r, nil)
	require.NoError(t, err, "the request in progress was answered")
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}
