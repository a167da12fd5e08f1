package paygatetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startProbeEnv names the state file a child process of the test binary
// starts a sandbox from (or, with startProbeDecode set, decodes plainly),
// to report what it took; see TestMain and BenchmarkStateFileStart.
const (
	startProbeEnv    = "PAYGATETEST_START_PROBE"
	startProbeDecode = "PAYGATETEST_START_PROBE_DECODE"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(startProbeEnv); path != "" {
		os.Exit(startProbe(path, os.Getenv(startProbeDecode) != ""))
	}
	os.Exit(m.Run())
}

// startProbe starts a sandbox from the state file at path, or decodes the
// file into an interface value with encoding/json when plain, and prints
// how long that took, the peak RSS so far, and the RSS once the garbage
// is collected (what the state costs while running), in a line
// BenchmarkStateFileStart reads.
func startProbe(path string, plain bool) int {
	start := time.Now()
	var keep any
	if plain {
		raw, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(raw, &keep)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	} else {
		s, err := Listen("127.0.0.1:0", WithStateFile(path), WithRetention(1<<20))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer s.HoldStateWriter()
		keep = s
	}
	took := time.Since(start)
	peak := procStatusKiB("VmHWM")
	runtime.GC()
	debug.FreeOSMemory()
	steady := procStatusKiB("VmRSS")
	runtime.KeepAlive(keep)
	fmt.Printf("took_ns=%d peak_kib=%d steady_kib=%d\n", took.Nanoseconds(), peak, steady)
	return 0
}

// procStatusKiB reads a field of /proc/self/status, in KiB.
func procStatusKiB(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// probeResult is what one startProbe printed.
type probeResult struct{ took, peak, steady float64 }

func runStartProbe(b *testing.B, path string, plain bool) probeResult {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), startProbeEnv+"="+path)
	if plain {
		// A plain program: the garbage collector's default target.
		cmd.Env = append(cmd.Env, startProbeDecode+"=1", "GOGC=100")
	} else {
		// As paygate-sandbox runs (see internal/cmd/sandboxcmd's gcPercent).
		cmd.Env = append(cmd.Env, "GOGC=40")
	}
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("start probe: %v: %s", err, out)
	}
	var took, peak, steady int64
	if _, err := fmt.Sscanf(string(out), "took_ns=%d peak_kib=%d steady_kib=%d", &took, &peak, &steady); err != nil {
		b.Fatalf("start probe printed %q: %v", out, err)
	}
	return probeResult{float64(took), float64(peak) / 1024, float64(steady) / 1024}
}

// BenchmarkStateFileStart starts sandboxes, each in a process of its own,
// from the state file of 100k completed card payments with their
// callbacks, and beside each start decodes the same file into an
// interface value with encoding/json in another process. It reports the
// start's time as a ratio of the plain decode's (start/decode), and the
// start's peak RSS as a ratio of the RSS of the same state once running
// (peak/steady), with the figures in ms and MiB.
func BenchmarkStateFileStart(b *testing.B) {
	path := filepath.Join(b.TempDir(), "state.json")
	s := NewServer(WithProcessingDelay(0), WithRetention(1<<20))
	chargedPayments(s, 100000)
	deliveredAtFirstAttempt(s)
	if err := (&persister{path: path}).write(s.snapshot()); err != nil {
		b.Fatal(err)
	}
	s.Close()
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var start, plain probeResult
	for range b.N {
		st, pl := runStartProbe(b, path, false), runStartProbe(b, path, true)
		start.took, start.peak, start.steady = start.took+st.took, start.peak+st.peak, start.steady+st.steady
		plain.took += pl.took
	}
	n := float64(b.N)
	b.ReportMetric(float64(info.Size())/(1<<20), "file-MiB")
	b.ReportMetric(start.took/n/1e6, "start-ms")
	b.ReportMetric(plain.took/n/1e6, "decode-ms")
	b.ReportMetric(start.took/plain.took, "start/decode")
	b.ReportMetric(start.peak/n, "peak-MiB")
	b.ReportMetric(start.steady/n, "steady-MiB")
	b.ReportMetric(start.peak/start.steady, "peak/steady")
}
