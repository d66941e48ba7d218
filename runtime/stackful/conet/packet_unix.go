//go:build linux || darwin || freebsd

package conet

import (
	"net"
	"syscall"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// A PacketConn is a datagram socket (UDP or Unix datagram) on coroutines:
// a net.PacketConn, and a net.Conn when dialled (connected), with the
// waiting behaviour of [Conn]. Each read returns one datagram.
type PacketConn struct {
	fd *netFD
}

var (
	_ net.PacketConn = (*PacketConn)(nil)
	_ net.Conn       = (*PacketConn)(nil)
)

// SyscallConn returns a raw network connection: see [Conn.SyscallConn].
func (c *PacketConn) SyscallConn() (syscall.RawConn, error) { return &rawConn{fd: c.fd}, nil }

// ReadFrom implements net.PacketConn.
func (c *PacketConn) ReadFrom(p []byte) (int, net.Addr, error) {
	n, sa, err := c.fd.recvfrom(p)
	if err != nil {
		return n, nil, c.fd.opError("read", err)
	}
	var from net.Addr
	if sa != nil {
		from = netAddr(c.kind(), sa)
	}
	return n, from, nil
}

// WriteTo implements net.PacketConn.
func (c *PacketConn) WriteTo(p []byte, addr net.Addr) (int, error) {
	sa, err := addrOf(c.fd.family, addr)
	if err == nil && sa == nil {
		err = &net.AddrError{Err: "missing address"}
	}
	if err != nil {
		return 0, c.fd.opError("write", err)
	}
	n, err := c.fd.sendto(p, sa)
	if err != nil {
		return n, c.fd.opError("write", err)
	}
	return n, nil
}

// Read implements net.Conn for a connected socket.
func (c *PacketConn) Read(p []byte) (int, error) {
	n, _, err := c.fd.recvfrom(p)
	if err != nil {
		return n, c.fd.opError("read", err)
	}
	return n, nil
}

// Write implements net.Conn for a connected socket.
func (c *PacketConn) Write(p []byte) (int, error) {
	n, err := c.fd.sendto(p, nil)
	if err != nil {
		return n, c.fd.opError("write", err)
	}
	return n, nil
}

// Close implements net.Conn.
func (c *PacketConn) Close() error {
	if err := c.fd.Close(); err != nil {
		return c.fd.opError("close", err)
	}
	return nil
}

// LocalAddr implements net.Conn.
func (c *PacketConn) LocalAddr() net.Addr { return c.fd.laddr }

// RemoteAddr implements net.Conn: nil unless dialled.
func (c *PacketConn) RemoteAddr() net.Addr { return c.fd.raddr }

// SetDeadline implements net.Conn.
func (c *PacketConn) SetDeadline(t time.Time) error { return c.setDeadline(t, true, true) }

// SetReadDeadline implements net.Conn.
func (c *PacketConn) SetReadDeadline(t time.Time) error { return c.setDeadline(t, true, false) }

// SetWriteDeadline implements net.Conn.
func (c *PacketConn) SetWriteDeadline(t time.Time) error { return c.setDeadline(t, false, true) }

func (c *PacketConn) setDeadline(t time.Time, read, write bool) error {
	if err := c.fd.setDeadline(t, read, write); err != nil {
		return c.fd.opError("set", err)
	}
	return nil
}

func (c *PacketConn) kind() netKind {
	k, _ := parseNetwork(c.fd.net)
	return k
}

func (fd *netFD) recvfrom(p []byte) (n int, from unix.Sockaddr, err error) {
	if err := fd.incref(); err != nil {
		return 0, nil, err
	}
	defer fd.decref()
	call := func(s int) (err error) {
		n, from, err = unix.Recvfrom(s, p, 0)
		return err
	}
	if co := hooked(); co != nil {
		err = fd.coDo(co, false, callFunc(call))
	} else {
		err = fd.plain(false, call)
	}
	if err != nil {
		return 0, nil, wrapSyscall("recvfrom", err)
	}
	return n, from, nil
}

func (fd *netFD) sendto(p []byte, to unix.Sockaddr) (n int, err error) {
	if err := fd.incref(); err != nil {
		return 0, err
	}
	defer fd.decref()
	call := func(s int) (err error) {
		n, err = unix.SendmsgN(s, p, nil, to, 0)
		return err
	}
	if co := hooked(); co != nil {
		err = fd.coDo(co, true, callFunc(call))
	} else {
		err = fd.plain(true, call)
	}
	if err != nil {
		return 0, wrapSyscall("sendto", err)
	}
	return n, nil
}

// A sysCall is a non-blocking system call on a descriptor that coDo
// retries while it reports EAGAIN. An interface rather than a func, so
// that rawConn passes its caller's func (rawCall) without a closure.
type sysCall interface{ call(s int) error }

// callFunc is a sysCall made of a func.
type callFunc func(s int) error

func (f callFunc) call(s int) error { return f(s) }

// coDo runs a non-blocking call in co until it does not report EAGAIN,
// waiting on the loop for fd's readiness in between.
func (fd *netFD) coDo(co *stackful.Co, write bool, c sysCall) error {
	l, err := fd.claim(co, write)
	if err == errFallback {
		return fd.offloadDo(co, write, c)
	}
	if err != nil {
		return err
	}
	if err := fd.lock(co, write); err != nil {
		return err
	}
	defer fd.unlock(write)
	for {
		// A deadline that has passed fails the call even if it could
		// complete, as in package net.
		dl := &fd.rdeadline
		if write {
			dl = &fd.wdeadline
		}
		if _, err := timeout(dl); err != nil {
			return err
		}
		switch err := c.call(fd.sysfd); err {
		case unix.EAGAIN:
		case unix.EINTR:
			continue
		default:
			return err
		}
		if err := fd.waitFD(co, l, write); err != nil {
			return err
		}
	}
}

// offloadDo is coDo's fallback (see offloadRead): the call through Go's
// poller on an offload goroutine.
func (fd *netFD) offloadDo(co *stackful.Co, write bool, c sysCall) (err error) {
	co.Offload(func() { err = fd.plain(write, c.call) })
	return err
}
