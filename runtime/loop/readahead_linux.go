//go:build linux

package loop

import (
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TryReadStream is TryRead that saves a system call per exchange on a byte
// stream (a stream socket, a pipe, a FIFO: Register learns which fds are).
// It reads with readv(2) into p and 64 bytes of the loop's beyond it: a
// read that returns less than both together has emptied the stream, so the
// next TryReadStream on fd waits for readiness without reading first. Data
// that arrives after a read makes an edge, which wakes that wait at once, so
// nothing is missed; the read that TryRead would make, returning EAGAIN, is
// not made. A request that the loop sees arrive then costs one read and one
// write instead of two reads and a write, whatever the size of p: a 64-byte
// buffer that a 64-byte message fills is known to have emptied the stream.
//
// Bytes read beyond p are kept on fd (see [FD.Buffered]) and returned first
// by the next read, without a system call. When the peer has half-closed or
// reset the stream (the fd has reported RDHUP, HUP or ERR), it always reads
// first: the end or the error is pending without a new edge.
//
// On any other fd (datagram and other record-oriented sockets, eventfds,
// ttys), where a short read says nothing about what is left, and on an fd
// not registered yet, it is exactly TryRead. Both coroutine models' Read use
// it.
func (l *Loop) TryReadStream(w *Waiter, fd int, p []byte, timeout time.Duration) (n int, wait bool, err error) {
	f := l.Lookup(fd)
	if f == nil || !f.stream || len(p) == 0 {
		return l.TryRead(w, fd, p, timeout)
	}
	if f.Buffered() > 0 {
		return f.ahead.take(p), false, nil
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
	iov := [2]unix.Iovec{
		{Base: &p[0]},
		{Base: &l.overflow[0]},
	}
	iov[0].SetLen(len(p))
	iov[1].SetLen(readAheadSize)
	var r uintptr
	var errno unix.Errno
	for {
		r, _, errno = unix.RawSyscall(unix.SYS_READV, uintptr(fd), uintptr(unsafe.Pointer(&iov[0])), 2)
		if errno != unix.EINTR {
			break
		}
	}
	switch {
	case errno == unix.EAGAIN:
		if timeout == 0 {
			return 0, false, ErrTimeout // see the timeout convention in ops.go
		}
		if err := f.wait(w, fdRead, timeout); err != nil {
			return 0, false, err
		}
		return 0, true, nil
	case errno != 0:
		return 0, false, os.NewSyscallError("readv", errno)
	}
	n = int(r)
	if n == 0 {
		return 0, false, nil // end of stream
	}
	if n < len(p)+readAheadSize {
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
	return n, false, nil
}
