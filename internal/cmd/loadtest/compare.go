package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/paygate/paygate-go"
)

// target is a server under comparison and the one POST that charges it.
type target struct {
	name    string
	pid     int
	url     string
	header  http.Header
	body    string
	succeed func(status int, body []byte) bool
}

// sample is what one server did in one round.
type sample struct {
	rate       float64       // charges per second
	cpuPerCall time.Duration // the server's CPU time per charge
}

// compare charges the sandbox and stripe-mock in alternating rounds; see
// the package doc.
func compare(ctx context.Context, bin, stripeMock, callerList string, rounds int, d time.Duration) error {
	var callers []int
	for _, f := range strings.Split(callerList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-callers: %q is not a positive number", f)
		}
		callers = append(callers, n)
	}
	sb, base, err := startSandbox(bin, "", 0)
	if err != nil {
		return err
	}
	defer stopServer(sb)
	sm, smBase, err := startServer(stripeMock, "Listening for HTTP at address: ",
		"-http-addr", "127.0.0.1:0", "-https-addr", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer stopServer(sm)

	targets := []target{sandboxTarget(sb.Process.Pid, base, 0), stripeMockTarget(sm.Process.Pid, smBase)}
	fmt.Printf("sandbox pid %d, stripe-mock pid %d, %d rounds of %s per server and number of callers\n",
		sb.Process.Pid, sm.Process.Pid, rounds, d)
	fmt.Println("| callers | round | sandbox charges/s | stripe-mock charges/s | ratio | sandbox CPU/charge | stripe-mock CPU/charge | CPU ratio |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, n := range callers {
		hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}, Timeout: 30 * time.Second}
		for _, t := range targets { // warm up: connections, caches, the sandbox's user
			if _, err := drive(ctx, hc, t, n, d/5); err != nil {
				return err
			}
		}
		var rates, cpus []float64
		for r := range rounds {
			got := make([]sample, len(targets))
			for i := range targets {
				if r%2 == 1 { // either order, so that neither always runs second
					i = len(targets) - 1 - i
				}
				if got[i], err = drive(ctx, hc, targets[i], n, d); err != nil {
					return err
				}
			}
			rate := got[0].rate / got[1].rate
			cpu := float64(got[0].cpuPerCall) / float64(got[1].cpuPerCall)
			rates, cpus = append(rates, rate), append(cpus, cpu)
			fmt.Printf("| %d | %d | %.0f | %.0f | %.2fx | %.1f µs | %.1f µs | %.2fx |\n", n, r+1,
				got[0].rate, got[1].rate, rate, micros(got[0].cpuPerCall), micros(got[1].cpuPerCall), cpu)
		}
		fmt.Printf("| %d | median | | | **%.2fx** (%.2f–%.2f) | | | **%.2fx** (%.2f–%.2f) |\n", n,
			median(rates), slices.Min(rates), slices.Max(rates), median(cpus), slices.Min(cpus), slices.Max(cpus))
	}
	return nil
}

// sandboxTarget charges an approved card on the sandbox with order id n
// (pid is the sandbox's process, if known).
func sandboxTarget(pid int, base string, n int64) target {
	v := chargeValues(n)
	v.Set(paygate.SignatureParam, paygate.Sign(v, secret))
	return target{
		name: "sandbox", pid: pid, url: base + "/v1/card/process",
		header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
		body:   v.Encode(),
		succeed: func(status int, body []byte) bool {
			return status == http.StatusOK && strings.Contains(string(body), `"status":"completed"`)
		},
	}
}

// stripeMockTarget creates a charge on stripe-mock with its test key.
func stripeMockTarget(pid int, base string) target {
	v := url.Values{"amount": {"1000"}, "currency": {"eur"}, "source": {"tok_visa"}, "description": {"load test"}}
	return target{
		name: "stripe-mock", pid: pid, url: base + "/v1/charges",
		header: http.Header{
			"Content-Type":  {"application/x-www-form-urlencoded"},
			"Authorization": {"Bearer sk_test_123"},
		},
		body: v.Encode(),
		succeed: func(status int, body []byte) bool {
			return status == http.StatusOK && strings.Contains(string(body), `"object":"charge"`)
		},
	}
}

// drive charges t from callers goroutines for d and returns the rate and
// the server's CPU time per charge.
func drive(ctx context.Context, hc *http.Client, t target, callers int, d time.Duration) (sample, error) {
	cpu0, err := cpuTime(t.pid)
	if err != nil {
		return sample{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var done atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	start := time.Now()
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := send(ctx, hc, t); err != nil {
					if ctx.Err() == nil {
						errs <- err
					}
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := errors.Join(<-errs); err != nil {
		return sample{}, err
	}
	cpu1, err := cpuTime(t.pid)
	if err != nil {
		return sample{}, err
	}
	n := done.Load()
	if n == 0 {
		return sample{}, fmt.Errorf("%s: no charge completed in %s", t.name, d)
	}
	return sample{rate: float64(n) / elapsed.Seconds(), cpuPerCall: (cpu1 - cpu0) / time.Duration(n)}, nil
}

// send makes one charge and checks that it succeeded.
func send(ctx context.Context, hc *http.Client, t target) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, strings.NewReader(t.body))
	if err != nil {
		return err
	}
	req.Header = t.header.Clone()
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return err
	}
	if !t.succeed(resp.StatusCode, body) {
		return fmt.Errorf("%s: HTTP %d: %.200s", t.name, resp.StatusCode, body)
	}
	return nil
}

// cpuTime reads the user and system CPU time of process pid from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 10 ms on Linux).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	var ticks int64
	for _, f := range fields[11:13] { // utime, stime: fields 14 and 15 of the whole line
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}

// stopServer stops a started server and waits for it.
func stopServer(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// median returns the middle of xs (the upper one of an even count).
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}
