//go:build linux || darwin || freebsd

package loop

import (
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readAheadSmall is the largest buffer TryReadStream always reads beyond.
const readAheadSmall = 512

// TryReadStream is TryRead that saves a system call per exchange on a byte
// stream (a stream socket, a pipe, a FIFO: Register learns which fds are).
// A read that returns less than asked for has emptied the stream, so the
// next TryReadStream on fd waits for readiness without reading first. Data
// that arrives after a read makes an edge, which wakes that wait at once, so
// nothing is missed; the read that TryRead would make, returning EAGAIN, is
// not made. A request that the loop sees arrive then costs one read and one
// write instead of two reads and a write.
//
// A read into a buffer of at most 512 bytes, and every read of fd once one
// has filled its buffer (which says nothing), asks for 64 bytes of the
// loop's beyond p too (readv(2)): a 64-byte buffer that a 64-byte message
// fills is then known to have emptied the stream as well. Bytes read beyond
// p are kept on fd (see [FD.Buffered]) and returned first by the next read,
// which reads on into the rest of its buffer unless the stream is known to
// be empty.
//
// When the peer has half-closed or reset the stream (the fd has reported
// RDHUP, HUP or ERR), it always reads first: the end or the error is pending
// without a new edge. On any other fd (datagram and other record-oriented
// sockets, eventfds, ttys), where a short read says nothing about what is
// left, and on an fd not registered yet, it is exactly TryRead. Both
// coroutine models' Read use it.
func (l *Loop) TryReadStream(w *Waiter, fd int, p []byte, timeout time.Duration) (n int, wait bool, err error) {
	f := l.Lookup(fd)
	if f != nil && f.cx != nil {
		return l.compRead(w, f, p, timeout)
	}
	if f == nil || !f.stream || len(p) == 0 {
		return l.TryRead(w, fd, p, timeout)
	}
	return l.readStream(w, f, fd, p, timeout)
}

// readStream is TryReadStream for a registered stream fd in readiness mode.
// It is a function of its own so that TryReadStream's frame stays small:
// a stackful coroutine reads through it, and a read in completion mode
// (compRead, which may arm a receive) must not grow a 2 KiB stack by
// carrying this path's iovecs.
//
//go:noinline
func (l *Loop) readStream(w *Waiter, f *FD, fd int, p []byte, timeout time.Duration) (n int, wait bool, err error) {
	// Held bytes come first; if they do not fill p and the stream may hold
	// more, the read goes on into the rest of p, so that a bulk transfer
	// is not cut into a full read and a short one.
	held := 0
	if f.Buffered() > 0 {
		held = f.ahead.take(p)
		if held == len(p) || f.drained {
			return held, false, nil
		}
		p = p[held:]
	}
	if f.drained {
		f.drained = false
		if timeout != 0 && f.seen&(EventRdHup|EventHup|EventErr) == 0 {
			if err := f.wait(w, fdRead, timeout); err != nil {
				return 0, false, err
			}
			return 0, true, nil
		}
	}
	// Only a read that fills p leaves it open whether the stream is empty:
	// reads into a small buffer (a message's), and every read of an fd
	// whose last read filled its buffer, go beyond p (readv); the others
	// are plain reads, cheaper in the kernel than a two-buffer readv.
	iovs := 1
	if f.filled || len(p) <= readAheadSmall {
		iovs = 2
	}
	iov := [2]unix.Iovec{
		{Base: &p[0]},
		{Base: &l.overflow[0]},
	}
	iov[0].SetLen(len(p))
	iov[1].SetLen(readAheadSize)
	var r uintptr
	var errno unix.Errno
	for {
		if iovs == 2 {
			r, _, errno = unix.RawSyscall(unix.SYS_READV, uintptr(fd), uintptr(unsafe.Pointer(&iov[0])), 2)
		} else {
			r, _, errno = unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		}
		if errno != unix.EINTR {
			break
		}
	}
	switch {
	case held > 0 && errno != 0:
		return held, false, nil // EAGAIN: nothing more now; an error: the next read reports it
	case errno == unix.EAGAIN:
		if timeout == 0 {
			return 0, false, ErrTimeout // see the timeout convention in ops.go
		}
		if err := f.wait(w, fdRead, timeout); err != nil {
			return 0, false, err
		}
		return 0, true, nil
	case errno != 0 && iovs == 2:
		return 0, false, os.NewSyscallError("readv", errno)
	case errno != 0:
		return 0, false, os.NewSyscallError("read", errno)
	}
	n = int(r)
	if n == 0 {
		return held, false, nil // end of stream (reported by the next read if held > 0)
	}
	raceWritten(p[:min(n, len(p))])
	f.filled = n >= len(p)
	if n < len(p) || (iovs == 2 && n < len(p)+readAheadSize) {
		f.drained = true
	}
	if extra := n - len(p); extra > 0 {
		if f.ahead == nil {
			f.ahead = new(readAhead)
		}
		copy(f.ahead.buf[:], l.overflow[:extra])
		f.ahead.off, f.ahead.end = 0, uint8(extra)
		n = len(p)
	}
	return held + n, false, nil
}
