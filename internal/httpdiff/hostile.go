package httpdiff

import (
	"bufio"
	"bytes"
	"errors"

	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogen-go/cogen/cohttp"
)

// A Starter starts a server under test with the limits lim on 127.0.0.1,
// stopped when the test ends, and returns its address.
type Starter func(t *testing.T, lim cohttp.Limits) string

// Hostile runs the hostile-client tests against the servers start makes,
// with the timeouts scaled down so that they take seconds.
func Hostile(t *testing.T, start Starter) {
	t.Run("oversized-head", func(t *testing.T) { OversizedHead(t, start) })
	t.Run("oversized-body", func(t *testing.T) { OversizedBody(t, start) })
	t.Run("slowloris", func(t *testing.T) { Slowloris(t, start, 1000) })
	t.Run("idle", func(t *testing.T) { Idle(t, start) })
	t.Run("flood", func(t *testing.T) { Flood(t, start) })
	t.Run("slow-body", func(t *testing.T) { SlowBody(t, start) })
	t.Run("stalled-uploads", func(t *testing.T) { StalledUploads(t, start) })
	t.Run("slow-reader", func(t *testing.T) { SlowReader(t, start) })
}

// OversizedHead sends heads of 2 MiB and 64 MiB: each must be answered 431
// and closed, and the process's peak RSS must grow by far less than the
// head (the limit is 1 MiB).
func OversizedHead(t *testing.T, start Starter) {
	addr := start(t, cohttp.Limits{})
	for _, size := range []int{2 << 20, 64 << 20} {
		runtime.GC()
		before := rss("VmRSS")
		resetPeakRSS()
		status, err := sendHead(addr, size)
		peak := rss("VmHWM")
		if err != nil || status != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("%d MiB head: %d, %v; want 431", size>>20, status, err)
		}
		t.Logf("%d MiB head: RSS %.1f MiB before, peak %.1f MiB during", size>>20, mib(before), mib(peak))
		if before > 0 && peak > 0 && peak-before > 24<<20 {
			t.Errorf("%d MiB head: peak RSS grew by %.1f MiB", size>>20, mib(peak-before))
		}
	}
}

// OversizedBody posts 8 MiB to /echo against a body limit of 1 MiB: the
// server must answer (whatever the status: that is the handler's) and
// close the connection, and the client must be able to read the answer —
// the server drains before closing instead of resetting the connection
// with the body unread.
func OversizedBody(t *testing.T, start Starter) {
	addr := start(t, cohttp.Limits{MaxBodyBytes: 1 << 20})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	const size = 8 << 20
	go func() {
		io.WriteString(c, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: "+strconv.Itoa(size)+"\r\n\r\n")
		chunk := bytes.Repeat([]byte("b"), 64<<10)
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	}()
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer to an oversized body: %v", err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	if err != nil || !resp.Close {
		t.Errorf("answer %d, Close=%v, body read: %v; want the connection closed cleanly", resp.StatusCode, resp.Close, err)
	}
	t.Logf("8 MiB body against a 1 MiB limit: %d, Connection: close", resp.StatusCode)
}

// sendHead writes a request whose head is size bytes long, from a small
// buffer, while reading the answer, and returns its status.
func sendHead(addr string, size int) (int, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	go func() {
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: ")
		chunk := bytes.Repeat([]byte("b"), 64<<10)
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := c.Write(chunk); err != nil {
				return // the server answered and closed
			}
		}
		io.WriteString(c, "\r\n\r\n")
	}()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// Slowloris opens n connections that send a head one byte every 200 ms,
