package hook

import (
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// Descriptors in the loop's completion mode.
//
// On a loop with completion I/O (io_uring) a connection registered with
// loop.Loop.RegisterCompletion - every connection of
// stackful.Env.ServeTCPCompletion and Group.ServeTCPCompletion - has the
// bytes it received in the loop's buffers and the bytes written to it
// queued on the loop: a system call of the caller's own would miss the
// first and overtake the second. So on such a descriptor, in a hooked
// coroutine of the env whose loop serves it, the calls that move bytes
// (Read, Readv, Recv, Recvfrom, Recvmsg, Write, Writev, Send, Sendto,
// Sendmsg, SendmsgN) go through the coroutine's methods (Co.ReadTimeout,
// Co.WriteTimeout), with the descriptor's timeouts and the caller's
// O_NONBLOCK and MSG_DONTWAIT as usual; MSG_PEEK and MSG_WAITALL are
// honoured. What only the socket can do fails with EOPNOTSUPP: MSG_OOB,
// MSG_ERRQUEUE, control data (oob), and [Detach] (the received bytes
// cannot leave the loop). Elsewhere - other goroutines, coroutines with
// hooks disabled - a call on it is the plain system call, which the
// completion contract rules out.

// prepareIO is prepare for the calls that move bytes; comp reports that fd
// is in the completion mode of co's loop (see above), and then st and co
// are set even if the caller made fd non-blocking.
func prepareIO(fd int) (st *fdState, co *stackful.Co, comp bool, err error) {
	st = table.get(fd)
	if st == nil {
		return nil, nil, false, nil
	}
	co = hooked()
	if co == nil {
		if st.nonblock.Load() {
			return nil, nil, false, nil
		}
		return st, nil, false, nil
	}
	l := co.Env().Loop()
	f := l.Lookup(fd)
	comp = f != nil && f.InCompletion()
	if st.nonblock.Load() && !comp {
		return nil, nil, false, nil
	}
	if !st.claim(l) {
		return nil, nil, false, unix.EBUSY // served by another env's loop: Detach it there
	}
	return st, co, comp, nil
}

// compWait is how long a call on a descriptor in completion mode may
// wait: not at all (nowait) for a non-blocking descriptor or MSG_DONTWAIT,
// else until the deadline d from the timeout (negative: none).
func compWait(st *fdState, timeout *atomic.Int64, flags int) (d time.Duration, nowait bool) {
	if st.nonblock.Load() || flags&unix.MSG_DONTWAIT != 0 {
		return 0, true
	}
	return deadline(timeout), false
}

// compTimeout turns compWait's answer into a timeout for co's methods.
func compTimeout(d time.Duration, nowait bool) (time.Duration, error) {
	if nowait {
		return 0, nil
	}
	return timeoutOf(d)
}

// compRecv is a read-side call on a descriptor in completion mode: into
// bufs in order, waiting only for the first byte (MSG_WAITALL: until bufs
// are full or the stream ends).
func compRecv(co *stackful.Co, fd int, bufs [][]byte, d time.Duration, nowait bool, flags int) (int, error) {
	if flags&(unix.MSG_OOB|unix.MSG_ERRQUEUE) != 0 {
		return -1, unix.EOPNOTSUPP
	}
	if flags&unix.MSG_PEEK != 0 {
		for _, b := range bufs {
			if len(b) > 0 {
				return compPeek(co, fd, b, d, nowait)
			}
		}
		return 0, nil
	}
	total := 0
	for _, b := range bufs {
		for len(b) > 0 {
			var t time.Duration // after the first bytes, take only what the loop holds
			if total == 0 || flags&unix.MSG_WAITALL != 0 {
				var err error
				if t, err = compTimeout(d, nowait); err != nil {
					return recvd(total, err)
				}
			}
			n, err := co.ReadTimeout(fd, b, t)
			total += n
			if err != nil {
				return recvd(total, errno(err))
			}
			if n == 0 || n < len(b) && flags&unix.MSG_WAITALL == 0 {
				return total, nil
			}
			b = b[n:]
		}
	}
	return total, nil
}

// recvd is the result of a read-side call that ended with err after n
// bytes: the bytes if there are some (the error comes again on the next
// call, as from the kernel), else -1 and err.
func recvd(n int, err error) (int, error) {
	if n > 0 {
		return n, nil
	}
	return -1, err
}

// compPeek is MSG_PEEK on a descriptor in completion mode: the bytes the
// loop holds come first; when it holds none, the socket's own (the loop
// has not received them yet, or reads with read(2) for now) are next in
// the stream, so a peek of the socket sees them without taking them.
func compPeek(co *stackful.Co, fd int, p []byte, d time.Duration, nowait bool) (int, error) {
	for {
		f := co.Env().Loop().Lookup(fd)
		if f == nil {
			return -1, unix.EBADF
		}
		if f.Buffered() > 0 {
			return f.TakeBuffered(p, true), nil
		}
		n, _, err := unix.Recvfrom(fd, p, unix.MSG_PEEK|unix.MSG_DONTWAIT)
		switch err {
		case nil:
			return n, nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
		default:
			return -1, err
		}
		if nowait {
			return -1, unix.EAGAIN
		}
		if err := waitReady(co, fd, false, d); err != nil {
			return -1, err
		}
	}
}

// compSend is a write-side call on a descriptor in completion mode: bufs
// in order, each queued on the loop (Co.WriteTimeout).
func compSend(co *stackful.Co, fd int, bufs [][]byte, oob []byte, d time.Duration, nowait bool, flags int) (int, error) {
	if len(oob) > 0 || flags&unix.MSG_OOB != 0 {
		return -1, unix.EOPNOTSUPP
	}
	done := 0
	for _, b := range bufs {
		t, err := compTimeout(d, nowait)
		if err != nil {
			return sent(done, err)
		}
		n, err := co.WriteTimeout(fd, b, t)
		done += n
		if err != nil {
			return sent(done, errno(err))
		}
	}
	return done, nil
}
