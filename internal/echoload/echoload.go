package echoload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/internal/wrk"
)

// childEnv holds the JSON-encoded Config of a child process.
const childEnv = "COGEN_ECHOLOAD_CHILD"

// Config describes one load run.
type Config struct {
	// Addr is the server's address; it must be 127.0.0.1:port.
	Addr string
	// Conns is the number of connections (default 100).
	Conns int
	// Size is the message size in bytes (default 64). An HTTP run ignores
	// it.
	Size int
	// HTTP, if set, makes each request a keep-alive HTTP/1.1 GET of Path
	// (default "/") instead of an echoed message; a request is answered
	// once the response's status line (which must be 200), headers and
	// Content-Length bytes of body have arrived.
	HTTP bool
	// Path is the path an HTTP run requests.
	Path string
	// Requests, if positive, ends the run once that many requests have been
	// answered in total.
	Requests int64
	// Duration ends the run after that long if Requests is 0 (default 1s).
	Duration time.Duration
	// Timeout bounds the whole run, connection setup included (default
	// Duration plus 30s, or 60s with Requests): past it the child gives up
	// and the parent kills it.
	Timeout time.Duration
	// Wrk, if set, makes the load client wrk (package wrk, startWrk)
	// instead of this package's: an HTTP run of Duration only.
	Wrk bool `json:"-"`
}

func (c *Config) fill() error {
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return fmt.Errorf("echoload: bad address %q: %w", c.Addr, err)
	}
	if host != "127.0.0.1" {
		return fmt.Errorf("echoload: address %q is not on 127.0.0.1", c.Addr)
	}
	if c.Conns <= 0 {
		c.Conns = 100
	}
	if c.Size <= 0 {
		c.Size = 64
	}
	if c.Path == "" {
		c.Path = "/"
	}
	if c.Requests < 0 {
		return errors.New("echoload: negative request count")
	}
	if c.Requests == 0 && c.Duration <= 0 {
		c.Duration = time.Second
	}
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
		if c.Requests == 0 {
			c.Timeout = c.Duration + 30*time.Second
		}
	}
	return nil
}

// Result is what a run measured.
type Result struct {
	Conns     int
	Requests  int64         // requests answered in the window
	Elapsed   time.Duration // the window, as the client measured it
	ServerCPU time.Duration // user+system CPU of the server's process in the window
	// ServerReads and ServerWrites count the read and write system calls
	// (read, readv, recvfrom... and write, writev, sendto...; successful or
	// not, EAGAIN included) the server's process made in the window, from
	// the syscr and syscw lines of /proc/self/io; -1 where that file is not
	// available. epoll_wait and other calls are not counted.
	ServerReads, ServerWrites int64
	// Wrk is wrk's report, for a run with Config.Wrk.
	Wrk *wrk.Result `json:",omitempty"`
}

// SyscallsPerReq returns the server's read and write system calls per
// request, and false if they were not counted.
func (r Result) SyscallsPerReq() (float64, bool) {
	if r.ServerReads < 0 || r.ServerWrites < 0 || r.Requests == 0 {
		return 0, false
	}
	return float64(r.ServerReads+r.ServerWrites) / float64(r.Requests), true
}

// ReqPerSec returns requests per second over the window.
func (r Result) ReqPerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// CPUPerReqMicros returns the server's CPU time per request in microseconds.
func (r Result) CPUPerReqMicros() float64 {
	if r.Requests == 0 {
		return 0
	}
	return float64(r.ServerCPU.Microseconds()) / float64(r.Requests)
}

func (r Result) String() string {
	return fmt.Sprintf("%d conns: %d requests in %v: %.0f req/s, server CPU %.2f µs/req",
		r.Conns, r.Requests, r.Elapsed.Round(time.Millisecond), r.ReqPerSec(), r.CPUPerReqMicros())
}

// A Load is a run in progress.
type Load struct {
	cfg    Config
	cmd    *exec.Cmd
	gate   io.WriteCloser // the child's stdin: the window opens when "go" arrives
	stderr limitedBuffer
	done   chan struct{}
	res    Result
	err    error
}

