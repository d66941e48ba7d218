//go:build linux || darwin || freebsd

package conet

import (
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// A Conn is a stream connection (TCP or Unix) on coroutines: a net.Conn
// whose Read and Write, called in a hooked coroutine, wait on the env's
// loop while the env's other coroutines run, and behave as on any net.Conn
// elsewhere. It honours the whole net.Conn contract: deadlines (errors
// satisfy errors.Is(err, os.ErrDeadlineExceeded) and Timeout() is true),
// Close from any coroutine or goroutine, waking pending operations with
// net.ErrClosed, and concurrent use.
type Conn struct {
	fd *netFD
}

var _ net.Conn = (*Conn)(nil)

func newConn(fd *netFD) *Conn { return &Conn{fd: fd} }

// Read implements net.Conn. At end of stream it returns io.EOF.
func (c *Conn) Read(p []byte) (int, error) {
	n, err := c.fd.read(p)
	if err != nil && err != io.EOF {
		err = c.fd.opError("read", err)
	}
	return n, err
}

// Write implements net.Conn: it writes all of p unless an error occurs.
func (c *Conn) Write(p []byte) (int, error) {
	n, err := c.fd.write(p)
	if err != nil {
		err = c.fd.opError("write", err)
	}
	return n, err
}

// Close implements net.Conn.
func (c *Conn) Close() error {
	if err := c.fd.Close(); err != nil {
		return c.fd.opError("close", err)
	}
	return nil
}

// SyscallConn returns a raw network connection (syscall.Conn), for code
// that needs the descriptor itself: a liveness check before reuse, as
// go-redis makes, or a socket option. Its Read and Write call f until it
// reports done, waiting for readiness in between the way the conn's own
// calls do: on the loop in a hooked coroutine (the env's other coroutines
// run meanwhile), in Go's poller elsewhere; the conn's deadlines and Close
// apply. f sees the socket only: bytes the conn holds for its next Read
// (up to 64 that a loop read ahead) are not visible to it.
func (c *Conn) SyscallConn() (syscall.RawConn, error) { return &rawConn{fd: c.fd}, nil }

// CloseWrite shuts down the writing side (shutdown(2) SHUT_WR): the peer
// reads end of stream.
func (c *Conn) CloseWrite() error { return c.shutdown(unix.SHUT_WR) }

// CloseRead shuts down the reading side.
func (c *Conn) CloseRead() error { return c.shutdown(unix.SHUT_RD) }

func (c *Conn) shutdown(how int) error {
	if err := c.fd.incref(); err != nil {
		return c.fd.opError("close", err)
	}
	defer c.fd.decref()
	if c.fd.comp && how == unix.SHUT_WR {
		// After what the loop still sends: on the loop only.
		co := hooked()
		if co == nil || co.Env().Loop() != c.fd.owner.Load() {
			return c.fd.opError("close", ErrCompletion)
		}
		if err := co.Env().Loop().ShutdownWrite(c.fd.lfd); err != nil {
			return c.fd.opError("close", err)
		}
		return nil
	}
	if err := unix.Shutdown(c.fd.sysfd, how); err != nil {
		return c.fd.opError("close", os.NewSyscallError("shutdown", err))
	}
	return nil
}

// LocalAddr implements net.Conn.
func (c *Conn) LocalAddr() net.Addr { return c.fd.laddr }

// RemoteAddr implements net.Conn.
func (c *Conn) RemoteAddr() net.Addr { return c.fd.raddr }

// SetDeadline implements net.Conn. It applies to operations in progress
// too.
func (c *Conn) SetDeadline(t time.Time) error { return c.setDeadline(t, true, true) }

// SetReadDeadline implements net.Conn.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.setDeadline(t, true, false) }

// SetWriteDeadline implements net.Conn.
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.setDeadline(t, false, true) }

func (c *Conn) setDeadline(t time.Time, read, write bool) error {
	if err := c.fd.setDeadline(t, read, write); err != nil {
		return c.fd.opError("set", err)
	}
	return nil
}

