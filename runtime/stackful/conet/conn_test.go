//go:build linux

package conet

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// TestConnYields checks that Read, Write, Accept and Dial wait on the loop:
// a ticker keeps running while they wait.
func TestConnYields(t *testing.T) {
	e := newEnv(t)
	ln := listenTCP(t)
	tk := startTicker(e)
	var got []byte
	var ticksAccept, ticksRead int
	done := 0
	spawn(e, func(co *stackful.Co) {
		n0 := tk.N
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		ticksAccept = tk.N - n0
		n0 = tk.N
		got, err = io.ReadAll(c)
		if err != nil {
			t.Error(err)
		}
		ticksRead = tk.N - n0
		done++
	})
	spawn(e, func(co *stackful.Co) {
		// Accept waits through three of the ticker's sleeps (counted, not
		// timed: under load one late iteration fires a 30 ms sleep and the
		// ticker's together).
		for n := tk.N; tk.N < n+3; {
			co.Sleep(time.Millisecond)
		}
		c, err := Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		c.Write([]byte("hello, "))
		for n := tk.N; tk.N < n+3; {
			co.Sleep(time.Millisecond)
		}
		big := bytes.Repeat([]byte("x"), 1<<20) // more than the socket buffers: Write waits
		if n, err := c.Write(big); n != len(big) || err != nil {
			t.Errorf("write: %d, %v", n, err)
		}
		c.Close()
		done++
	})
	runUntil(t, e, 10*time.Second, func() bool { return done == 2 })
	tk.End(t, e)
	if len(got) != 7+1<<20 || string(got[:7]) != "hello, " {
		t.Errorf("read %d bytes", len(got))
	}
	if ticksAccept < 2 || ticksRead < 2 { // a blocked env lets the ticker advance at most once
		t.Errorf("ticker advanced %d times during Accept, %d during the reads", ticksAccept, ticksRead)
	}
}