// Start runs the load client against the server at cfg.Addr, which must
// already accept connections, and returns at once; the server keeps serving
// until [Load.Done] is closed. The client is the running binary re-executed,
// so the binary must call [MaybeRunChild] at the start of main or TestMain.
func Start(cfg Config) (*Load, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	if cfg.Wrk {
		return startWrk(cfg)
	}
	enc, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("echoload: %w", err)
	}
	ld := &Load{cfg: cfg, done: make(chan struct{})}
	ld.cmd = exec.Command(exe)
	ld.cmd.Env = append(os.Environ(), childEnv+"="+string(enc))
	ld.cmd.Stderr = &ld.stderr
	out, err := ld.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("echoload: %w", err)
	}
	if ld.gate, err = ld.cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("echoload: %w", err)
	}
	if err := ld.cmd.Start(); err != nil {
		return nil, fmt.Errorf("echoload: start client: %w", err)
	}
	go ld.watch(out)
	return ld, nil
}

// Done is closed when the run has ended, successfully or not.
func (ld *Load) Done() <-chan struct{} { return ld.done }

// Wait waits for the run to end and returns its result.
func (ld *Load) Wait() (Result, error) {
	<-ld.done
	return ld.res, ld.err
}

// watch follows the child's report, takes the server's CPU time when the
// window opens and closes, and reaps the child.
func (ld *Load) watch(out io.Reader) {
	defer close(ld.done)
	kill := time.AfterFunc(ld.cfg.Timeout+5*time.Second, func() { ld.cmd.Process.Kill() })
	defer kill.Stop()
	var cpu0, cpu1 time.Duration
	var io0, io1 ioCounts
	var opened, closed, reported bool
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 1 && f[0] == "start":
			// The client waits for "go" before its first request, so that
			// the window's figures start exactly here.
			cpu0, opened = processCPU(), true
			io0 = processIO()
			io.WriteString(ld.gate, "go\n")
		case len(f) == 1 && f[0] == "stop":
			cpu1, closed = processCPU(), true
			io1 = processIO()
		case len(f) == 3 && f[0] == "result":
			n, err1 := strconv.ParseInt(f[1], 10, 64)
			ns, err2 := strconv.ParseInt(f[2], 10, 64)
			if err1 == nil && err2 == nil {
				ld.res = Result{Conns: ld.cfg.Conns, Requests: n, Elapsed: time.Duration(ns)}
				reported = true
			}
		}
	}
	io.Copy(io.Discard, out)
	ld.gate.Close()
	werr := ld.cmd.Wait()
	switch {
	case werr != nil:
		ld.err = fmt.Errorf("echoload: client: %v: %s", werr, strings.TrimSpace(ld.stderr.String()))
	case !opened || !closed || !reported:
		ld.err = fmt.Errorf("echoload: client ended without a complete report: %s", strings.TrimSpace(ld.stderr.String()))
	default:
		ld.res.ServerCPU = cpu1 - cpu0
		ld.res.ServerReads, ld.res.ServerWrites = -1, -1
		if io0.ok && io1.ok {
			ld.res.ServerReads, ld.res.ServerWrites = io1.reads-io0.reads, io1.writes-io0.writes
		}
	}
}

// ioCounts are the read and write system calls of a process so far.
type ioCounts struct {
	reads, writes int64
	ok            bool
}

// processIO returns this process's read and write system calls so far,
// from /proc/self/io (all threads). Reading the file is one more read
// call, counted at the start of the window and not at its end.
func processIO() ioCounts {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return ioCounts{}
	}
	var c ioCounts
	var seen int
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "syscr":
			c.reads, seen = n, seen+1
		case "syscw":
			c.writes, seen = n, seen+1
		}
	}
	c.ok = seen == 2
	return c
}

