//go:build linux

package conet

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) {
	if os.Getenv(emfileChild) != "" {
		runEMFILEChild()
		return
	}
	os.Exit(m.Run())
}

// echoHandler echoes until end of stream or an error, then closes.
func echoHandler(co *stackful.Co, c net.Conn) {
	defer c.Close()
	io.Copy(c, c)
}

// TestReusePort runs N envs, each on its own goroutine locked to its
// thread, each accepting on its own SO_REUSEPORT listener on one port; the
// kernel spreads the connections among them.
func TestReusePort(t *testing.T) {
	const envs, conns = 2, 200
	first, err := ListenReusePort("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := first.Addr().String()
	served := make([]atomic.Int64, envs)
	lns := []net.Listener{first}
	for len(lns) < envs {
		ln, err := ListenReusePort("tcp4", addr)
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
	}
	var wg sync.WaitGroup
	for i, ln := range lns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			e, err := stackful.NewEnv()
			if err != nil {
				t.Error(err)
				return
			}
			defer e.Close()
			stopped := false
			spawn(e, func(co *stackful.Co) {
				Serve(co, ln, func(co *stackful.Co, c net.Conn) {
					served[i].Add(1)
					echoHandler(co, c)
				}, nil)
				stopped = true
			})
			e.Run(func() bool { return stopped && e.Live() == 0 })
		}()
	}
	for i := range conns {
		c, err := net.Dial("tcp4", addr)
		if err != nil {
			t.Fatal(err)
		}
		msg := fmt.Sprintf("conn %d", i)
		c.Write([]byte(msg))
		buf := make([]byte, len(msg))
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != msg {
			t.Fatalf("conn %d: %q, %v", i, buf, err)
		}
		c.Close()
	}
	for _, ln := range lns {
		ln.Close() // from this goroutine: handed to each env's loop
	}
	wg.Wait()
	total := int64(0)
	for i := range served {
		n := served[i].Load()
		total += n
		if n == 0 {
			t.Errorf("env %d served no connection", i)
		}
	}
	if total != conns {
		t.Errorf("served %d connections, want %d", total, conns)
	}
}

// TestManyConnections opens and closes 10,000 connections through Serve
// and Dial, half closed gracefully and half reset, and checks that no
// descriptor and no goroutine is left.
func TestManyConnections(t *testing.T) {
	const conns, parallel = 10000, 100
	fds0, g0 := openFDs(t), runtime.NumGoroutine()
	func() {
		e := newEnv(t)
		ln := listenTCP(t)
		stopped := false
		spawn(e, func(co *stackful.Co) {
			Serve(co, ln, echoHandler, nil)
			stopped = true
		})
		finished := 0
		var firstErr error
		for i := range parallel {
			spawn(e, func(co *stackful.Co) {
				defer func() { finished++ }()
				buf := make([]byte, 4)
				for j := i; j < conns; j += parallel {
					c, err := Dial("tcp", ln.Addr().String())
					if err != nil {
						firstErr = err
						return
					}
					c.Write([]byte("ping"))
					if _, err := io.ReadFull(c, buf); err != nil {
						firstErr = err
					}
					if j%2 == 1 {
						c.(*Conn).SetLinger(0)
					}
					c.Close()
				}
			})
		}
		runUntil(t, e, 120*time.Second, func() bool { return finished == parallel })
		if firstErr != nil {
			t.Fatal(firstErr)
		}
		ln.Close()
		runUntil(t, e, 10*time.Second, func() bool { return stopped && e.Live() == 0 })
		e.Close()
	}()
	if n := openFDs(t); n != fds0 {
		t.Errorf("%d descriptors open, %d before", n, fds0)
	}
	if n := settledGoroutines(g0); n > g0 {
		t.Errorf("%d goroutines, %d before", n, g0)
	}
}

const emfileChild = "CONET_EMFILE_CHILD"