// TestConnOutsideCoroutines uses the same conns from plain goroutines, and
// mixes both worlds: the server runs in coroutines, the client does not.
func TestConnOutsideCoroutines(t *testing.T) {
	e := newEnv(t)
	ln := listenTCP(t)
	served := false
	spawn(e, func(co *stackful.Co) {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		io.Copy(c, c) // echo until EOF
		served = true
	})
	clientDone := make(chan error, 1)
	go func() {
		clientDone <- func() error {
			c, err := Dial("tcp", ln.Addr().String())
			if err != nil {
				return err
			}
			defer c.Close()
			for i := range 100 {
				msg := []byte{byte(i), 'a', 'b'}
				if _, err := c.Write(msg); err != nil {
					return err
				}
				buf := make([]byte, 3)
				if _, err := io.ReadFull(c, buf); err != nil {
					return err
				}
				if !bytes.Equal(buf, msg) {
					return errors.New("echo mismatch")
				}
			}
			// A plain read deadline.
			t0 := time.Now() // before the deadline is set: took is never less than 30 ms
			c.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
			_, err = c.Read(make([]byte, 1))
			if !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(t0) < 30*time.Millisecond {
				return errors.New("plain read deadline: " + errString(err))
			}
			return c.(*Conn).CloseWrite()
		}()
	}()
	runUntil(t, e, 10*time.Second, func() bool { return served })
	if err := <-clientDone; err != nil {
		t.Fatal(err)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestDeadlines covers read, write and accept deadlines in coroutines,
// including deadlines changed while a call waits, by another coroutine and
// by another goroutine.
func TestDeadlines(t *testing.T) {
	e := newEnv(t)
	client, server := pair(t, e)
	ln := listenTCP(t)
	isTimeout := func(err error) bool {
		var ne net.Error
		return errors.Is(err, os.ErrDeadlineExceeded) && errors.As(err, &ne) && ne.Timeout()
	}
	type result struct {
		err  error
		took time.Duration
	}
	run := func(call func() error, meanwhile func(co *stackful.Co)) result {
		var r *result
		spawn(e, func(co *stackful.Co) {
			t0 := time.Now()
			err := call()
			r = &result{err, time.Since(t0)}
		})
		if meanwhile != nil {
			spawn(e, meanwhile)
		}
		runUntil(t, e, 10*time.Second, func() bool { return r != nil })
		return *r
	}
	// Each deadline is set by the coroutine that waits for it, after run
	// took its start time: set before the coroutine first ran, a late
	// start on a busy machine would eat into it (a write that starts after
	// its deadline writes nothing). Upper bounds are generous: a call that
	// should not wait fails the test only by waiting a second.
	read := func() error { _, err := server.Read(make([]byte, 8)); return err }
	withDeadline := func(set func(time.Time) error, d time.Duration, call func() error) func() error {
		return func() error {
			if err := set(time.Now().Add(d)); err != nil {
				return err
			}
			return call()
		}
	}

	if r := run(withDeadline(server.SetReadDeadline, 50*time.Millisecond, read), nil); !isTimeout(r.err) || r.took < 50*time.Millisecond {
		t.Errorf("read deadline: %v after %v", r.err, r.took)
	}
	if r := run(read, nil); !isTimeout(r.err) || r.took > time.Second {
		t.Errorf("read after the deadline: %v after %v, want at once", r.err, r.took)
	}

	// Extended while waiting, by a coroutine that runs once the read
	// waits: it sets a 30 ms deadline and then a minute's; the read gets
	// the data sent after the first deadline. (Both are set while the read
	// waits: a 30 ms deadline set by the reader before it reads passes
	// before the read when the reader is descheduled that long, as the
	// write's below did.)
	server.SetReadDeadline(time.Time{})
	r := run(read, func(co *stackful.Co) {
		server.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
		server.SetReadDeadline(time.Now().Add(time.Minute))
		co.Sleep(50 * time.Millisecond)
		client.Write([]byte("late"))
	})
	if r.err != nil || r.took < 50*time.Millisecond {
		t.Errorf("extended deadline: %v after %v", r.err, r.took)
	}

	// Moved to the past while waiting, by a coroutine and by a goroutine.
	server.SetReadDeadline(time.Time{})
	r = run(read, func(co *stackful.Co) {
		co.Sleep(20 * time.Millisecond)
		server.SetReadDeadline(time.Now())
	})
	if !isTimeout(r.err) || r.took > time.Second {
		t.Errorf("deadline set by a coroutine: %v after %v", r.err, r.took)
	}
	server.SetReadDeadline(time.Time{})
	go func() {
		time.Sleep(20 * time.Millisecond)
		server.SetReadDeadline(time.Unix(1, 0))
	}()
	r = run(read, nil)
	if !isTimeout(r.err) || r.took > time.Second {
		t.Errorf("deadline set by a goroutine: %v after %v", r.err, r.took)
	}
	server.SetReadDeadline(time.Time{})

	// Write: fill the buffers. The deadline is set by a coroutine that runs
	// once the writer waits, with the buffers full: set by the writer
	// before its first write, a writer descheduled for the 50 ms between
	// the two (seen under -race beside two CPU hogs at load 11) found the
	// deadline passed and, as a net.Conn does, wrote nothing.
	var wrote int
	r = run(func() (err error) { wrote, err = client.Write(make([]byte, 16<<20)); return err }, func(co *stackful.Co) {
		client.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	})
	if !isTimeout(r.err) || r.took < 50*time.Millisecond || wrote <= 0 || wrote >= 16<<20 {
		t.Errorf("write deadline: %d bytes, %v after %v", wrote, r.err, r.took)
	}

	// Accept.
	r = run(withDeadline(ln.SetDeadline, 50*time.Millisecond, func() error { _, err := ln.Accept(); return err }), nil)
	if !isTimeout(r.err) || r.took < 50*time.Millisecond {
		t.Errorf("accept deadline: %v after %v", r.err, r.took)
	}
}

// TestClose checks that Close wakes waiting calls with net.ErrClosed, from
// a coroutine of the same env and from another goroutine, and that the
// descriptor is really closed.
func TestClose(t *testing.T) {
	for _, by := range []string{"coroutine", "goroutine"} {
		t.Run(by, func(t *testing.T) {
			e := newEnv(t)
			_, server := pair(t, e)
			client, _ := pair(t, e) // its peer never reads
			ln := listenTCP(t)
			var readErr, acceptErr, writeErr error
			n := 0
			spawn(e, func(co *stackful.Co) { _, readErr = server.Read(make([]byte, 8)); n++ })
			spawn(e, func(co *stackful.Co) { _, acceptErr = ln.Accept(); n++ })
			spawn(e, func(co *stackful.Co) { _, writeErr = client.Write(make([]byte, 16<<20)); n++ })
			closeAll := func() {
				server.Close()
				ln.Close()
				client.Close()
			}
			if by == "coroutine" {
				spawn(e, func(co *stackful.Co) { co.Sleep(20 * time.Millisecond); closeAll() })
			} else {
				go func() { time.Sleep(20 * time.Millisecond); closeAll() }()
			}
			runUntil(t, e, 5*time.Second, func() bool { return n == 3 })
			for name, err := range map[string]error{"read": readErr, "accept": acceptErr, "write": writeErr} {
				if !errors.Is(err, net.ErrClosed) {
					t.Errorf("%s: %v, want net.ErrClosed", name, err)
				}
			}
			// The descriptors are closed once the loop has run the
			// submitted unregistrations (a Close from a goroutine shuts
			// the sockets down first, which can wake the calls earlier).
			fds := []*netFD{client.fd, server.fd, ln.fd}
			runUntil(t, e, time.Second, func() bool {
				for _, fd := range fds {
					if fd.state.Load() != closedBit {
						return false
					}
				}
				return true
			})
			for _, fd := range fds {
				if fd.state.Load() != closedBit {
					t.Errorf("fd %d: state %#x, want closed with no reference", fd.sysfd, fd.state.Load())
				}
			}
			if err := server.Close(); !errors.Is(err, net.ErrClosed) {
				t.Errorf("second Close: %v", err)
			}
			if _, err := server.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
				t.Errorf("write after Close: %v", err)
			}
		})
	}
}

// TestHalfCloseAndFaults: CloseWrite, end of stream, reset, refused.
func TestHalfCloseAndFaults(t *testing.T) {
	e := newEnv(t)
	t.Run("closewrite", func(t *testing.T) {
		client, server := pair(t, e)
		var reply []byte
		done := 0
		spawn(e, func(co *stackful.Co) {
			req, err := io.ReadAll(server) // until the client's CloseWrite
			if err != nil {
				t.Error(err)
			}
			server.Write(append([]byte("got "), req...))
			server.Close()
			done++
		})
		spawn(e, func(co *stackful.Co) {
			client.Write([]byte("request"))
			client.CloseWrite()
			reply, _ = io.ReadAll(client)
			done++
		})
		runUntil(t, e, 5*time.Second, func() bool { return done == 2 })
		if string(reply) != "got request" {
			t.Errorf("reply %q", reply)
		}
	})
	t.Run("reset", func(t *testing.T) {
		client, server := pair(t, e)
		var err error
		var first string
		done := false
		spawn(e, func(co *stackful.Co) {
			buf := make([]byte, 8)
			n, _ := server.Read(buf)
			first = string(buf[:n])
			_, err = server.Read(buf)
			done = true
		})
		spawn(e, func(co *stackful.Co) {
			client.Write([]byte("hi"))
			co.Sleep(20 * time.Millisecond)
			client.SetLinger(0)
			client.Close()
		})
		runUntil(t, e, 5*time.Second, func() bool { return done })
		if first != "hi" || !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("read %q, then %v; want hi, ECONNRESET", first, err)
		}
	})
	t.Run("refused", func(t *testing.T) {
		ln := listenTCP(t)
		addr := ln.Addr().String()
		ln.Close()
		var err error
		done := false
		spawn(e, func(co *stackful.Co) { _, err = Dial("tcp", addr); done = true })
		runUntil(t, e, 5*time.Second, func() bool { return done })
		_, outside := Dial("tcp", addr)
		if !errors.Is(err, syscall.ECONNREFUSED) || !errors.Is(outside, syscall.ECONNREFUSED) {
			t.Errorf("dial a closed port: %v in a coroutine, %v outside", err, outside)
		}
	})
}

