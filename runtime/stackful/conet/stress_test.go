//go:build linux

package conet

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/hello"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// helloLoop is the hello server loop of the HTTP benchmarks.
func helloLoop(c net.Conn) error { return hello.Serve(c, c) }

// askHello makes one keep-alive GET on c and reads its response.
func askHello(c net.Conn, br *bufio.Reader, req []byte) error {
	if _, err := c.Write(req); err != nil {
		return err
	}
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
		return fmt.Errorf("response %q", line)
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
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && string(k) == "Content-Length" {
			length, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
		}
	}
	_, err = br.Discard(length)
	return err
}

// stressRound serves one window of keep-alive HTTP load as internal/bench's
// "stackful/conet" HTTP row does: conet.Serve on a loop run by this
// goroutine, conns Go clients, each asking until the window ends. It
// returns an error, with every goroutine's stack, if the round does not
// end within limit.
func stressRound(conns int, window, limit time.Duration) (int64, error) {
	l, err := loop.New()
	if err != nil {
		return 0, err
	}
	defer l.Close()
	ln, err := Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	env := stackful.NewEnvOn(l)
	defer env.Close()
	var serveErr error
	env.Create(func(co *stackful.Co) {
		serveErr = Serve(co, ln, func(_ *stackful.Co, c net.Conn) {
			defer c.Close()
			helloLoop(c)
		}, nil)
	}, nil).Resume()

	addr := ln.Addr().String()
	var answered atomic.Int64
	var stop atomic.Bool
	var cerrMu sync.Mutex
	var cerr error
	var wg sync.WaitGroup
	deadline := time.Now().Add(limit)
	req := []byte("GET / HTTP/1.1\r\nHost: " + addr + "\r\n\r\n")
	ready := make(chan struct{})
	// The window starts with the first answer, not when the clients are
	// let go: on a busy machine the loop may not run for longer than a
	// window, and a round must still answer something. A loop that never
	// answers fails the round at the clients' deadline.
	var windowOnce sync.Once
	startWindow := func() { windowOnce.Do(func() { time.AfterFunc(window, func() { stop.Store(true) }) }) }
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.DialTimeout("tcp4", addr, limit)
			if err == nil {
				defer c.Close()
				c.SetDeadline(deadline)
				br := bufio.NewReaderSize(c, 4096)
				<-ready
				for err == nil && !stop.Load() {
					if err = askHello(c, br, req); err == nil && answered.Add(1) == 1 {
						startWindow()
					}
				}
			}
			if err != nil {
				cerrMu.Lock()
				cerr = errors.Join(cerr, fmt.Errorf("client %d: %w", i, err))
				cerrMu.Unlock()
			}
		}()
	}
	close(ready)
	over := false
	go func() {
		wg.Wait()
		l.Submit(func() { over = true })
	}()

	// The watchdog dumps every goroutine if the round overruns.
	var dump bytes.Buffer
	dumped := make(chan struct{})
	wd := time.AfterFunc(limit+2*time.Second, func() {
		pprof.Lookup("goroutine").WriteTo(&dump, 2)
		close(dumped)
	})
	if err := l.Run(func() bool { return over }); err != nil {
		return 0, err
	}
	// Shut down as internal/bench does.
	ln.Close()
	expired := false
	var guard loop.Timer
	l.Reset(&guard, limit, func() { expired = true })
	env.Run(func() bool { return expired || env.Live() == 0 })
	l.CancelTimer(&guard)
	if !wd.Stop() {
		<-dumped
		return 0, fmt.Errorf("round overran %v; goroutines:\n%s", limit, dump.String())
	}
	if live := env.Live(); live != 0 {
		return 0, fmt.Errorf("%d coroutines still running after shutdown (client errors: %v)", live, cerr)
	}
	if cerr != nil {
		return 0, cerr
	}
	if serveErr != nil && !errors.Is(serveErr, net.ErrClosed) {
		return 0, serveErr
	}
	return answered.Load(), nil
}

