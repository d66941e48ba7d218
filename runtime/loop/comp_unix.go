//go:build linux || darwin || freebsd

package loop

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// RegisterCompletion is [Loop.Register] for a connected stream socket whose
// reads and writes all go through the loop's operations (TryRead,
// TryReadStream, TryWrite, and the coroutine models' Read and Write built on
// them). On a backend with completion I/O (io_uring: see [Loop.Completion])
// the loop then receives into buffers of its own before anyone reads, and
// sends from a copy of what is written, without a system call of its own:
// the requests ride on the io_uring_enter that every loop iteration makes.
// On other backends, and for an fd that is not a stream socket, it is
// Register.
//
// The contract of such an fd differs from a readiness one in three ways:
//   - the loop may have taken bytes from the socket that nobody read yet
//     ([FD.Buffered] counts them; TryPoll and WaitRead see them), so a
//     read(2) of one's own, or handing the fd to other code, would miss them;
//   - a write returns once the loop holds the bytes (up to 64 KiB waiting
//     per fd; beyond that it waits); a send's error is reported by the next
//     write;
//   - [FD.Close] sends what was written before closing: if a send is in
//     flight, the descriptor is closed when the last one completes (or when
//     the loop closes), and its number stays taken until then.
//     [FD.Unregister] alone drops what was received and not read.
func (l *Loop) RegisterCompletion(fd int) (*FD, error) {
	if l.comp == nil {
		return l.Register(fd)
	}
	return l.registerComp(fd, l.comp.attach)
}

// registerComp registers fd with the completion state attach makes for it,
// or as Register does where attach cannot (errNotComp) or the fd is not
// for completion mode at all.
func (l *Loop) registerComp(fd int, attach func(int) (*compConn, error)) (*FD, error) {
	if l.closed || fd < 0 || fd < len(l.fds) && l.fds[fd] != nil {
		return l.Register(fd)
	}
	c, err := attach(fd)
	if err != nil {
		if err == errNotComp {
			return l.Register(fd)
		}
		return nil, registerFailed(fd, err)
	}
	for fd >= len(l.fds) {
		l.fds = append(l.fds, nil)
	}
	f := l.newFD()
	f.loop, f.fd, f.stream, f.cx = l, fd, true, c
	l.fds[fd] = f
	l.stats.FDs++
	return f, nil
}

// RegisterAccept is [Loop.Register] for a listening stream socket whose
// accepts all go through [Loop.TryAccept] (a stackless ServeTCP's
// listener). On a backend with completion I/O (io_uring) the loop keeps
// one multishot IORING_OP_ACCEPT in flight on it, which serves every
// accept: TryAccept takes the connections it queued, without a system
// call, and returns a nil Sockaddr for them (getpeername(2) gives the
// address). The accepted descriptors are non-blocking and close-on-exec.
// [FD.Close] cancels the accept and closes the connections accepted and
// not taken. Elsewhere, and for an fd that is not a listening stream
// socket, it is Register; a kernel that refuses the multishot accept gets
// accept(2) after readiness.
func (l *Loop) RegisterAccept(fd int) (*FD, error) {
	if l.comp == nil {
		return l.Register(fd)
	}
	return l.registerComp(fd, l.comp.attachAccept)
}

// compAccept is TryAccept for a listener registered with RegisterAccept.
func (l *Loop) compAccept(w *Waiter, f *FD, timeout time.Duration) (int, Sockaddr, bool, error) {
	c := f.cx
	if x := l.comp.x(c); len(x.accepted) > 0 {
		nfd := int(x.accepted[0])
		n := copy(x.accepted, x.accepted[1:])
		x.accepted = x.accepted[:n]
		return nfd, nil, false, nil
	}
	if c.has(cfRaw) && !c.has(cfPolling) {
		for {
			nfd, sa, err := Accept(f.fd)
			switch err {
			case unix.EINTR, unix.ECONNABORTED:
				continue
			case nil:
				return nfd, sa, false, nil
			case unix.EAGAIN:
			default:
				return -1, nil, false, os.NewSyscallError("accept", err)
			}
			break
		}
		l.comp.acceptRaw(c)
	}
	if timeout == 0 {
		return -1, nil, false, ErrTimeout
	}
	if err := f.wait(w, fdRead, timeout); err != nil {
		return -1, nil, false, err
	}
	return -1, nil, true, nil
}

// Completion reports whether the loop's backend has completion I/O, so that
// [Loop.RegisterCompletion] puts stream sockets in completion mode.
func (l *Loop) Completion() bool { return l.comp != nil }

// InCompletion reports whether f is in completion mode.
func (f *FD) InCompletion() bool { return f.cx != nil }

// compRead is TryRead for an fd in completion mode.
func (l *Loop) compRead(w *Waiter, f *FD, p []byte, timeout time.Duration) (int, bool, error) {
	c := f.cx
	if len(p) == 0 {
		return 0, false, nil
	}
	if len(l.comp.x(c).rdata) > 0 {
		return l.compTake(c, p), false, nil
	}
	if c.has(cfRdone) {
		return 0, false, l.comp.x(c).rerr
	}
	if c.has(cfRaw) && !c.has(cfPolling) {
		// The buffer ring ran dry: read(2) into p until the stream is
		// empty, then try the ring again (recv).
		n, err := rawRead(f.fd, p)
		for err == unix.EINTR {
			n, err = rawRead(f.fd, p)
		}
		switch {
		case err == nil:
			if n == 0 {
				c.set(cfRdone)
			}
			return n, false, nil
		case err != unix.EAGAIN:
			c.set(cfRdone)
			x := l.comp.ext(c)
			x.rerr = os.NewSyscallError("read", err)
			return 0, false, x.rerr
		}
		l.comp.recv(c)
	}
	if timeout == 0 {
		return 0, false, ErrTimeout
	}
	if err := f.wait(w, fdRead, timeout); err != nil {
		return 0, false, err
	}
	return 0, true, nil
}

// compWrite is TryWrite for an fd in completion mode: it queues what fits
// (see RegisterCompletion) and waits only when the queue is full.
func (l *Loop) compWrite(w *Waiter, f *FD, p []byte, timeout time.Duration) (int, bool, error) {
	c := f.cx
	if werr := l.comp.x(c).werr; werr != nil {
		return 0, false, werr
	}
	n := 0
	if !c.has(cfSending) && len(p) > 0 {
		n = min(len(p), compSendLimit)
		x := l.comp.ext(c)
		if cap(x.out) < n {
			l.comp.recycle(x.out) // not in flight: c is not sending
			x.out = l.comp.buf(n)
		}
		x.out, x.outOff = append(x.out[:0], p[:n]...), 0
		l.comp.send(c)
		if x.werr != nil {
			return 0, false, x.werr
		}
	}
	if n < len(p) {
		x := l.comp.ext(c)
		if x.pend == nil {
			x.pend = l.comp.buf(len(p) - n)
		}
		m := min(len(p)-n, compSendLimit-len(x.pend))
		x.pend = append(x.pend, p[n:n+m]...)
		n += m
	}
	if n == len(p) {
		return n, false, nil
	}
	if timeout == 0 {
		return n, false, ErrTimeout
	}
	if err := f.wait(w, fdWrite, timeout); err != nil {
		return n, false, err
	}
	return n, true, nil
}
