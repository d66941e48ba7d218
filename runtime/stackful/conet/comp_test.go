//go:build linux

package conet

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// TestServeCompletion: on io_uring, ServeCompletion's conns are served in
// the loop's completion mode and keep the net.Conn contract within their
// env - echo, a read deadline that expires and a read after it, CloseWrite
// after 1 MB of writes (the peer reads all of it, then end of file),
// Close by another coroutine and by a plain goroutine while a read waits
// (net.ErrClosed; the peer reads what was written first) - while the calls
// that cannot reach the loop's buffers fail with ErrCompletion: Read from
// a plain goroutine, SyscallConn's Read (its Control works). No
// descriptor or goroutine is left.
func TestServeCompletion(t *testing.T) {
	g0, fds0 := runtime.NumGoroutine(), openFDs(t)
	func() {
		l, err := loop.NewBackend(loop.BackendUring)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if !l.Completion() {
			t.Skip("no completion I/O on this backend:", l.Backend())
		}
		e := stackful.NewEnvOn(l)
		defer e.Close()
		inComp := func(c net.Conn) bool {
			fd := c.(*Conn).fd
			f := l.Lookup(fd.loopFD())
			return fd.comp && f != nil && f.InCompletion()
		}
		var modes []bool
		data := bytes.Repeat([]byte("completion "), 100000) // 1.1 MB
		var deadlineErr, closedErr, plainClosedErr, plainErr, rawErr, controlErr error
		var afterDeadline, thanks string
		handlers := []func(hc *stackful.Co, c net.Conn){
			func(hc *stackful.Co, c net.Conn) { // echo
				defer c.Close()
				modes = append(modes, inComp(c))
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					if _, err := c.Write(buf[:n]); err != nil {
						t.Error(err)
						return
					}
				}
			},
			func(hc *stackful.Co, c net.Conn) { // deadline
				defer c.Close()
				modes = append(modes, inComp(c))
				buf := make([]byte, 16)
				c.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
				_, deadlineErr = c.Read(buf)
				c.SetReadDeadline(time.Time{})
				c.Write([]byte("timed out"))
				n, _ := c.Read(buf)
				afterDeadline = string(buf[:n])
			},
			func(hc *stackful.Co, c net.Conn) { // bulk, then CloseWrite
				defer c.Close()
				modes = append(modes, inComp(c))
				if _, err := c.Write(data); err != nil {
					t.Error(err)
				}
				if err := c.(*Conn).CloseWrite(); err != nil {
					t.Error(err)
				}
				b, _ := io.ReadAll(c)
				thanks = string(b)
			},
			func(hc *stackful.Co, c net.Conn) { // outside the env, and Close from a plain goroutine
				modes = append(modes, inComp(c))
				rc, err := c.(*Conn).SyscallConn()
				if err != nil {
					t.Error(err)
				}
				rawErr = rc.Read(func(uintptr) bool { return true })
				controlErr = rc.Control(func(uintptr) {})
				var done atomic.Bool
				go func() {
					_, plainErr = c.Read(make([]byte, 4))
					done.Store(true)
				}()
				for !done.Load() {
					hc.Sleep(time.Millisecond)
				}
				c.Write([]byte("ok"))
				go func() {
					time.Sleep(20 * time.Millisecond)
					c.Close()
				}()
				_, plainClosedErr = c.Read(make([]byte, 4))
			},
			func(hc *stackful.Co, c net.Conn) { // Close by another coroutine
				modes = append(modes, inComp(c))
				hc.Env().Create(func(cc *stackful.Co) {
					cc.EnableHook()
					cc.Sleep(20 * time.Millisecond)
					c.Write([]byte("bye"))
					c.Close()
				}, nil).Resume()
				_, closedErr = c.Read(make([]byte, 4))
			},
		}
		var lns []*Listener
		for _, h := range handlers {
			ln, err := Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			lns = append(lns, ln.(*Listener))
			spawn(e, func(co *stackful.Co) { ServeCompletion(co, ln, 0, h, nil) })
		}
		var clientDone atomic.Bool
		go func() {
			defer func() { clientDone.Store(true); e.Wake() }()
			dial := func(i int) net.Conn {
				c, err := net.Dial("tcp4", lns[i].Addr().String())
				if err != nil {
					t.Error(err)
					return nil
				}
				c.SetDeadline(time.Now().Add(10 * time.Second))
				return c
			}
			readAll := func(c net.Conn, want string) {
				got, err := io.ReadAll(c)
				if err != nil || string(got) != want {
					t.Errorf("client read %q, %v; want %q then end of file", got, err, want)
				}
				c.Close()
			}
			if c := dial(0); c != nil {
				for _, m := range []string{"a", "hello", string(data[:200000])} {
					c.Write([]byte(m))
					buf := make([]byte, len(m))
					if _, err := io.ReadFull(c, buf); err != nil || string(buf) != m {
						t.Errorf("echo of %d bytes: %d back, %v", len(m), len(buf), err)
					}
				}
				c.Close()
			}
			if c := dial(1); c != nil {
				buf := make([]byte, 9)
				io.ReadFull(c, buf)
				c.Write([]byte("later"))
				readAll(c, "")
			}
			if c := dial(2); c != nil {
				got, err := io.ReadAll(c)
				if err != nil || !bytes.Equal(got, data) {
					t.Errorf("bulk: %d bytes, %v; want %d then end of file", len(got), err, len(data))
				}
				c.Write([]byte("thanks"))
				c.(*net.TCPConn).CloseWrite()
				readAll(c, "")
			}
			if c := dial(3); c != nil {
				readAll(c, "ok")
			}
			if c := dial(4); c != nil {
				readAll(c, "bye")
			}
		}()
		runUntil(t, e, 20*time.Second, func() bool { return clientDone.Load() && e.Live() == len(lns) })
		for _, ln := range lns {
			ln.Close()
		}
		runUntil(t, e, 5*time.Second, func() bool { return e.Live() == 0 })
		if len(modes) != len(handlers) {
			t.Fatalf("%d handlers ran, want %d", len(modes), len(handlers))
		}
		for i, m := range modes {
			if !m {
				t.Errorf("handler %d: the conn was not in completion mode", i)
			}
		}
		if !errors.Is(deadlineErr, os.ErrDeadlineExceeded) || afterDeadline != "later" {
			t.Errorf("read past the deadline: %v, then %q; want %v, then later", deadlineErr, afterDeadline, os.ErrDeadlineExceeded)
		}
		if thanks != "thanks" {
			t.Errorf("after CloseWrite the handler read %q, want thanks", thanks)
		}
		if !errors.Is(rawErr, ErrCompletion) || controlErr != nil {
			t.Errorf("SyscallConn: Read %v, Control %v; want %v, nil", rawErr, controlErr, ErrCompletion)
		}
		if !errors.Is(plainErr, ErrCompletion) {
			t.Errorf("Read from a plain goroutine: %v, want %v", plainErr, ErrCompletion)
		}
		if !errors.Is(plainClosedErr, net.ErrClosed) || !errors.Is(closedErr, net.ErrClosed) {
			t.Errorf("read while closed by a goroutine: %v, by a coroutine: %v; want %v", plainClosedErr, closedErr, net.ErrClosed)
		}
	}()
	if n := openFDs(t); n != fds0 {
		t.Errorf("%d descriptors open, %d before", n, fds0)
	}
	if n := settledGoroutines(g0); n > g0 {
		t.Errorf("%d goroutines, %d before", n, g0)
	}
}

