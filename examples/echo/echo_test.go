//go:build linux

package main

import (
	"bytes"
	"io"
	"net"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// TestServerAndClient runs the server and the client of the example on
// 127.0.0.1 for a second and checks the client's report and the server's
// accounting, with one env each and with two.
func TestServerAndClient(t *testing.T) {
	for _, envs := range []int{1, 2} {
		t.Run(strconv.Itoa(envs)+"envs", func(t *testing.T) {
			g0 := runtime.NumGoroutine()
			s, err := startServer(serverConfig{addr: "127.0.0.1:0", workers: 100, loops: envs, out: new(bytes.Buffer)})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			res, err := runClient(clientConfig{addr: s.addr, conns: 20, size: 64, duration: 1500 * time.Millisecond, loops: envs, out: &out})
			if err := s.stop(); err != nil {
				t.Errorf("stop: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Log("\n" + out.String())
			if res.requests < 100 || res.failures != 0 {
				t.Errorf("%d requests, %d failures", res.requests, res.failures)
			}
			if !regexp.MustCompile(`(?m)^time 1: [1-9]\d* req/s, 0 failed$`).Match(out.Bytes()) {
				t.Error("no per-second line for the first second")
			}
			m := regexp.MustCompile(`(?m)^total: (\d+) requests in \S+ with 20 connections: [1-9]\d* req/s, 0 failed$`).FindSubmatch(out.Bytes())
			if m == nil || string(m[1]) != strconv.FormatInt(res.requests, 10) {
				t.Errorf("no total line matching the result")
			}
			if s.stats.accepted != 20 || s.stats.rejected != 0 {
				t.Errorf("server accepted %d, rejected %d; want 20, 0", s.stats.accepted, s.stats.rejected)
			}
			if n := settled(g0); n > g0 {
				t.Errorf("%d goroutines after stop, %d before", n, g0)
			}
		})
	}
}

// TestNoIdleWorker: with fewer workers than connections the server closes
// the extra connections at once, as libco's does, and the client counts
// the failures and reconnects.
func TestNoIdleWorker(t *testing.T) {
	s, err := startServer(serverConfig{addr: "127.0.0.1:0", workers: 2, loops: 1, out: new(bytes.Buffer)})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := runClient(clientConfig{addr: s.addr, conns: 4, size: 16, duration: 300 * time.Millisecond, loops: 1, out: &out})
	if err := s.stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.requests == 0 || res.failures == 0 || s.stats.rejected == 0 {
		t.Errorf("%d requests, %d failures, %d rejected: want all three non-zero", res.requests, res.failures, s.stats.rejected)
	}
}

func settled(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 200 && n > want; i++ {
		time.Sleep(5 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// TestIdleTimeout: a connection that echoes once and then stays silent is
// closed by the server at the idle timeout, and its worker serves again.
func TestIdleTimeout(t *testing.T) {
	const idle = 300 * time.Millisecond
	s, err := startServer(serverConfig{addr: "127.0.0.1:0", workers: 1, loops: 1, idle: idle, out: new(bytes.Buffer)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop()
	for round := range 2 { // the one worker is free again after the timeout
		c, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 4)
		if _, err := c.Write([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
			t.Fatalf("round %d: echo %q %v", round, buf, err)
		}
		t0 := time.Now()
		n, err := c.Read(buf)
		d := time.Since(t0)
		c.Close()
		if n != 0 || err != io.EOF {
			t.Fatalf("round %d: %d bytes, %v; want EOF", round, n, err)
		}
		if d < idle*8/10 || d > idle+3*time.Second {
			t.Errorf("round %d: closed after %v, want %v", round, d, idle)
		}
	}
}