// TestStressServeHTTP hammers Serve with keep-alive HTTP clients, many short
// windows, looking for a lost wake-up: a round that stops answering fails
// with every goroutine's stack. It runs 5 s; CONET_STRESS=60s runs longer.
func TestStressServeHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("stress test")
	}
	total := 5 * time.Second
	if s := os.Getenv("CONET_STRESS"); s != "" {
		if d, err := time.ParseDuration(s); err == nil {
			total = d
		}
	}
	end := time.Now().Add(total)
	rounds := 0
	var reqs int64
	for time.Now().Before(end) {
		n, err := stressRound(100, 100*time.Millisecond, 5*time.Second)
		if err != nil {
			t.Fatalf("round %d: %v", rounds, err)
		}
		if n == 0 {
			t.Fatalf("round %d: no request answered", rounds)
		}
		rounds++
		reqs += n
	}
	t.Logf("%d rounds, %d requests", rounds, reqs)
}

// TestOpAfterCloseKeepsReusedNumber: an operation on a closed conn fails
// with net.ErrClosed and must not close the descriptor number again, which
// may belong to another file by then.
func TestOpAfterCloseKeepsReusedNumber(t *testing.T) {
	e := newEnv(t)
	_, server := pair(t, e)
	num := server.fd.sysfd
	server.Close()
	runUntil(t, e, time.Second, func() bool { return server.fd.state.Load() == closedBit })
	// Put another file at the freed number.
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if p[0] != num && p[1] != num {
		if err := unix.Dup3(p[0], num, unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		defer unix.Close(num)
	}
	ops := map[string]func() error{
		"read":       func() error { _, err := server.Read(make([]byte, 1)); return err },
		"write":      func() error { _, err := server.Write([]byte("x")); return err },
		"CloseWrite": server.CloseWrite,
		"SetLinger":  func() error { return server.SetLinger(0) },
		"SetNoDelay": func() error { return server.SetNoDelay(true) },
	}
	for name, op := range ops {
		var err error
		spawn(e, func(co *stackful.Co) { err = op() })
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("%s after Close: %v, want net.ErrClosed", name, err)
		}
		if _, ferr := unix.FcntlInt(uintptr(num), unix.F_GETFD, 0); ferr != nil {
			t.Fatalf("%s after Close closed fd %d, now another file's: %v", name, num, ferr)
		}
		if st := server.fd.state.Load(); st != closedBit {
			t.Errorf("%s after Close: state %#x, want %#x", name, st, int64(closedBit))
		}
	}
}

// TestCloseWakesQueuedReaders: readers queued for their turn on a conn
// (lock) end with net.ErrClosed when it is closed; none takes its turn on
// the closed conn and waits there for good.
func TestCloseWakesQueuedReaders(t *testing.T) {
	for _, by := range []string{"coroutine", "goroutine"} {
		t.Run(by, func(t *testing.T) {
			e := newEnv(t)
			_, server := pair(t, e)
			const readers = 3
			ended := 0
			var errs []error
			for range readers {
				spawn(e, func(co *stackful.Co) {
					_, err := server.Read(make([]byte, 8))
					errs = append(errs, err)
					ended++
				})
			}
			if by == "coroutine" {
				spawn(e, func(co *stackful.Co) { co.Sleep(10 * time.Millisecond); server.Close() })
			} else {
				go func() { time.Sleep(10 * time.Millisecond); server.Close() }()
			}
			expired := false
			var guard loop.Timer
			e.Loop().Reset(&guard, 2*time.Second, func() { expired = true })
			e.Run(func() bool { return expired || ended == readers })
			e.Loop().CancelTimer(&guard)
			if ended != readers {
				t.Fatalf("%d of %d readers ended after Close", ended, readers)
			}
			for _, err := range errs {
				if !errors.Is(err, net.ErrClosed) {
					t.Errorf("read: %v, want net.ErrClosed", err)
				}
			}
		})
	}
}
