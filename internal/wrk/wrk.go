package wrk

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// ErrNotInstalled is wrapped by Run's error when no wrk binary is in PATH.
var ErrNotInstalled = errors.New("wrk: not installed (Debian: apt-get install wrk)")

// A Config describes one wrk run.
type Config struct {
	// URL is the URL every request GETs: http://host:port/path.
	URL string
	// Conns is the number of keep-alive connections (wrk -c).
	Conns int
	// Threads is wrk's thread count (wrk -t); default the number of CPUs,
	// at most Conns (wrk gives each thread Conns/Threads connections).
	Threads int
	// Duration is the run's length (wrk -d), rounded to whole seconds
	// (wrk's unit), at least 1 s.
	Duration time.Duration
	// Pipeline, if more than 1, makes each write of a connection carry
	// that many requests (the Lua script of pipelineScript).
	Pipeline int
	// Timeout is wrk's per-request timeout (wrk --timeout, whole seconds,
	// at least 1; default 2 s, wrk's): a request not answered by then
	// counts as a timeout.
	Timeout time.Duration
}

// A Result is what one wrk run reported.
type Result struct {
	Requests  int64   // responses completed within the duration
	ReqPerSec float64 // wrk's Requests/sec
	// Elapsed is the window wrk counted over: Requests / ReqPerSec.
	Elapsed time.Duration
	// Latency percentiles of wrk's --latency distribution, its mean and
	// maximum (per request, from the write of its batch to its response;
	// with pipelining wrk times a batch by its first response).
	P50, P75, P90, P99, Mean, Max time.Duration
	// Socket errors and responses whose status was not 2xx or 3xx.
	ConnectErrors, ReadErrors, WriteErrors, Timeouts, Non2xx int64
	// ServerCPU is the CPU clock's advance over wrk's run (Run's cpu
	// argument); 0 if Run was not given one.
	ServerCPU time.Duration
}

// CPUPerReqMicros returns the server's CPU per request in microseconds.
func (r Result) CPUPerReqMicros() float64 {
	if r.Requests == 0 {
		return 0
	}
	return float64(r.ServerCPU.Nanoseconds()) / 1e3 / float64(r.Requests)
}

// SocketErrors is the sum of the connect, read, write and timeout errors.
func (r Result) SocketErrors() int64 {
	return r.ConnectErrors + r.ReadErrors + r.WriteErrors + r.Timeouts
}

// Installed reports whether a wrk binary is in PATH.
func Installed() bool {
	_, err := exec.LookPath("wrk")
	return err == nil
}

// pipelineScript makes every request of wrk a batch of args[1] GETs of
// the URL's path, written at once (wrk -s script URL -- depth).
const pipelineScript = `-- cogen: each write carries args[1] requests of the URL's path.
init = function(args)
  local depth = tonumber(args[1]) or 1
  local batch = {}
  for i = 1, depth do
    batch[i] = wrk.format()
  end
  req = table.concat(batch)
end

request = function()
  return req
end
`

// Args returns wrk's arguments for cfg; script is the path of the
// pipelining script (pipelineScript), used when cfg.Pipeline > 1.
func Args(cfg Config, script string) []string {
	threads := cfg.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	threads = max(min(threads, cfg.Conns), 1)
	args := []string{
		"-c", strconv.Itoa(cfg.Conns), "-t", strconv.Itoa(threads),
		"-d", seconds(cfg.Duration), "--latency",
	}
	if cfg.Timeout > 0 {
		args = append(args, "--timeout", seconds(cfg.Timeout))
	}
	if cfg.Pipeline > 1 {
		args = append(args, "-s", script)
	}
	args = append(args, cfg.URL)
	if cfg.Pipeline > 1 {
		args = append(args, "--", strconv.Itoa(cfg.Pipeline))
	}
	return args
}

