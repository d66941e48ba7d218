//go:build linux

package main

import (
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if maybeRunChild() {
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSoak runs a short soak of everything and requires a clean summary.
func TestSoak(t *testing.T) {
	d := 3 * time.Second
	if testing.Short() {
		d = time.Second
	}
	r := run(config{d: d, seed: 1, clients: 8, quiet: true}, os.Stderr)
	sum := r.summary()
	t.Log(sum)
	if !r.ok() {
		t.Fatalf("soak failed:\n%s", sum)
	}
	if r.requests == 0 || r.bytes == 0 || r.faults == 0 {
		t.Fatalf("the soak did nothing: %s", sum)
	}
	last := sum[strings.LastIndex(sum, "\n")+1:]
	for _, want := range []string{"lost 0", "leaked 0 (fds 0, goroutines 0, timers 0, tasks 0)", "early wake-ups 0"} {
		if !strings.Contains(last, want) {
			t.Errorf("summary line %q lacks %q", last, want)
		}
	}
}

// TestSoakDetectsCorruption points the echo clients at a server that
// flips a byte now and then: the soak must count the loss and fail.
func TestSoakDetectsCorruption(t *testing.T) {
	ln := serveTest(t, func(c net.Conn) {
		buf := make([]byte, 4096)
		for n := 0; ; n++ {
			k, err := c.Read(buf)
			if err != nil {
				return
			}
			if n%3 == 2 {
				buf[k/2] ^= 0x40
			}
			if _, err := c.Write(buf[:k]); err != nil {
				return
			}
		}
	})
	s := &soak{cfg: config{seed: 2}}
	s.deadline = time.Now().Add(time.Second)
	srv := &servers{targets: []target{{name: "echo/corrupting", addr: ln.Addr().String()}}}
	s.client(srv, 1)
	if s.lost.Load() == 0 || s.failCount() == 0 {
		t.Fatalf("a corrupting server went unnoticed: lost %d, failed checks %d", s.lost.Load(), s.failCount())
	}
}

// TestSoakDetectsHungServer points the clients at a server that accepts
// and never answers: every exchange must fail within its timeout, not hang.
func TestSoakDetectsHungServer(t *testing.T) {
	ln := serveTest(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	s := &soak{cfg: config{seed: 3}}
	s.deadline = time.Now()
	c, err := dial(ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(200 * time.Millisecond))
	start := time.Now()
	if err := s.echoRoundTrip(c, []byte("hello?"), 0); err == nil {
		t.Fatal("a server that never answers passed a round trip")
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("the failed round trip took %v", time.Since(start))
	}
	if s.lost.Load() != int64(len("hello?")) {
		t.Fatalf("lost %d bytes, want %d", s.lost.Load(), len("hello?"))
	}
	c.Close()
}

// serveTest runs handle for each connection accepted on a new 127.0.0.1
// listener until the test ends. The cleanup closes the listener and every
// connection and waits for their goroutines: TestSoak counts goroutines
// against a baseline taken as it starts, and under -count a goroutine of
// an earlier test that ended during the soak made the count -1 (the
// server's io.Copy here, which ended when the client closed, after the
// test had returned).
func serveTest(t *testing.T, handle func(net.Conn)) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		conns  []net.Conn
		closed bool
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if closed {
				mu.Unlock()
				c.Close()
				continue // the next Accept fails: the listener is closed
			}
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		closed = true
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln
}
