package wrk

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParse reads reports recorded from wrk 4.1.0 (Debian's package):
// keep-alive, pipelined 16 deep, timeouts, non-2xx answers.
func TestParse(t *testing.T) {
	us := time.Microsecond
	ms := time.Millisecond
	for _, c := range []struct {
		file string
		want Result
	}{
		{"keepalive.txt", Result{Requests: 107998, ReqPerSec: 98166.88,
			P50: 831 * us, P75: 2070 * us, P90: 3740 * us, P99: 7890 * us, Mean: 1400 * us, Max: 12730 * us}},
		{"pipelined.txt", Result{Requests: 149664, ReqPerSec: 135828.88,
			P50: 6200 * us, P75: 11240 * us, P90: 17440 * us, P99: 33190 * us, Mean: 8090 * us, Max: 63540 * us}},
		{"timeouts.txt", Result{Requests: 8, ReqPerSec: 3.96, Timeouts: 8}},
		{"non2xx.txt", Result{Requests: 1373, ReqPerSec: 1339.73, Non2xx: 1373}},
	} {
		got, err := Parse(readFile(t, c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		// Elapsed is derived: compare it apart, to the microsecond.
		wantElapsed := time.Duration(float64(c.want.Requests) / c.want.ReqPerSec * float64(time.Second))
		if d := got.Elapsed - wantElapsed; d < -us || d > us {
			t.Errorf("%s: elapsed %v, want %v", c.file, got.Elapsed, wantElapsed)
		}
		got.Elapsed = 0
		// Float parsing leaves sub-microsecond errors: round to 1 µs.
		for _, d := range []*time.Duration{&got.P50, &got.P75, &got.P90, &got.P99, &got.Mean, &got.Max} {
			*d = d.Round(us)
		}
		if got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.file, got, c.want)
		}
	}
	if r, _ := Parse(readFile(t, "keepalive.txt")); r.Elapsed.Round(10*ms) != 1100*ms {
		t.Errorf("keepalive.txt: elapsed %v, want the 1.10 s wrk prints", r.Elapsed)
	}
}

// TestParseErrors: what is not a complete report is an error, not zeros.
func TestParseErrors(t *testing.T) {
	full := readFile(t, "keepalive.txt")
	for name, out := range map[string]string{
		"refused":         readFile(t, "refused.txt"),
		"empty":           "",
		"no rate":         strings.Replace(full, "Requests/sec:", "Requests/s:", 1),
		"no percentiles":  strings.Replace(full, "     99%    7.89ms\n", "", 1),
		"no latency line": strings.Replace(full, "    Latency     1.40ms", "    Lat     1.40ms", 1),
	} {
		if r, err := Parse(out); err == nil {
			t.Errorf("%s: no error, %+v", name, r)
		}
	}
}

// TestArgs: durations round to wrk's whole seconds, threads are at most
// the connections, and pipelining passes the script and its depth.
func TestArgs(t *testing.T) {
	got := Args(Config{URL: "http://127.0.0.1:1/x", Conns: 1, Threads: 4, Duration: 1400 * time.Millisecond}, "s.lua")
	want := []string{"-c", "1", "-t", "1", "-d", "1s", "--latency", "http://127.0.0.1:1/x"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	got = Args(Config{URL: "http://127.0.0.1:1/p", Conns: 256, Threads: 2, Duration: 100 * time.Millisecond, Pipeline: 16, Timeout: 2500 * time.Millisecond}, "s.lua")
	want = []string{"-c", "256", "-t", "2", "-d", "1s", "--latency", "--timeout", "3s", "-s", "s.lua", "http://127.0.0.1:1/p", "--", "16"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestRun runs wrk against a server of this process, keep-alive and
// pipelined 8 deep: the server answers at least every request wrk
// counts, pipelined requests arrive several to a read, and the CPU clock
// is read around the run.
func TestRun(t *testing.T) {
	if !Installed() {
		if os.Getenv("CI") == "true" {
			t.Fatal("wrk is not installed; .ci/run installs it")
		}
		t.Skip("wrk is not installed (Debian: apt-get install wrk)")
	}
	var served atomic.Int64
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var batched atomic.Bool // a read held more than one request
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			served.Add(1)
			w.Write([]byte("hi"))
		}),
	}
	go srv.Serve(&batchListener{Listener: ln, batched: &batched})
	defer srv.Close()
	for _, depth := range []int{1, 8} {
		served.Store(0)
		batched.Store(false)
		r, err := Run(Config{URL: "http://" + ln.Addr().String() + "/", Conns: 4, Threads: 2, Duration: time.Second, Pipeline: depth}, cpuClock)
		if err != nil {
			t.Fatalf("depth %d: %v", depth, err)
		}
		if r.Requests == 0 || served.Load() < r.Requests || r.ServerCPU <= 0 || r.P50 <= 0 || r.Elapsed <= 0 {
			t.Errorf("depth %d: %+v, server answered %d", depth, r, served.Load())
		}
		if depth > 1 && !batched.Load() {
			t.Errorf("depth %d: no read held more than one request", depth)
		}
	}
}

// cpuClock is this process's CPU time.
func cpuClock() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// batchListener's connections report a read that holds more than one
// request line.
type batchListener struct {
	net.Listener
	batched *atomic.Bool
}

func (l *batchListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &batchConn{Conn: c, batched: l.batched}, nil
}

type batchConn struct {
	net.Conn
	batched *atomic.Bool
}

func (c *batchConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if strings.Count(string(p[:n]), "GET / HTTP/1.1\r\n") > 1 {
		c.batched.Store(true)
	}
	return n, err
}
