//go:build linux

package stackful_test

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/cotest"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// runUntil runs env's loop until client, run on its own goroutine, returns.
func runUntil(t *testing.T, env *stackful.Env, client func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer func() { close(done); env.Wake() }()
		client()
	}()
	stop := func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
	if err := env.Run(stop); err != nil {
		t.Fatal(err)
	}
}

// TestEnvServeTCP: connections are served on the env; Shutdown waits out
// the limit for an idle connection, then cancels its read, so that its
// handler closes it (the client sees end of file). No fd, coroutine or
// goroutine is left.
func TestEnvServeTCP(t *testing.T) {
	gs, fds := cotest.SettledGoroutines(0), cotest.OpenFDs(t)
	env, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	s, err := env.ServeTCP("tcp4", "127.0.0.1:0", echoFD)
	if err != nil {
		t.Fatal(err)
	}
	if s.Addr() == nil || s.Addr().Port == 0 {
		t.Fatalf("Addr() = %v, want a bound port", s.Addr())
	}
	var idle net.Conn
	runUntil(t, env, func() {
		c, err := net.Dial("tcp4", s.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		ping(t, c, "one")
		c.Close()
		idle, err = net.Dial("tcp4", s.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		ping(t, idle, "two")
	})
	if idle == nil {
		t.FailNow()
	}
	defer idle.Close()
	const limit = 50 * time.Millisecond
	start := time.Now()
	if err := s.Shutdown(limit); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < limit {
		t.Errorf("Shutdown returned after %v with a live connection, want at least %v", d, limit)
	}
	if n := env.Live(); n != 0 {
		t.Errorf("%d coroutines live after Shutdown, want 0", n)
	}
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := idle.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("read from the canceled connection: %d, %v, want end of file", n, err)
	}
	if _, err := net.Dial("tcp4", s.Addr().String()); err == nil {
		t.Error("dial after Shutdown succeeded, want refused")
	}
	if err := s.Shutdown(limit); err != nil {
		t.Errorf("second Shutdown: %v, want nil", err)
	}
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	idle.Close()
	if n := cotest.OpenFDs(t); n != fds {
		t.Errorf("%d fds open, want %d", n, fds)
	}
	if n := cotest.SettledGoroutines(gs); n > gs {
		t.Errorf("%d goroutines, want %d", n, gs)
	}
}

// TestEnvServeTCPShutdownIdle: a server with no connection shuts down at
// once, long before its limit.
func TestEnvServeTCPShutdownIdle(t *testing.T) {
	env, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	s, err := env.ServeTCP("tcp4", "127.0.0.1:0", echoFD)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := s.Shutdown(time.Minute); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Shutdown of an idle server took %v", d)
	}
	if n := env.Live(); n != 0 {
		t.Errorf("%d coroutines live, want 0", n)
	}
}

// TestEnvServeTCPStubborn: a handler that keeps waiting after its wait is
// canceled makes Shutdown report it; Env.Close unwinds it.
func TestEnvServeTCPStubborn(t *testing.T) {
	env, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	s, err := env.ServeTCP("tcp4", "127.0.0.1:0", func(co *stackful.Co, fd int) {
		defer co.Close(fd)
		co.Write(fd, []byte("x"))
		for {
			co.Sleep(time.Hour)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	var c net.Conn
	runUntil(t, env, func() {
		c, err = net.Dial("tcp4", s.Addr().String())
		if err == nil {
			_, err = io.ReadFull(c, make([]byte, 1))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = s.Shutdown(10 * time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "1 connections still running") {
		t.Errorf("Shutdown: %v, want 1 connection still running", err)
	}
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestEnvServeTCPMisuse: a nil handler panics with the package's prefix; a
// bad address is an error.
func TestEnvServeTCPMisuse(t *testing.T) {
	env, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	func() {
		defer func() {
			if p, _ := recover().(string); !strings.HasPrefix(p, "stackful: ") {
				t.Errorf("panic %q, want one prefixed stackful:", p)
			}
		}()
		env.ServeTCP("tcp4", "127.0.0.1:0", nil)
	}()
	var op *net.OpError
	if _, err := env.ServeTCP("tcp4", "no-such-host-or-port", echoFD); !errors.As(err, &op) {
		t.Errorf("ServeTCP on a bad address: %v, want a *net.OpError", err)
	}
}
