//go:build linux

package stackful_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/cotest"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// uringEnv returns an env on an io_uring loop, or skips the test where
// the loop has no completion I/O.
func uringEnv(t *testing.T) *stackful.Env {
	t.Helper()
	l, err := loop.NewBackend(loop.BackendUring)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Completion() {
		l.Close()
		t.Skip("no completion I/O on this backend:", l.Backend())
	}
	env := stackful.NewEnvOn(l)
	t.Cleanup(func() { env.Close(); l.Close() }) // a second Close of either does nothing
	return env
}

// closeEnv closes env and its loop, which NewEnvOn leaves to its caller.
func closeEnv(t *testing.T, env *stackful.Env) {
	t.Helper()
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	if err := env.Loop().Close(); err != nil {
		t.Fatal(err)
	}
}

// inCompletion reports whether fd is in the loop's completion mode.
func inCompletion(co *stackful.Co, fd int) bool {
	f := co.Env().Loop().Lookup(fd)
	return f != nil && f.InCompletion()
}

// TestServeTCPCompletion: on io_uring, ServeTCPCompletion's connections
// are in completion mode (the loop receives and sends; the handler makes
// no read(2) or write(2)), ServeTCP's stay on readiness, and both
// listeners are served by a multishot accept. Through the completion
// server an echo echoes small and large messages, and a handler that
// writes more than the socket and the send queue hold and then closes
// delivers every byte before the end of the stream. No fd, coroutine or
// goroutine is left.
func TestServeTCPCompletion(t *testing.T) {
	gs, fds := runtime.NumGoroutine(), cotest.OpenFDs(t)
	env := uringEnv(t)
	data := bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstuv"), 64<<10) // 2 MiB
	var comp, bulkComp, plainComp []bool
	echo, err := env.ServeTCPCompletion("tcp4", "127.0.0.1:0", func(co *stackful.Co, fd int) {
		comp = append(comp, inCompletion(co, fd))
		echoFD(co, fd)
	})
	if err != nil {
		t.Fatal(err)
	}
	bulk, err := env.ServeTCPCompletion("tcp4", "127.0.0.1:0", func(co *stackful.Co, fd int) {
		bulkComp = append(bulkComp, inCompletion(co, fd))
		if _, err := co.Write(fd, data); err != nil {
			t.Error(err)
		}
		co.Close(fd)
	})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := env.ServeTCP("tcp4", "127.0.0.1:0", func(co *stackful.Co, fd int) {
		plainComp = append(plainComp, inCompletion(co, fd))
		echoFD(co, fd)
	})
	if err != nil {
		t.Fatal(err)
	}
	before := env.Loop().Stats().Polls
	runUntil(t, env, func() {
		for _, s := range []*stackful.Server{echo, plain} {
			c, err := net.Dial("tcp4", s.Addr().String())
			if err != nil {
				t.Error(err)
				return
			}
			for _, m := range []string{"a", "hello", string(data[:100000])} {
				c.SetDeadline(time.Now().Add(10 * time.Second))
				ping(t, c, m)
			}
			c.Close()
		}
		c, err := net.Dial("tcp4", bulk.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		got, err := io.ReadAll(c)
		c.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("bulk: %d bytes, %v; want %d", len(got), err, len(data))
		}
	})
	if env.Loop().Stats().Polls == before {
		t.Error("the loop never waited")
	}
	if len(comp) != 1 || !comp[0] || len(bulkComp) != 1 || !bulkComp[0] {
		t.Errorf("ServeTCPCompletion's connections in completion mode: %v %v, want [true] [true]", comp, bulkComp)
	}
	if len(plainComp) != 1 || plainComp[0] {
		t.Errorf("ServeTCP's connection in completion mode: %v, want [false]", plainComp)
	}
	for _, s := range []*stackful.Server{echo, bulk, plain} {
		if f := env.Loop().Lookup(stackful.ServerListenFD(s)); f == nil || !f.InCompletion() {
			t.Errorf("listener %v is not served by a multishot accept", s.Addr())
		}
		if err := s.Shutdown(time.Second); err != nil {
			t.Error(err)
		}
	}
	closeEnv(t, env)
	if n := cotest.OpenFDs(t); n != fds {
		t.Errorf("%d fds open, want %d", n, fds)
	}
	if n := cotest.SettledGoroutines(gs); n > gs {
		t.Errorf("%d goroutines, want %d", n, gs)
	}
}