// SetNoDelay sets TCP_NODELAY (on by default, as in package net).
func (c *Conn) SetNoDelay(noDelay bool) error {
	return c.setsockopt(unix.IPPROTO_TCP, unix.TCP_NODELAY, boolint(noDelay))
}

// SetKeepAlive sets SO_KEEPALIVE.
func (c *Conn) SetKeepAlive(keepalive bool) error {
	return c.setsockopt(unix.SOL_SOCKET, unix.SO_KEEPALIVE, boolint(keepalive))
}

// SetLinger sets SO_LINGER as net.TCPConn.SetLinger does: sec < 0 is the
// default (close returns at once, data is sent in the background); sec ==
// 0 discards unsent data and resets the connection on Close.
func (c *Conn) SetLinger(sec int) error {
	if err := c.fd.incref(); err != nil {
		return c.fd.opError("set", err)
	}
	defer c.fd.decref()
	l := unix.Linger{}
	if sec >= 0 {
		l = unix.Linger{Onoff: 1, Linger: int32(sec)}
	}
	if err := unix.SetsockoptLinger(c.fd.sysfd, unix.SOL_SOCKET, unix.SO_LINGER, &l); err != nil {
		return c.fd.opError("set", os.NewSyscallError("setsockopt", err))
	}
	return nil
}

func (c *Conn) setsockopt(level, opt, v int) error {
	if err := c.fd.incref(); err != nil {
		return c.fd.opError("set", err)
	}
	defer c.fd.decref()
	if err := unix.SetsockoptInt(c.fd.sysfd, level, opt, v); err != nil {
		return c.fd.opError("set", os.NewSyscallError("setsockopt", err))
	}
	return nil
}

func boolint(b bool) int {
	if b {
		return 1
	}
	return 0
}

// read reads once: in a hooked coroutine through the loop's TryReadStream
// (TryRead for record-oriented sockets), else through Go's poller. A stream
// at its end reads io.EOF.
func (fd *netFD) read(p []byte) (int, error) {
	if err := fd.incref(); err != nil {
		return 0, err
	}
	defer fd.decref()
	if len(p) == 0 {
		return 0, nil
	}
	if n := fd.takeCarry(p); n > 0 {
		return n, nil
	}
	var n int
	var err error
	if co := hooked(); co != nil {
		n, err = fd.coRead(co, p)
	} else if fd.comp {
		return 0, ErrCompletion
	} else {
		n, err = fd.plainRead(p)
	}
	if n == 0 && err == nil && fd.sotype != unix.SOCK_DGRAM {
		err = io.EOF
	}
	return n, err
}

func (fd *netFD) plainRead(p []byte) (n int, err error) {
	err = fd.plain(false, func(s int) (err error) {
		n, err = unix.Read(s, p)
		return err
	})
	if err != nil {
		return 0, wrapSyscall("read", err)
	}
	return n, nil
}

func (fd *netFD) coRead(co *stackful.Co, p []byte) (int, error) {
	l, err := fd.claim(co, false)
	if err == errFallback {
		return fd.offloadRead(co, p)
	}
	if err != nil {
		return 0, err
	}
	if n := fd.takeCarry(p); n > 0 {
		return n, nil // carried over by the migration claim just made
	}
	if err := fd.lock(co, false); err != nil {
		return 0, err
	}
	defer fd.unlock(false)
	w := co.Waiter()
	for {
		t, err := timeout(&fd.rdeadline)
		if err != nil {
			return 0, err
		}
		var n int
		var wait bool
		if fd.sotype == unix.SOCK_STREAM {
			n, wait, err = l.TryReadStream(w, fd.loopFD(), p, t)
			if n > 0 && !fd.comp {
				fd.keepReadAhead(l)
			}
		} else {
			n, wait, err = l.TryRead(w, fd.sysfd, p, t)
		}
		if !wait || err != nil {
			return n, err
		}
		if err := fd.await(co, false); err != nil {
			return 0, err
		}
	}
}

