package hook

import (
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// The calls below share one shape. On a descriptor that is not a hook
// descriptor, or that the caller made non-blocking (O_NONBLOCK through
// FcntlInt, SOCK_NONBLOCK, or MSG_DONTWAIT for one call), each is exactly
// its golang.org/x/sys/unix counterpart. Otherwise it behaves as the call
// does on a blocking descriptor: read-side calls wait until something can
// be read (at most SO_RCVTIMEO), write-side calls until everything is
// written (at most SO_SNDTIMEO). In a hooked coroutine the waiting is done
// on the loop while the env's other coroutines run; elsewhere the calling
// goroutine blocks in poll(2). Either way an expired timeout is what the
// kernel reports: EAGAIN, or a short count if some bytes were written.
// Counts are -1 on error when nothing was transferred, as in x/sys.

// Read is read(2).
func Read(fd int, p []byte) (int, error) {
	st, co, comp, err := prepareIO(fd)
	if err != nil {
		return -1, err
	}
	if comp {
		d, nowait := compWait(st, &st.rtimeout, 0)
		return compRecv(co, fd, [][]byte{p}, d, nowait, 0)
	}
	if st == nil {
		return unix.Read(fd, p)
	}
	d := deadline(&st.rtimeout)
	if co != nil {
		timeout, err := timeoutOf(d)
		if err != nil {
			return -1, err
		}
		n, err := co.ReadTimeout(fd, p, timeout)
		if err != nil {
			return -1, errno(err)
		}
		return n, nil
	}
	var n int
	err = recvLoop(nil, fd, d, func() (err error) {
		n, err = unix.Read(fd, p)
		return err
	})
	if err != nil {
		return -1, err
	}
	return n, nil
}

// Readv is readv(2).
func Readv(fd int, iovs [][]byte) (int, error) {
	st, co, comp, err := prepareIO(fd)
	if err != nil {
		return -1, err
	}
	if comp {
		d, nowait := compWait(st, &st.rtimeout, 0)
		return compRecv(co, fd, iovs, d, nowait, 0)
	}
	if st == nil {
		return unix.Readv(fd, iovs)
	}
	if n, ok := takeBuffered(co, fd, iovs, false); ok {
		return n, nil
	}
	var n int
	err = recvLoop(co, fd, deadline(&st.rtimeout), func() (err error) {
		n, err = unix.Readv(fd, iovs)
		return err
	})
	if err != nil {
		return -1, err
	}
	return n, nil
}

// Recv is recv(2): recvfrom(2) without the source address.
func Recv(fd int, p []byte, flags int) (int, error) {
	n, _, err := Recvfrom(fd, p, flags)
	return n, err
}

// Recvfrom is recvfrom(2).
func Recvfrom(fd int, p []byte, flags int) (n int, from unix.Sockaddr, err error) {
	st, co, comp, err := prepareIO(fd)
	if err != nil {
		return -1, nil, err
	}
	if comp {
		d, nowait := compWait(st, &st.rtimeout, flags)
		n, err := compRecv(co, fd, [][]byte{p}, d, nowait, flags)
		return n, nil, err
	}
	if n, ok := takeBuffered(co, fd, [][]byte{p}, flags&unix.MSG_PEEK != 0); ok {
		return n, nil, nil
	}
	if st == nil || flags&unix.MSG_DONTWAIT != 0 {
		return unix.Recvfrom(fd, p, flags)
	}
	err = recvLoop(co, fd, deadline(&st.rtimeout), func() (err error) {
		n, from, err = unix.Recvfrom(fd, p, flags)
		return err
	})
	if err != nil {
		return -1, nil, err
	}
	return n, from, nil
}

// Recvmsg is recvmsg(2).
func Recvmsg(fd int, p, oob []byte, flags int) (n, oobn, recvflags int, from unix.Sockaddr, err error) {
	st, co, comp, err := prepareIO(fd)
	if err != nil {
		return -1, -1, 0, nil, err
	}
	if comp {
		d, nowait := compWait(st, &st.rtimeout, flags)
		n, err := compRecv(co, fd, [][]byte{p}, d, nowait, flags)
		if err != nil {
			return -1, -1, 0, nil, err
		}
		return n, 0, 0, nil, nil
	}
	if n, ok := takeBuffered(co, fd, [][]byte{p}, flags&unix.MSG_PEEK != 0); ok {
		return n, 0, 0, nil, nil
	}
	if st == nil || flags&unix.MSG_DONTWAIT != 0 {
		return unix.Recvmsg(fd, p, oob, flags)
	}
	err = recvLoop(co, fd, deadline(&st.rtimeout), func() (err error) {
		n, oobn, recvflags, from, err = unix.Recvmsg(fd, p, oob, flags)
		return err
	})
	if err != nil {
		return -1, -1, 0, nil, err
	}
	return n, oobn, recvflags, from, nil
}

// takeBuffered serves a read-side call in the coroutine co from the bytes
// its loop read ahead on the stream fd (loop.FD.Buffered: Read reads them
// first too), and reports whether there were any. With peek set they stay.
func takeBuffered(co *stackful.Co, fd int, bufs [][]byte, peek bool) (n int, ok bool) {
	if co == nil {
		return 0, false
	}
	f := co.Env().Loop().Lookup(fd)
	if f == nil || f.Buffered() == 0 {
		return 0, false
	}
	for _, b := range bufs {
		if peek {
			return f.TakeBuffered(b, true), true // MSG_PEEK: the first buffer shows them
		}
		n += f.TakeBuffered(b, false)
		if f.Buffered() == 0 {
			break
		}
	}
	return n, true
}

// recvLoop runs a read-side call until it does not report EAGAIN, waiting
// for fd to become readable in between.
func recvLoop(co *stackful.Co, fd int, d time.Duration, call func() error) error {
	for {
		err := call()
		switch err {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			if err := waitReady(co, fd, false, d); err != nil {
				return err
			}
			continue
		}
		return err
	}
}

// Write is write(2); it writes all of p unless an error occurs or the
// timeout expires, as on a blocking descriptor.
func Write(fd int, p []byte) (int, error) {
	st, co, comp, err := prepareIO(fd)
	if err != nil {
		return -1, err
	}
	if comp {
		d, nowait := compWait(st, &st.wtimeout, 0)
		return compSend(co, fd, [][]byte{p}, nil, d, nowait, 0)
	}
	if st == nil {
		return unix.Write(fd, p)
	}
	d := deadline(&st.wtimeout)
	if co != nil {
		timeout, err := timeoutOf(d)
		if err != nil {
			return -1, err
		}
		n, err := co.WriteTimeout(fd, p, timeout)
		return sent(n, errno(err))
	}
	return sendAll(nil, fd, d, len(p), func(done int) (int, error) {
		return unix.Write(fd, p[done:])
	})
}

// Writev is writev(2); it writes all of iovs unless an error occurs or the
// timeout expires.
func Writev(fd int, iovs [][]byte) (int, error) {
	st, co, comp, err := prepareIO(fd)
	if err != nil {
		return -1, err
	}
	if comp {
		d, nowait := compWait(st, &st.wtimeout, 0)
		return compSend(co, fd, iovs, nil, d, nowait, 0)
	}
	if st == nil {
		return unix.Writev(fd, iovs)
	}
	total := 0
	for _, b := range iovs {
		total += len(b)
	}
	rest := iovs
	return sendAll(co, fd, deadline(&st.wtimeout), total, func(done int) (int, error) {
		n, err := unix.Writev(fd, rest)
		if n > 0 {
			rest = advance(rest, n)
		}
		return n, err
	})
}

// advance drops the first n bytes from iovs, copying the slice header list
// so that the caller's stays as it was.
func advance(iovs [][]byte, n int) [][]byte {
	for len(iovs) > 0 && n >= len(iovs[0]) {
		n -= len(iovs[0])
		iovs = iovs[1:]
	}
	if n == 0 || len(iovs) == 0 {
		return iovs
	}
	out := append([][]byte(nil), iovs...)
	out[0] = out[0][n:]
	return out
}

// Send is send(2): sendmsg(2) without an address or control data. On a
// stream socket it sends all of p unless an error occurs.
func Send(fd int, p []byte, flags int) (int, error) {
	return SendmsgN(fd, p, nil, nil, flags)
}

// Sendto is sendto(2), with x/sys's shape (no count): on a stream socket
// it sends all of p unless an error occurs.
func Sendto(fd int, p []byte, flags int, to unix.Sockaddr) error {
	if st := table.get(fd); st == nil {
		return unix.Sendto(fd, p, flags, to)
	}
	_, err := SendmsgN(fd, p, nil, to, flags)
	return err
}

// Sendmsg is sendmsg(2), with x/sys's shape (no count).
func Sendmsg(fd int, p, oob []byte, to unix.Sockaddr, flags int) error {
	_, err := SendmsgN(fd, p, oob, to, flags)
	return err
}

// SendmsgN is sendmsg(2) reporting the bytes of p sent. On a stream socket
// it sends all of p unless an error occurs; oob goes with the first part.
func SendmsgN(fd int, p, oob []byte, to unix.Sockaddr, flags int) (int, error) {
	st, co, comp, err := prepareIO(fd)
	if err != nil {
		return -1, err
	}
	if comp {
		d, nowait := compWait(st, &st.wtimeout, flags)
		return compSend(co, fd, [][]byte{p}, oob, d, nowait, flags)
	}
	if st == nil || flags&unix.MSG_DONTWAIT != 0 {
		return unix.SendmsgN(fd, p, oob, to, flags)
	}
	return sendAll(co, fd, deadline(&st.wtimeout), len(p), func(done int) (int, error) {
		n, err := unix.SendmsgN(fd, p[done:], oob, to, flags)
		if err == nil {
			oob = nil
		}
		return n, err
	})
}

// sendAll runs a write-side call until total bytes are sent, waiting for
// fd to become writable whenever it reports EAGAIN. send is passed the
// bytes sent so far. An empty send still makes one call (a datagram may be
// empty).
func sendAll(co *stackful.Co, fd int, d time.Duration, total int, send func(done int) (int, error)) (int, error) {
	done := 0
	for {
		n, err := send(done)
		if n > 0 {
			done += n
		}
		switch err {
		case nil:
			if done >= total {
				return done, nil
			}
			continue
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			err = waitReady(co, fd, true, d)
			if err == nil {
				continue
			}
		}
		return sent(done, err)
	}
}

// sent is the result of a write-side call that ended with err after done
// bytes: -1 if none; a short count without error when the timeout expired
// after some progress, as from the kernel.
func sent(done int, err error) (int, error) {
	if err == nil {
		return done, nil
	}
	if done == 0 {
		return -1, err
	}
	if err == unix.EAGAIN {
		return done, nil
	}
	return done, err
}