// against a read-header timeout of 1 s: each must be closed by the server
// at the timeout, while a well-behaved client on its own connection keeps
// getting answers with normal latency.
func Slowloris(t *testing.T, start Starter, n int) {
	const timeout = time.Second
	addr := start(t, cohttp.Limits{ReadHeaderTimeout: timeout})
	good, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	goodR := bufio.NewReader(good)
	ask := func() (time.Duration, error) {
		t0 := time.Now()
		good.SetDeadline(t0.Add(10 * time.Second))
		if _, err := io.WriteString(good, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return 0, err
		}
		resp, err := http.ReadResponse(goodR, nil)
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, resp.Body)
		return time.Since(t0), nil
	}
	var quiet []time.Duration
	for range 50 {
		d, err := ask()
		if err != nil {
			t.Fatal(err)
		}
		quiet = append(quiet, d)
	}

	closedAfter := make([]time.Duration, n)
	var wg sync.WaitGroup
	var dialErrs atomic.Int64
	var connected sync.WaitGroup
	connected.Add(n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now() // before the dial: the server's clock starts later
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			connected.Done()
			if err != nil {
				dialErrs.Add(1)
				return
			}
			defer c.Close()
			head := "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("s", 100)
			done := make(chan struct{})
			go func() { // the server closing shows as EOF or a reset
				c.SetReadDeadline(t0.Add(10 * time.Second))
				io.Copy(io.Discard, c)
				closedAfter[i] = time.Since(t0)
				close(done)
			}()
			for j := 0; ; j++ {
				select {
				case <-done:
					return
				case <-time.After(200 * time.Millisecond):
				}
				if _, err := c.Write([]byte{head[j%len(head)]}); err != nil {
					<-done
					return
				}
			}
		}()
	}
	connected.Wait()
	var loaded []time.Duration
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); {
		d, err := ask()
		if err != nil {
			t.Fatalf("the good client failed during the attack: %v", err)
		}
		loaded = append(loaded, d)
	}
	wg.Wait()
	if e := dialErrs.Load(); e > 0 {
		t.Errorf("%d of %d slow clients could not connect", e, n)
	}
	slices.Sort(closedAfter)
	early, late := closedAfter[0], closedAfter[n-1-int(dialErrs.Load())]
	t.Logf("%d slow clients closed between %v and %v (timeout %v); good client latency p50/p99/max %v/%v/%v before, %v/%v/%v during (%d requests)",
		n, early.Round(time.Millisecond), late.Round(time.Millisecond), timeout,
		pct(quiet, 50), pct(quiet, 99), pct(quiet, 100), pct(loaded, 50), pct(loaded, 99), pct(loaded, 100), len(loaded))
	// The clients measure from before their dial, so none may see its
	// close before the timeout; the bound after it is generous, for a
	// loaded machine.
	if early < timeout*95/100 || late > timeout+4*time.Second {
		t.Errorf("slow clients closed between %v and %v; want at the timeout of %v", early, late, timeout)
	}
	if len(loaded) < 3 || pct(loaded, 50) > 500*time.Millisecond {
		t.Errorf("good client: %d requests, median %v during the attack", len(loaded), pct(loaded, 50))
	}
}