// limitedBuffer keeps the first 4 KiB written to it: enough of a child's
// stderr to explain a failure.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := 4096 - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// MaybeRunChild runs the load client and exits if this process was started
// by [Start]; otherwise it returns at once. Call it before anything else in
// main or TestMain.
func MaybeRunChild() {
	enc, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	var cfg Config
	err := json.Unmarshal([]byte(enc), &cfg)
	if err == nil {
		err = cfg.fill()
	}
	if err == nil {
		err = runClient(cfg, os.Stdout, os.Stdin)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// runClient is the child: it connects every connection, reports "start",
// waits for a line on gate (the parent has taken its figures),
// runs the ping-pong until the request count or the duration is reached,
// reports "stop" once every request in flight has been answered, closes the
// connections and reports "result <requests> <elapsed ns>".
func runClient(cfg Config, report io.Writer, gate io.Reader) error {
	deadline := time.Now().Add(cfg.Timeout)
	conns := make([]net.Conn, 0, cfg.Conns)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	d := net.Dialer{Deadline: deadline}
	for range cfg.Conns {
		c, err := d.Dial("tcp4", cfg.Addr)
		if err != nil {
			return fmt.Errorf("echoload: dial %s: %w", cfg.Addr, err)
		}
		c.SetDeadline(deadline)
		conns = append(conns, c)
	}

	var (
		issued   atomic.Int64 // requests started, against cfg.Requests
		answered atomic.Int64
		stop     atomic.Bool
		errOnce  sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	fmt.Fprintln(report, "start")
	if _, err := bufio.NewReader(gate).ReadString('\n'); err != nil {
		return fmt.Errorf("echoload: waiting for the parent: %w", err)
	}
	start := time.Now()
	if cfg.Requests == 0 {
		t := time.AfterFunc(cfg.Duration, func() { stop.Store(true) })
		defer t.Stop()
	}
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ask := newAsker(cfg, c, i)
			for !stop.Load() {
				if cfg.Requests > 0 && issued.Add(1) > cfg.Requests {
					return
				}
				if err := ask(); err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("echoload: connection %d: %w", i, err) })
					stop.Store(true)
					return
				}
				answered.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	fmt.Fprintln(report, "stop")
	if firstErr != nil {
		return firstErr
	}
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	fmt.Fprintf(report, "result %d %d\n", answered.Load(), elapsed.Nanoseconds())
	return nil
}

// newAsker returns the function that makes one request on connection i
// and waits for its answer: an echoed message, or an HTTP response.
func newAsker(cfg Config, c net.Conn, i int) func() error {
	if cfg.HTTP {
		req := []byte("GET " + cfg.Path + " HTTP/1.1\r\nHost: " + cfg.Addr + "\r\nUser-Agent: echoload\r\n\r\n")
		br := bufio.NewReaderSize(c, 4096)
		return func() error {
			if _, err := c.Write(req); err != nil {
				return err
			}
			return readResponse(br)
		}
	}
	msg := make([]byte, cfg.Size)
	for j := range msg {
		msg[j] = byte(i + j)
	}
	echo := make([]byte, cfg.Size)
	return func() error {
		_, err := c.Write(msg)
		if err == nil {
			_, err = io.ReadFull(c, echo)
		}
		if err == nil && !bytes.Equal(echo, msg) {
			err = errors.New("echo differs from the message")
		}
		return err
	}
}

// readResponse reads one HTTP/1.1 response with status 200 and a
// Content-Length body from br, and discards it. It parses no more than that,
// so that the client spends as little as it can per request.
func readResponse(br *bufio.Reader) error {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
		return fmt.Errorf("response %q", bytes.TrimSpace(line))
	}
	length := -1
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		if ok && bytes.EqualFold(k, []byte("Content-Length")) {
			n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
			if err != nil || n < 0 {
				return fmt.Errorf("bad Content-Length %q", v)
			}
			length = n
		}
	}
	if length < 0 {
		return errors.New("response without Content-Length")
	}
	_, err = br.Discard(length)
	return err
}
