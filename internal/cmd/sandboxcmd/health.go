package sandboxcmd

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/paygate/paygate-go/paygatetest"
)

// healthTimeout bounds a health check: a container runtime kills a check
// that takes longer than its own timeout (30 seconds by default), and a
// sandbox that takes seconds to answer is not healthy anyway.
const healthTimeout = 5 * time.Second

// checkHealth asks the sandbox listening on addr (the -addr it was started
// with) for its health path, and prints "ok URL" to out when it answers
// 200. A sandbox listening on every interface (0.0.0.0, [::] or no host)
// is asked on loopback.
func checkHealth(ctx context.Context, addr string, out io.Writer) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %w", addr, err)
	}
	switch ip := net.ParseIP(host); {
	case host == "" || ip != nil && ip.To4() != nil && ip.IsUnspecified():
		host = "127.0.0.1"
	case ip != nil && ip.IsUnspecified():
		host = "::1"
	}
	u := "http://" + net.JoinHostPort(host, port) + paygatetest.HealthPath
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	// No proxy from the environment and no redirect: the answer must be
	// the sandbox's own.
	client := &http.Client{
		Transport:     &http.Transport{Proxy: nil},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("health check: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health check: GET %s answered %s", u, resp.Status)
	}
	_, err = fmt.Fprintln(out, "ok", u)
	return err
}