// Idle checks that a keep-alive connection is closed at the idle timeout
// after its last response, and a connection that never sends at the
// read-header timeout. The client's clock starts before the dial, which
// no server timer can precede: measured from after the response (or the
// dial), a client that got the core late saw the close early (213 ms of a
// 300 ms idle timeout, under load).
func Idle(t *testing.T, start Starter) {
	const idle, header = 300 * time.Millisecond, 600 * time.Millisecond
	addr := start(t, cohttp.Limits{IdleTimeout: idle, ReadHeaderTimeout: header})
	for _, c := range []struct {
		name string
		send string
		want time.Duration
	}{{"keep-alive", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", idle}, {"silent", "", header}} {
		t0 := time.Now()
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(conn, c.send)
		br := bufio.NewReader(conn)
		if c.send != "" {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
		}
		_, err = br.ReadByte()
		d := time.Since(t0)
		conn.Close()
		if !errors.Is(err, io.EOF) && !isReset(err) {
			t.Errorf("%s: %v, want the server to close", c.name, err)
		}
		if d < c.want || d > c.want+3*time.Second {
			t.Errorf("%s: closed after %v, want %v", c.name, d, c.want)
		}
	}
}

// Flood opens 200 connections that send nothing against a cap of 20
// connections and a read-header timeout of 300 ms: a client already
// connected keeps being answered, the server accepts no more than the cap
// at once (so it closes at most 20 per timeout), all are closed in the
// end, and the process's descriptors and goroutines return to what they
// were.
func Flood(t *testing.T, start Starter) {
	const maxConns, n, timeout = 20, 200, 300 * time.Millisecond
	addr := start(t, cohttp.Limits{MaxConns: maxConns, ReadHeaderTimeout: timeout, IdleTimeout: 20 * time.Second})
	// A first exchange makes the server start what it starts lazily (its
	// accept coroutine, an env's watchdog) before the baseline is taken.
	if probe, err := net.Dial("tcp", addr); err == nil {
		probe.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(probe, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		io.Copy(io.Discard, probe)
		probe.Close()
	}
	time.Sleep(50 * time.Millisecond)
	fds0, g0 := openFDs(), runtime.NumGoroutine()
	func() {
		ask, done := goodClient(t, addr)
		defer done()
		t0 := time.Now()
		closedAt := make([]time.Duration, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := net.DialTimeout("tcp", addr, 10*time.Second)
				if err != nil {
					closedAt[i] = -1
					return
				}
				defer c.Close()
				c.SetReadDeadline(time.Now().Add(30 * time.Second))
				io.Copy(io.Discard, c)
				closedAt[i] = time.Since(t0)
			}()
		}
		for range 10 {
			if err := ask(); err != nil {
				t.Fatalf("the connected client failed during the flood: %v", err)
			}
			time.Sleep(timeout / 5)
		}
		wg.Wait()
		slices.Sort(closedAt)
		if closedAt[0] < 0 {
			t.Errorf("some connections failed to connect")
		}
		// At most maxConns-1 flood connections are served at once, so by the
		// first timeout (with slack for lateness) at most that many closed.
		first := 0
		for _, d := range closedAt {
			if d < timeout*3/2 {
				first++
			}
		}
		t.Logf("%d connections against a cap of %d: %d closed in the first %v, the last after %v", n, maxConns, first, timeout*3/2, closedAt[n-1].Round(time.Millisecond))
		if first > maxConns {
			t.Errorf("%d connections closed within the first timeout; the cap is %d", first, maxConns)
		}
		if closedAt[n-1] < time.Duration(n/maxConns-1)*timeout {
			t.Errorf("all %d connections closed within %v: the cap did not hold", n, closedAt[n-1])
		}
		if err := ask(); err != nil {
			t.Fatalf("the connected client after the flood: %v", err)
		}
	}()
	var fds, g int
	for range 200 {
		if fds, g = openFDs(), runtime.NumGoroutine(); fds <= fds0 && g <= g0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	t.Errorf("after the flood: %d descriptors (%d before), %d goroutines (%d before)\n%s", fds, fds0, g, g0, buf[:runtime.Stack(buf, true)])
}

// goodClient connects to addr and returns a function that asks GET / on
// that connection and reads the answer, having asked once (the test fails
// if that fails), and a function that closes the connection.
func goodClient(t *testing.T, addr string) (ask func() error, done func()) {
	good, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	goodR := bufio.NewReader(good)
	ask = func() error {
		good.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(good, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(goodR, nil)
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
		}
		return err
	}
	if err := ask(); err != nil {
		good.Close()
		t.Fatal(err)
	}
	return ask, func() { good.Close() }
}

func isReset(err error) bool { return err != nil && strings.Contains(err.Error(), "reset") }

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min((len(s)-1)*p/100, len(s)-1)].Round(10 * time.Microsecond)
}

// rss returns a memory figure of /proc/self/status in bytes (0 if
// unknown).
func rss(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// resetPeakRSS makes VmHWM start again from the current RSS.
func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// openFDs counts the process's open descriptors.
func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}
