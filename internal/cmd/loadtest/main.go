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
//	go run ./internal/cmd/loadtest -bin /tmp/paygate-sandbox [-charges 500000] [-every 50000] [-retain N]
//
// Without -retain the sandbox runs at its default retention. It prints one
// line per sample: charges made, callbacks received, RSS, the growth of
// RSS since the first charge per charge made and per charge kept (at most
// the retention; a sandbox without retention keeps every charge, so read
// the former), and the charges per second since the last sample.
// -receiver-delay makes the receiver take that long over each callback:
// one slower than the charges shows what the sandbox keeps while callbacks
// wait.
//
// Two more measures of callback delivery. With -for, it charges from
// -clients clients for that long, the receiver taking -receiver-delay over
// each callback, then reads the whole delivery log from the control plane
// and prints what became of the callbacks (delivered, waiting, given up,
// with an attempt refused for a full queue, failed attempts), the
// transactions kept and RSS:
//
//	go run ./internal/cmd/loadtest -bin /tmp/paygate-sandbox -for 30s -clients 64 -receiver-delay 50ms
//
// With -recurring N, it loads a fixture of N users each subscribed to a
// daily payment, moves the clock a year with POST /sandbox/clock, then by
// 0s while moves make payments (each once the receiver, which answers at
// once, has taken the callbacks so far), a probe client charging every
// 10 ms meanwhile. Per move it prints how long it took, the automatic
// payments made, the transactions kept, RSS and the probe's slowest
// charge; at the end, what became of the callbacks:
//
//	go run ./internal/cmd/loadtest -bin /tmp/paygate-sandbox -recurring 499 -retain 100000
//
// With -compare, it measures throughput instead: the sandbox against
// stripe-mock (github.com/stripe/stripe-mock, the mock server of Stripe's
// SDKs), side by side. Both binaries run on loopback at once; one load
// generator charges each in turn (a signed card/process without a callback
// URL, a POST /v1/charges) from -callers concurrent callers for -duration,
// alternating which server goes first, -rounds times per number of
// callers. It prints, per round, each server's charges per second and its
// CPU time per charge (utime and stime from /proc/PID/stat), and the
// sandbox's ratios:
//
//	go install github.com/stripe/stripe-mock@v0.203.0
//	go run ./internal/cmd/loadtest -bin /tmp/paygate-sandbox -compare $(go env GOPATH)/bin/stripe-mock [-callers 1,32] [-rounds 6] [-duration 5s]
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
)

const (
	project = "loadtest-project"
	secret  = "loadtest-private-key"
)

func main() {
	bin := flag.String("bin", "", "the built cmd/paygate-sandbox binary (required)")
	charges := flag.Int("charges", 500000, "charges to make")
	every := flag.Int("every", 50000, "charges between two RSS samples")
	clients := flag.Int("clients", 2, "concurrent clients (more outrun the sandbox's 4 callback connections: callbacks then wait, within a bound)")
	retain := flag.Int("retain", 0, "the sandbox's -retain (0: its default)")
	timeout := flag.Duration("timeout", 30*time.Minute, "stop after this long whatever the count")
	compareWith := flag.String("compare", "", "a stripe-mock binary: measure throughput against it instead of memory")
	callers := flag.String("callers", "1,32", "with -compare: the numbers of concurrent callers, comma-separated")
	rounds := flag.Int("rounds", 6, "with -compare: rounds per number of callers")
	duration := flag.Duration("duration", 5*time.Second, "with -compare: how long each server is charged per round")
	delay := flag.Duration("receiver-delay", 0, "how long the callback receiver takes over each callback")
	chargeFor := flag.Duration("for", 0, "charge for this long, then report what became of the callbacks (instead of -charges)")
	recurring := flag.Int("recurring", 0, "load a fixture of this many daily subscriptions and move the clock a year (instead of -charges)")
	moves := flag.Int("moves", 100, "with -recurring: further moves by 0s at most, while they make payments")
	flag.Parse()
	if *bin == "" || *charges < 1 || *every < 1 || *clients < 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	var err error
	switch {
	case *compareWith != "":
		err = compare(ctx, *bin, *compareWith, *callers, *rounds, *duration)
	case *chargeFor > 0:
		err = slowReceiver(ctx, *bin, *clients, *chargeFor, *delay, *retain)
	case *recurring > 0:
		err = recurringYear(ctx, *bin, *recurring, *retain, *moves)
	default:
		err = run(ctx, *bin, *charges, *every, *clients, *retain, *delay)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, bin string, charges, every, clients, retain int, delay time.Duration) error {
	rcv, err := newReceiver(delay)
	if err != nil {
		return err
	}
	defer rcv.close()
	received := &rcv.received

	sb, base, err := startSandbox(bin, rcv.url, retain)
	if err != nil {
		return err
	}
	defer stopServer(sb)
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
// with its base URL.
func startSandbox(bin, callbackURL string, retain int) (*exec.Cmd, string, error) {
	args := []string{"-addr", "127.0.0.1:0", "-project", project, "-secret", secret}
	if callbackURL != "" {
		args = append(args, "-callback-url", callbackURL)
	}
	if retain > 0 {
		args = append(args, "-retain", strconv.Itoa(retain))
	}
	return startServer(bin, "listening on ", args...)
}

// startServer starts a server binary and returns it with its base URL,
// read from the first line of its standard output that starts with
// announce. Its standard error goes to ours.
func startServer(bin, announce string, args ...string) (*exec.Cmd, string, error) {
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
	lines := bufio.NewReader(out)
	for {
		line, err := lines.ReadString('\n')
		if addr, ok := strings.CutPrefix(strings.TrimSpace(line), announce); ok {
			go io.Copy(io.Discard, lines)
			if !strings.Contains(addr, "://") {
				addr = "http://" + addr
			}
			return cmd, addr, nil
		}
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, "", fmt.Errorf("%s did not announce its address (%q): %v", bin, announce, err)
		}
	}
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
	return send(ctx, hc, sandboxTarget(0, base, n))
}

// chargeValues are the unsigned values of an approved card charge of 10
// EUR with order id n.
func chargeValues(n int64) url.Values {
	return url.Values{
		"project": {project}, "user[identifier]": {"load-customer"}, "user[ip]": {"192.0.2.1"},
		"card[number]": {"4242424242424242"}, "card[expiration_month]": {"12"}, "card[expiration_year]": {"2099"},
		"card[security_code]": {"123"}, "price": {"10.00"}, "currency": {"EUR"}, "description": {"load test"},
		"order_id": {"load-" + strconv.FormatInt(n, 10)},
	}
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