// TestDialTimeoutAndCancel dials a listener whose queue is full, so the
// connection stays in progress: DialTimeout times out, and cancelling the
// context ends the dial.
func TestDialTimeoutAndCancel(t *testing.T) {
	e := newEnv(t)
	lc := ListenConfig{Backlog: 1}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	// Fill the accept queue (backlog 1 admits two) so that further SYNs
	// are dropped.
	for range 3 {
		d := net.Dialer{Timeout: 100 * time.Millisecond}
		if c, err := d.Dial("tcp", addr); err == nil {
			defer c.Close()
		}
	}
	var timeoutErr, cancelErr, outsideErr error
	var took, cancelTook time.Duration
	n := 0
	tk := startTicker(e)
	spawn(e, func(co *stackful.Co) {
		t0 := time.Now()
		_, timeoutErr = DialTimeout("tcp", addr, 50*time.Millisecond)
		took = time.Since(t0)
		n++
	})
	ctx, cancel := context.WithCancel(context.Background())
	spawn(e, func(co *stackful.Co) {
		t0 := time.Now()
		var d Dialer
		_, cancelErr = d.DialContext(ctx, "tcp", addr)
		cancelTook = time.Since(t0)
		n++
	})
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	runUntil(t, e, 10*time.Second, func() bool { return n == 2 })
	ticks := tk.N
	tk.End(t, e)
	var ne net.Error
	if !errors.As(timeoutErr, &ne) || !ne.Timeout() || took < 50*time.Millisecond || took > 5*time.Second {
		t.Errorf("DialTimeout: %v after %v", timeoutErr, took)
	}
	if !errors.Is(cancelErr, context.Canceled) || cancelTook < 40*time.Millisecond || cancelTook > 900*time.Millisecond {
		t.Errorf("DialContext cancelled: %v after %v", cancelErr, cancelTook)
	}
	if ticks < 2 { // a call that blocked the env lets the ticker advance at most once
		t.Errorf("ticker advanced %d times while the dials waited", ticks)
	}
	_, outsideErr = DialTimeout("tcp", addr, 50*time.Millisecond)
	if !errors.As(outsideErr, &ne) || !ne.Timeout() {
		t.Errorf("DialTimeout outside: %v", outsideErr)
	}
	ctx, cancel = context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	t0 := time.Now()
	var d Dialer
	_, outsideErr = d.DialContext(ctx, "tcp", addr)
	if took := time.Since(t0); !errors.Is(outsideErr, context.Canceled) || took < 40*time.Millisecond || took > 900*time.Millisecond {
		t.Errorf("DialContext outside, cancelled: %v after %v", outsideErr, took)
	}
}

