// Command loadtest measures the memory of the standalone sandbox
// (cmd/paygate-sandbox) under a long run of charges, each calling back a
// receiver that answers 200 at once. It starts the built binary on a
// loopback port, charges it from a few concurrent clients, and samples the
// sandbox process's resident memory (VmRSS in /proc/PID/status) every
// -every charges. It stops by itself after -charges charges or -timeout,
// whichever comes first, and stops the sandbox. It is not part of the test
// run: it takes minutes and reads /proc, so Linux only.
//
// Usage, from the module root:
//
//	go build -o /tmp/paygate-sandbox ./cmd/paygate-sandbox
//	go run ./internal/tools/loadtest -bin /tmp/paygate-sandbox [-charges 500000] [-every 50000] [-retain N]
//
// Without -retain the sandbox runs at its default retention. It prints one
// line per sample: charges made, callbacks received, RSS, the growth of
// RSS since the first charge per charge made and per charge kept (at most
// the retention; a sandbox without retention keeps every charge, so read
// the former), and the charges per second since the last sample.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/paygate/paygate-go"
)

const (
	project = "loadtest-project"
	secret  = "loadtest-private-key"
)

func main() {
	bin := flag.String("bin", "", "the built cmd/paygate-sandbox binary (required)")
	charges := flag.Int("charges", 500000, "charges to make")
	every := flag.Int("every", 50000, "charges between two RSS samples")
	clients := flag.Int("clients", 2, "concurrent clients (more outrun the sandbox's 4 callback connections, whose queue then fills)")
	retain := flag.Int("retain", 0, "the sandbox's -retain (0: its default)")
	timeout := flag.Duration("timeout", 30*time.Minute, "stop after this long whatever the count")
	flag.Parse()
	if *bin == "" || *charges < 1 || *every < 1 || *clients < 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := run(ctx, *bin, *charges, *every, *clients, *retain); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, bin string, charges, every, clients, retain int) error {
	var received atomic.Int64
	rcv, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(rcv, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		received.Add(1)
	}))
	defer rcv.Close()

	sb, base, err := startSandbox(bin, "http://"+rcv.Addr().String()+"/callback", retain)
	if err != nil {
		return err
	}
	defer func() {
		sb.Process.Signal(syscall.SIGTERM)
		sb.Wait()
	}()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 30 * time.Second}
	if err := charge(ctx, hc, base, 0); err != nil { // the user exists from here on
		return err
	}
	kept := retain
	if kept == 0 {
		kept = 100000 // paygatetest.DefaultRetention, without importing the sandbox into this process
	}
	first, err := rss(sb.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("sandbox pid %d, %d clients, retention %d, RSS %.1f MiB after one charge\n", sb.Process.Pid, clients, kept, mib(first))
	fmt.Println("| charges | callbacks received | RSS (MiB) | RSS growth per charge made | per charge kept | charges/s |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|")
	var next atomic.Int64
	last, lastAt := 0, time.Now()
	for done := every; done <= charges; done += every {
		if err := chargeUpTo(ctx, hc, base, &next, int64(done), clients); err != nil {
			return err
		}
		n, err := rss(sb.Process.Pid)
		if err != nil {
			return err
		}
		grown := float64(n - first)
		rate := float64(done-last) / time.Since(lastAt).Seconds()
		fmt.Printf("| %d | %d | %.1f | %.0f B | %.0f B | %.0f |\n",
			done, received.Load(), mib(n), grown/float64(done), grown/float64(min(done, kept)), rate)
		last, lastAt = done, time.Now()
	}
	return nil
}

// startSandbox starts the binary on a free loopback port and returns it
// with its base URL, read from its "listening on" line.
func startSandbox(bin, callbackURL string, retain int) (*exec.Cmd, string, error) {
	args := []string{"-addr", "127.0.0.1:0", "-project", project, "-secret", secret, "-callback-url", callbackURL}
	if retain > 0 {
		args = append(args, "-retain", strconv.Itoa(retain))
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // never outlives this program
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, "", fmt.Errorf("the sandbox did not announce its address: %q %v", line, err)
	}
	go io.Copy(io.Discard, out)
	return cmd, base, nil
}

// chargeUpTo makes charges from clients goroutines until next reaches
// upTo.
func chargeUpTo(ctx context.Context, hc *http.Client, base string, next *atomic.Int64, upTo int64, clients int) error {
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := next.Add(1); n <= upTo; n = next.Add(1) {
				if err := charge(ctx, hc, base, n); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	next.Store(upTo)
	return errors.Join(<-errs)
}

// charge makes one approved card charge of 10 EUR with order id n.
func charge(ctx context.Context, hc *http.Client, base string, n int64) error {
	v := url.Values{
		"project": {project}, "user[identifier]": {"load-customer"}, "user[ip]": {"192.0.2.1"},
		"card[number]": {"4242424242424242"}, "card[expiration_month]": {"12"}, "card[expiration_year]": {"2099"},
		"card[security_code]": {"123"}, "price": {"10.00"}, "currency": {"EUR"}, "description": {"load test"},
		"order_id": {"load-" + strconv.FormatInt(n, 10)},
	}
	v.Set(paygate.SignatureParam, paygate.Sign(v, secret))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/card/process", strings.NewReader(v.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"status":"completed"`) {
		return fmt.Errorf("charge %d: HTTP %d: %.200s", n, resp.StatusCode, body)
	}
	return nil
}

// rss reads the resident set of process pid from /proc, in bytes.
func rss(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS in /proc/" + strconv.Itoa(pid) + "/status")
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
