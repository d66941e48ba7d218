//go:build linux

package stackless

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/cotest"
	"github.com/cogen-go/cogen/runtime/loop"
)

// runUntil runs l until client, run on its own goroutine, returns.
func runUntil(t *testing.T, l *loop.Loop, client func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer func() { close(done); l.Wake() }()
		client()
	}()
	if err := l.Run(func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}); err != nil {
		t.Fatal(err)
	}
}

func serveEcho(fd int) Frame { return &groupEcho{fd: fd, count: func(*loop.Loop) {}} }

func exchange(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Error(err)
		return
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != msg {
		t.Errorf("echo of %q: %q, %v", msg, buf, err)
	}
}

// TestServeTCP: connections are served on the loop; Shutdown waits out the
// limit for an idle connection, then cancels its task, whose handler closes
// it (the client sees end of file). No fd, task or goroutine is left.
func TestServeTCP(t *testing.T) {
	gs, fds := settle(0), cotest.OpenFDs(t)
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	s, err := ServeTCP(l, "tcp4", "127.0.0.1:0", serveEcho)
	if err != nil {
		t.Fatal(err)
	}
	if s.Addr() == nil || s.Addr().Port == 0 {
		t.Fatalf("Addr() = %v, want a bound port", s.Addr())
	}
	var idle net.Conn
	runUntil(t, l, func() {
		c, err := net.Dial("tcp4", s.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		exchange(t, c, "one")
		c.Close()
		if idle, err = net.Dial("tcp4", s.Addr().String()); err != nil {
			t.Error(err)
			return
		}
		exchange(t, idle, "two")
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
	if n := l.Pending(); n != 0 {
		t.Errorf("%d pending on the loop after Shutdown, want 0", n)
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
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	idle.Close()
	if n := cotest.OpenFDs(t); n != fds {
		t.Errorf("%d fds open, want %d", n, fds)
	}
	if n := settle(gs); n > gs {
		t.Errorf("%d goroutines, want %d", n, gs)
	}
}

// TestServeTCPShutdownIdle: a server with no connection shuts down long
// before its limit, including one whose loop never ran.
func TestServeTCPShutdownIdle(t *testing.T) {
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for range 3 {
		s, err := ServeTCP(l, "tcp4", "127.0.0.1:0", serveEcho)
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
	}
	if n := l.Pending(); n != 0 {
		t.Errorf("%d pending, want 0", n)
	}
}

// TestServeTCPMisuse: a nil newHandler panics with the package's prefix; a
// bad address is an error.
func TestServeTCPMisuse(t *testing.T) {
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	func() {
		defer func() {
			if p, _ := recover().(string); !strings.HasPrefix(p, "stackless: ") {
				t.Errorf("panic %q, want one prefixed stackless:", p)
			}
		}()
		ServeTCP(l, "tcp4", "127.0.0.1:0", nil)
	}()
	var op *net.OpError
	if _, err := ServeTCP(l, "tcp4", "no-such-host-or-port", serveEcho); !errors.As(err, &op) {
		t.Errorf("ServeTCP on a bad address: %v, want a *net.OpError", err)
	}
}