// A conn dialed by a goroutine that is no coroutine (as go-redis's pool
// dials) and then used by coroutines never goes through Go's poller: its
// connect waited with poll(2), so no *os.File holds the descriptor, and
// the coroutines' deadline changes and waits are the loop's alone.
func TestDialOutsideNoGoPoller(t *testing.T) {
	e := newEnv(t)
	ln := listenTCP(t)
	var d Dialer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := d.DialContext(ctx, "tcp", ln.Addr().String()) // on the test's goroutine
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conn := c.(*Conn)
	var got string
	var serr, cerr error
	n := 0
	spawn(e, func(co *stackful.Co) {
		s, err := ln.AcceptConn()
		if err != nil {
			serr = err
			n++
			return
		}
		defer s.Close()
		_, serr = s.Write([]byte("pong"))
		n++
	})
	spawn(e, func(co *stackful.Co) {
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 4)
		var k int
		k, cerr = io.ReadFull(conn, buf)
		got = string(buf[:k])
		n++
	})
	runUntil(t, e, 10*time.Second, func() bool { return n == 2 })
	if serr != nil || cerr != nil || got != "pong" {
		t.Fatalf("server %v, client %v, read %q", serr, cerr, got)
	}
	if conn.fd.file.Load() != nil {
		t.Fatal("the conn's descriptor was given to Go's poller (an *os.File holds it)")
	}
}

// TestConcurrentReaders has two coroutines read one conn: they take turns
// and between them get every byte.
func TestConcurrentReaders(t *testing.T) {
	e := newEnv(t)
	client, server := pair(t, e)
	total := 0
	ended := 0
	for range 2 {
		spawn(e, func(co *stackful.Co) {
			buf := make([]byte, 3)
			for {
				n, err := server.Read(buf)
				total += n
				if err != nil {
					ended++
					return
				}
			}
		})
	}
	spawn(e, func(co *stackful.Co) {
		for range 10 {
			client.Write([]byte("abcdefg"))
			co.Sleep(time.Millisecond)
		}
		client.Close()
	})
	runUntil(t, e, 5*time.Second, func() bool { return ended == 2 || (ended == 1 && total == 70) })
	if total != 70 {
		t.Errorf("read %d bytes, want 70", total)
	}
}