// TestServeTCPCompletionDeadline: in completion mode a read with a timeout
// times out with loop.ErrTimeout while the peer is silent, and the
// connection goes on working: the bytes that arrive later are read, and
// a write with a timeout that the loop can queue returns at once.
func TestServeTCPCompletionDeadline(t *testing.T) {
	env := uringEnv(t)
	var timedOut, comp bool
	var got string
	s, err := env.ServeTCPCompletion("tcp4", "127.0.0.1:0", func(co *stackful.Co, fd int) {
		defer co.Close(fd)
		comp = inCompletion(co, fd)
		buf := make([]byte, 16)
		_, err := co.ReadTimeout(fd, buf, 30*time.Millisecond)
		timedOut = errors.Is(err, loop.ErrTimeout)
		if _, err := co.WriteTimeout(fd, []byte("late?"), 0); err != nil {
			t.Errorf("write after the timeout: %v", err)
			return
		}
		n, err := co.ReadTimeout(fd, buf, 10*time.Second)
		if err != nil {
			t.Errorf("read after the timeout: %v", err)
			return
		}
		got = string(buf[:n])
	})
	if err != nil {
		t.Fatal(err)
	}
	runUntil(t, env, func() {
		c, err := net.Dial("tcp4", s.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 5)
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "late?" {
			t.Errorf("client read %q, %v; want late?", buf, err)
			return
		}
		c.Write([]byte("now"))
		if n, err := c.Read(buf); err != io.EOF {
			t.Errorf("client read %d, %v; want end of file", n, err)
		}
	})
	if !comp || !timedOut || got != "now" {
		t.Errorf("completion mode %v, timed out %v, then read %q; want true, true, now", comp, timedOut, got)
	}
	if err := s.Shutdown(time.Second); err != nil {
		t.Error(err)
	}
}