// TestAcceptBacksOffOnEMFILE runs a server with a low descriptor limit in
// a child process and connects more clients than it has descriptors for:
// Serve must back off (few accept calls, little CPU) instead of spinning
// on the pending connections, and serve them once descriptors are free.
func TestAcceptBacksOffOnEMFILE(t *testing.T) {
	if testing.Short() {
		t.Skip("takes a few seconds")
	}
	if portablePoller {
		t.Skip("the portable poller holds a duplicate of every registered descriptor: the child runs out at registration, not at accept")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), emfileChild+"=1")
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	kill := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer kill.Stop()
	out := bufio.NewScanner(stdout)
	line := func() string {
		if !out.Scan() {
			t.Fatalf("child ended: %v", out.Err())
		}
		return out.Text()
	}
	var addr string
	var limit int
	if _, err := fmt.Sscanf(line(), "listening %s %d", &addr, &limit); err != nil {
		t.Fatal(err)
	}

	// More connections than the child has descriptors: the ones it cannot
	// accept stay in its listen queue.
	conns := make([]net.Conn, 3*limit)
	for i := range conns {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte("ping"))
		conns[i] = c
	}
	fmt.Fprintln(stdin, "measure")
	var accepts, emfiles int
	var cpu time.Duration
	if _, err := fmt.Sscanf(line(), "stats %d %d %d", &accepts, &emfiles, &cpu); err != nil {
		t.Fatal(err)
	}
	t.Logf("in one second out of descriptors: %d accept calls, %d EMFILE, %v CPU", accepts, emfiles, cpu)
	if emfiles == 0 {
		t.Fatal("the child never ran out of descriptors")
	}
	if accepts > 30 || cpu > 300*time.Millisecond {
		t.Errorf("accept spun: %d calls, %v CPU in one second", accepts, cpu)
	}

	// Free descriptors: every connection gets served.
	for _, c := range conns[:limit] {
		c.Close()
	}
	buf := make([]byte, 4)
	for i, c := range conns[limit:] {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
			t.Fatalf("connection %d after descriptors were freed: %q, %v", limit+i, buf, err)
		}
		c.Close()
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("child: %v", err)
	}
}

// countingListener counts Accept calls and EMFILE errors.
type countingListener struct {
	net.Listener
	accepts, emfiles atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	l.accepts.Add(1)
	c, err := l.Listener.Accept()
	if err != nil && (strings.Contains(err.Error(), "too many open files")) {
		l.emfiles.Add(1)
	}
	return c, err
}

// runEMFILEChild is the child of TestAcceptBacksOffOnEMFILE.
func runEMFILEChild() {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	e, err := stackful.NewEnv()
	if err != nil {
		fail(err)
	}
	ln0, err := Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	ln := &countingListener{Listener: ln0}
	ents, _ := os.ReadDir("/proc/self/fd")
	const room = 8
	limit := uint64(len(ents) + room)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: limit, Max: limit}); err != nil {
		fail(err)
	}
	fmt.Printf("listening %s %d\n", ln0.Addr(), room)
	stopped := false
	spawn(e, func(co *stackful.Co) {
		Serve(co, ln, echoHandler, nil)
		stopped = true
	})
	go func() {
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			if in.Text() != "measure" {
				continue
			}
			a0, m0, c0 := ln.accepts.Load(), ln.emfiles.Load(), cpuTime()
			time.Sleep(time.Second)
			fmt.Printf("stats %d %d %d\n", ln.accepts.Load()-a0, ln.emfiles.Load()-m0, cpuTime()-c0)
		}
		e.Loop().Submit(func() { ln.Close() })
	}()
	e.Run(func() bool { return stopped && e.Live() == 0 })
	e.Close()
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestServeConnsBound: with a bound of 3, a 4th connection is not accepted
// (its handler does not run) until one of the first three closes; then it
// is served.
func TestServeConnsBound(t *testing.T) {
	const bound = 3
	e := newEnv(t)
	ln := listenTCP(t)
	live, peak, served := 0, 0, 0
	stopped := false
	spawn(e, func(co *stackful.Co) {
		ServeConns(co, ln, bound, func(co *stackful.Co, c net.Conn) {
			live++
			peak = max(peak, live)
			served++
			echoHandler(co, c)
			live--
		}, nil)
		stopped = true
	})
	var clients []net.Conn
	for range bound + 1 {
		c, err := net.Dial("tcp", ln.Addr().String()) // completes in the kernel's backlog
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		clients = append(clients, c)
	}
	ticking := true
	spawn(e, func(co *stackful.Co) { // the loop looks at the stop conditions every 5 ms
		for ticking {
			co.Sleep(5 * time.Millisecond)
		}
	})
	deadline := time.Now().Add(300 * time.Millisecond)
	runUntil(t, e, 5*time.Second, func() bool { return time.Now().After(deadline) })
	if served != bound {
		t.Fatalf("%d handlers ran with a bound of %d", served, bound)
	}
	clients[0].Close()
	runUntil(t, e, 5*time.Second, func() bool { return served == bound+1 })
	go func() { // the 4th connection is served: it echoes
		clients[bound].Write([]byte("ping"))
	}()
	buf := make([]byte, 4)
	var done atomic.Bool
	go func() {
		clients[bound].SetReadDeadline(time.Now().Add(5 * time.Second))
		io.ReadFull(clients[bound], buf)
		done.Store(true)
	}()
	runUntil(t, e, 5*time.Second, done.Load)
	if string(buf) != "ping" || peak != bound {
		t.Fatalf("echoed %q, peak %d live handlers", buf, peak)
	}
	for _, c := range clients {
		c.Close()
	}
	ln.Close()
	ticking = false
	runUntil(t, e, 5*time.Second, func() bool { return stopped && e.Live() == 0 })
}