// write writes all of p.
func (fd *netFD) write(p []byte) (int, error) {
	if err := fd.incref(); err != nil {
		return 0, err
	}
	defer fd.decref()
	if co := hooked(); co != nil {
		return fd.coWrite(co, p)
	}
	if fd.comp {
		return 0, ErrCompletion
	}
	return fd.plainWrite(p)
}

func (fd *netFD) plainWrite(p []byte) (int, error) {
	done := 0
	err := fd.plain(true, func(s int) error {
		for done < len(p) {
			n, err := unix.Write(s, p[done:])
			if n > 0 {
				done += n
			}
			if err != nil && err != unix.EINTR {
				return err
			}
		}
		return nil
	})
	return done, wrapSyscall("write", err)
}

func (fd *netFD) coWrite(co *stackful.Co, p []byte) (int, error) {
	l, err := fd.claim(co, true)
	if err == errFallback {
		return fd.offloadWrite(co, p)
	}
	if err != nil {
		return 0, err
	}
	if err := fd.lock(co, true); err != nil {
		return 0, err
	}
	defer fd.unlock(true)
	w := co.Waiter()
	done := 0
	for {
		t, err := timeout(&fd.wdeadline)
		if err != nil {
			return done, err
		}
		n, wait, err := l.TryWrite(w, fd.loopFD(), p[done:], t)
		done += n
		if !wait || err != nil {
			return done, err
		}
		if err := fd.await(co, true); err != nil {
			return done, err
		}
	}
}

// offloadRead and offloadWrite are the fallback of coRead and coWrite (a
// descriptor the coroutine's loop cannot serve): the plain operation on an
// offload goroutine. They are functions of their own so that the variables
// their closures capture are allocated only on this path, not by every
// coRead and coWrite.
func (fd *netFD) offloadRead(co *stackful.Co, p []byte) (n int, err error) {
	co.Offload(func() { n, err = fd.plainRead(p) })
	return n, err
}

func (fd *netFD) offloadWrite(co *stackful.Co, p []byte) (n int, err error) {
	co.Offload(func() { n, err = fd.plainWrite(p) })
	return n, err
}

// rawConn is the syscall.RawConn of a conn or packet conn.
type rawConn struct{ fd *netFD }

// rawCall adapts a syscall.RawConn function to coDo's call: false from f
// is EAGAIN. It is a named func type, not a closure, so that adapting f
// allocates nothing on the coroutine path.
type rawCall func(fd uintptr) bool

func (f rawCall) call(s int) error {
	if f(uintptr(s)) {
		return nil
	}
	return unix.EAGAIN
}

// Control implements syscall.RawConn: f runs on the calling goroutine while
// the descriptor cannot be closed.
func (rc *rawConn) Control(f func(fd uintptr)) error {
	if err := rc.fd.incref(); err != nil {
		return rc.fd.opError("raw-control", err)
	}
	defer rc.fd.decref()
	f(uintptr(rc.fd.sysfd))
	return nil
}

// Read implements syscall.RawConn: f is called until it returns true, with
// a wait for readability after each false.
func (rc *rawConn) Read(f func(fd uintptr) bool) error { return rc.do("raw-read", false, f) }

// Write implements syscall.RawConn: f is called until it returns true,
// with a wait for writability after each false.
func (rc *rawConn) Write(f func(fd uintptr) bool) error { return rc.do("raw-write", true, f) }

func (rc *rawConn) do(op string, write bool, f func(fd uintptr) bool) error {
	fd := rc.fd
	if err := fd.incref(); err != nil {
		return fd.opError(op, err)
	}
	defer fd.decref()
	if fd.comp {
		return fd.opError(op, ErrCompletion) // the socket is the loop's to read and write
	}
	var err error
	if co := hooked(); co != nil {
		err = fd.coDo(co, write, rawCall(f))
	} else {
		err = fd.plain(write, rawCall(f).call)
	}
	if err != nil {
		return fd.opError(op, err)
	}
	return nil
}