// TestServeTCPCompletionCloseWhileReading: a coroutine closes the fd that
// another one waits to read in completion mode: the reader wakes with
// loop.ErrFDClosed, the peer reads the end of the stream after what was
// written before the close, and no descriptor is left.
func TestServeTCPCompletionCloseWhileReading(t *testing.T) {
	fds := cotest.OpenFDs(t)
	env := uringEnv(t)
	var readErr error
	var comp bool
	s, err := env.ServeTCPCompletion("tcp4", "127.0.0.1:0", func(co *stackful.Co, fd int) {
		comp = inCompletion(co, fd)
		closer := co.Env().Create(func(cc *stackful.Co) {
			cc.Sleep(20 * time.Millisecond)
			cc.Write(fd, []byte("bye"))
			cc.Close(fd)
		}, nil)
		closer.Resume()
		_, readErr = co.Read(fd, make([]byte, 16))
	})
	if err != nil {
		t.Fatal(err)
	}
	runUntil(t, env, func() {
		c, err := net.Dial("tcp4", s.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		got, err := io.ReadAll(c)
		if err != nil || string(got) != "bye" {
			t.Errorf("client read %q, %v; want bye then end of file", got, err)
		}
	})
	if !comp || !errors.Is(readErr, loop.ErrFDClosed) {
		t.Errorf("completion mode %v, read error %v; want true, %v", comp, readErr, loop.ErrFDClosed)
	}
	if err := s.Shutdown(time.Second); err != nil {
		t.Error(err)
	}
	closeEnv(t, env)
	if n := cotest.OpenFDs(t); n != fds {
		t.Errorf("%d fds open, want %d", n, fds)
	}
}

// TestServeTCPCompletionHalfClose: both directions of a half-close in
// completion mode. The handler writes more than the socket holds and
// half-closes with the loop's ShutdownWrite, which waits for the sends:
// the client reads every byte, then end of file. The client's answer
// still reaches the handler, and its own half-close reads as end of file
// after it.
func TestServeTCPCompletionHalfClose(t *testing.T) {
	env := uringEnv(t)
	data := bytes.Repeat([]byte("half-close "), 100000) // 1.1 MB
	var in []byte
	var comp bool
	s, err := env.ServeTCPCompletion("tcp4", "127.0.0.1:0", func(co *stackful.Co, fd int) {
		defer co.Close(fd)
		comp = inCompletion(co, fd)
		if _, err := co.Write(fd, data); err != nil {
			t.Error(err)
			return
		}
		if err := co.Env().Loop().ShutdownWrite(fd); err != nil {
			t.Error(err)
			return
		}
		buf := make([]byte, 4096)
		for {
			n, err := co.ReadTimeout(fd, buf, 10*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			if n == 0 {
				break
			}
			in = append(in, buf[:n]...)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	runUntil(t, env, func() {
		c, err := net.DialTCP("tcp4", nil, s.Addr())
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		got, err := io.ReadAll(c)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("client read %d bytes, %v; want %d then end of file", len(got), err, len(data))
		}
		c.Write([]byte("thanks"))
		c.CloseWrite()
		if n, err := c.Read(make([]byte, 1)); err != io.EOF {
			t.Errorf("client read %d, %v after its half-close; want end of file", n, err)
		}
	})
	if !comp || string(in) != "thanks" {
		t.Errorf("completion mode %v, read %q; want true, thanks", comp, in)
	}
	if err := s.Shutdown(time.Second); err != nil {
		t.Error(err)
	}
}

// TestGroupServeTCPCompletion: a group on io_uring (COGEN_LOOP_BACKEND)
// serves ServeTCPCompletion's connections in completion mode on every
// env; Shutdown leaves no descriptor or goroutine.
func TestGroupServeTCPCompletion(t *testing.T) {
	t.Setenv(loop.BackendEnv, "uring")
	gs, fds := runtime.NumGoroutine(), cotest.OpenFDs(t)
	g, err := stackful.NewGroup(2)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Env(0).Loop().Completion() {
		g.Shutdown(time.Second)
		t.Skip("no completion I/O on this backend:", g.Env(0).Loop().Backend())
	}
	modes := make(chan bool, 64)
	addr, err := g.ServeTCPCompletion("tcp4", "127.0.0.1:0", func(co *stackful.Co, fd int) {
		modes <- inCompletion(co, fd)
		echoFD(co, fd)
	})
	if err != nil {
		t.Fatal(err)
	}
	const conns = 16
	for i := range conns {
		c, err := net.Dial("tcp4", addr.String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		ping(t, c, string(rune('a'+i)))
		c.Close()
	}
	for range conns {
		if !<-modes {
			t.Error("a connection was not in completion mode")
		}
	}
	if err := g.Shutdown(time.Second); err != nil {
		t.Fatal(err)
	}
	if n := cotest.OpenFDs(t); n != fds {
		t.Errorf("%d fds open, want %d", n, fds)
	}
	if n := cotest.SettledGoroutines(gs); n > gs {
		t.Errorf("%d goroutines, want %d", n, gs)
	}
}

// TestServeTCPCompletionShutdown: Shutdown of a ServeTCPCompletion server
// with a connection idle in a read cancels that read once the limit has
// passed; the handler's error path closes the connection after sending
// what it had written, and the client reads that, then end of file. No
// fd, coroutine or goroutine is left.
func TestServeTCPCompletionShutdown(t *testing.T) {
	gs, fds := runtime.NumGoroutine(), cotest.OpenFDs(t)
	env := uringEnv(t)
	var readErr error
	var comp bool
	s, err := env.ServeTCPCompletion("tcp4", "127.0.0.1:0", func(co *stackful.Co, fd int) {
		defer co.Close(fd)
		comp = inCompletion(co, fd)
		co.Write(fd, []byte("hi"))
		_, readErr = co.Read(fd, make([]byte, 16))
		co.Write(fd, []byte(" bye"))
	})
	if err != nil {
		t.Fatal(err)
	}
	var c net.Conn
	runUntil(t, env, func() {
		if c, err = net.Dial("tcp4", s.Addr().String()); err != nil {
			t.Error(err)
			return
		}
		buf := make([]byte, 2)
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Error(err)
		}
	})
	if c == nil {
		t.FailNow()
	}
	defer c.Close()
	if err := s.Shutdown(20 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if !comp || !errors.Is(readErr, loop.ErrCanceled) {
		t.Errorf("completion mode %v, read error %v; want true, %v", comp, readErr, loop.ErrCanceled)
	}
	if n := env.Live(); n != 0 {
		t.Errorf("%d coroutines live after Shutdown, want 0", n)
	}
	// The handler's last write was submitted as Shutdown's last loop
	// iteration ended; the close waits for it, at the latest until the
	// loop closes.
	closeEnv(t, env)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if got, err := io.ReadAll(c); err != nil || string(got) != " bye" {
		t.Errorf("client read %q, %v after Shutdown; want \" bye\" then end of file", got, err)
	}
	c.Close()
	if n := cotest.OpenFDs(t); n != fds {
		t.Errorf("%d fds open, want %d", n, fds)
	}
	if n := cotest.SettledGoroutines(gs); n > gs {
		t.Errorf("%d goroutines, want %d", n, gs)
	}
}