// TestServeCompletionOtherEnv: a hooked coroutine of another env that
// reads or writes a conn in completion mode fails with ErrCompletion: the
// conn does not migrate (its bytes are in the serving loop's buffers) and
// does not fall back to Go's poller; the serving env goes on using it.
func TestServeCompletionOtherEnv(t *testing.T) {
	l, err := loop.NewBackend(loop.BackendUring)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !l.Completion() {
		t.Skip("no completion I/O on this backend:", l.Backend())
	}
	e := stackful.NewEnvOn(l)
	defer e.Close()
	ln := listenTCP(t)
	var conn net.Conn
	var release loop.Cond
	var done, released bool
	spawn(e, func(co *stackful.Co) {
		ServeCompletion(co, ln, 0, func(hc *stackful.Co, c net.Conn) {
			defer c.Close()
			conn = c
			for !released {
				hc.Wait(&release, -1)
			}
			c.Write([]byte("still mine"))
			done = true
		}, nil)
	})
	client, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	runUntil(t, e, 5*time.Second, func() bool { return conn != nil })
	e2 := newEnv(t)
	var rerr, werr error
	var tried bool
	spawn(e2, func(co *stackful.Co) {
		_, rerr = conn.Read(make([]byte, 4))
		_, werr = conn.Write([]byte("x"))
		tried = true
	})
	runUntil(t, e2, 5*time.Second, func() bool { return tried })
	if !errors.Is(rerr, ErrCompletion) || !errors.Is(werr, ErrCompletion) {
		t.Errorf("from another env: Read %v, Write %v; want %v", rerr, werr, ErrCompletion)
	}
	released = true
	release.Broadcast()
	runUntil(t, e, 5*time.Second, func() bool { return done && e.Live() == 1 })
	client.SetDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 10)
	if _, err := io.ReadFull(client, buf); err != nil || string(buf) != "still mine" {
		t.Errorf("client read %q, %v; want still mine", buf, err)
	}
}