// Run runs wrk with cfg and returns its parsed report. cpu, if not nil, is
// read just before wrk starts and after it has exited: its advance is
// Result.ServerCPU. A run with a non-2xx answer or a connect error is an
// error: the server is not the one meant to be measured.
func Run(cfg Config, cpu func() time.Duration) (Result, error) {
	exe, err := exec.LookPath("wrk")
	if err != nil {
		return Result{}, ErrNotInstalled
	}
	if cfg.Conns <= 0 || cfg.Duration <= 0 || cfg.URL == "" {
		return Result{}, fmt.Errorf("wrk: config %+v needs a URL, connections and a duration", cfg)
	}
	script := ""
	if cfg.Pipeline > 1 {
		f, err := os.CreateTemp("", "cogen-wrk-*.lua")
		if err != nil {
			return Result{}, fmt.Errorf("wrk: script: %w", err)
		}
		defer os.Remove(f.Name())
		_, err = f.WriteString(pipelineScript)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return Result{}, fmt.Errorf("wrk: script: %w", err)
		}
		script = f.Name()
	}
	cmd := exec.Command(exe, Args(cfg, script)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var cpu0 time.Duration
	if cpu != nil {
		cpu0 = cpu()
	}
	err = cmd.Run()
	var used time.Duration
	if cpu != nil {
		used = cpu() - cpu0
	}
	if err != nil {
		return Result{}, fmt.Errorf("wrk %s: %v: %s", strings.Join(cmd.Args[1:], " "), err, strings.TrimSpace(stderr.String()+stdout.String()))
	}
	r, err := Parse(stdout.String())
	if err != nil {
		return Result{}, err
	}
	r.ServerCPU = used
	switch {
	case r.Non2xx > 0:
		return r, fmt.Errorf("wrk: %d of %d answers were not 2xx or 3xx", r.Non2xx, r.Requests)
	case r.ConnectErrors > 0:
		return r, fmt.Errorf("wrk: %d connect errors", r.ConnectErrors)
	case r.Requests == 0:
		return r, errors.New("wrk: no request answered")
	}
	return r, nil
}

var (
	reRequests = regexp.MustCompile(`(?m)^\s*(\d+) requests in ([0-9.]+)(us|ms|s|m|h),`)
	reRate     = regexp.MustCompile(`(?m)^Requests/sec:\s*([0-9.]+)\s*$`)
	rePct      = regexp.MustCompile(`(?m)^\s*(50|75|90|99)%\s+([0-9.]+)(us|ms|s|m|h)\s*$`)
	reLatency  = regexp.MustCompile(`(?m)^\s*Latency\s+([0-9.]+)(us|ms|s|m|h)\s+\S+\s+([0-9.]+)(us|ms|s|m|h)`)
	reSocket   = regexp.MustCompile(`(?m)^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)\s*$`)
	reNon2xx   = regexp.MustCompile(`(?m)^\s*Non-2xx or 3xx responses: (\d+)\s*$`)
)

// Parse reads the report wrk prints with --latency: the request count,
// Requests/sec, the latency mean, maximum and percentiles, and the socket
// error and non-2xx lines when present (absent, they are 0).
func Parse(out string) (Result, error) {
	var r Result
	m := reRequests.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("wrk: no request count in %q", out)
	}
	r.Requests, _ = strconv.ParseInt(m[1], 10, 64)
	m = reRate.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("wrk: no Requests/sec in %q", out)
	}
	r.ReqPerSec, _ = strconv.ParseFloat(m[1], 64)
	if r.ReqPerSec > 0 {
		r.Elapsed = time.Duration(float64(r.Requests) / r.ReqPerSec * float64(time.Second))
	}
	m = reLatency.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("wrk: no latency line in %q", out)
	}
	r.Mean, r.Max = duration(m[1], m[2]), duration(m[3], m[4])
	pcts := rePct.FindAllStringSubmatch(out, -1)
	if len(pcts) != 4 {
		return r, fmt.Errorf("wrk: %d latency percentiles (run with --latency) in %q", len(pcts), out)
	}
	for _, p := range pcts {
		d := duration(p[2], p[3])
		switch p[1] {
		case "50":
			r.P50 = d
		case "75":
			r.P75 = d
		case "90":
			r.P90 = d
		case "99":
			r.P99 = d
		}
	}
	if m := reSocket.FindStringSubmatch(out); m != nil {
		r.ConnectErrors, _ = strconv.ParseInt(m[1], 10, 64)
		r.ReadErrors, _ = strconv.ParseInt(m[2], 10, 64)
		r.WriteErrors, _ = strconv.ParseInt(m[3], 10, 64)
		r.Timeouts, _ = strconv.ParseInt(m[4], 10, 64)
	}
	if m := reNon2xx.FindStringSubmatch(out); m != nil {
		r.Non2xx, _ = strconv.ParseInt(m[1], 10, 64)
	}
	return r, nil
}

// seconds formats d for wrk: whole seconds, at least 1.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%ds", max(d.Round(time.Second)/time.Second, 1))
}

// duration converts wrk's number and unit (us, ms, s, m, h) to a Duration.
func duration(num, unit string) time.Duration {
	f, _ := strconv.ParseFloat(num, 64)
	scale := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour}[unit]
	return time.Duration(f * float64(scale))
}
