//go:build linux || darwin || freebsd

package loop

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// TryRead reads into p from fd once. It returns wait=true, having armed w on
// fd's read slot, if no data is available yet. Bytes that TryReadStream read
// ahead on fd are returned first, without a system call.
func (l *Loop) TryRead(w *Waiter, fd int, p []byte, timeout time.Duration) (n int, wait bool, err error) {
	f := l.Lookup(fd)
	if f != nil && f.cx != nil {
		return l.compRead(w, f, p, timeout)
	}
	if f != nil && f.ahead != nil && len(p) > 0 && f.ahead.off < f.ahead.end {
		return f.ahead.take(p), false, nil
	}
	for {
		if f != nil {
			n, err = rawRead(fd, p)
		} else {
			n, err = unix.Read(fd, p)
		}
		if err != unix.EINTR {
			break
		}
	}
	if err == unix.EAGAIN {
		if err := l.waitFD(w, fd, fdRead, timeout); err != nil {
			return 0, false, err
		}
		return 0, true, nil
	}
	if err != nil {
		return 0, false, os.NewSyscallError("read", err)
	}
	return n, false, nil
}

// TryWrite writes p to fd, as much as the kernel takes without blocking. It
// returns wait=true, having armed w on fd's write slot, if some of p is left:
// the caller retries with p[n:].
func (l *Loop) TryWrite(w *Waiter, fd int, p []byte, timeout time.Duration) (n int, wait bool, err error) {
	f := l.Lookup(fd)
	if f != nil && f.cx != nil {
		return l.compWrite(w, f, p, timeout)
	}
	raw := f != nil
	for n < len(p) {
		var m int
		var err error
		if raw {
			m, err = rawWrite(fd, p[n:])
		} else {
			m, err = unix.Write(fd, p[n:])
		}
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if err := l.waitFD(w, fd, fdWrite, timeout); err != nil {
				return n, false, err
			}
			return n, true, nil
		case err != nil:
			return n, false, os.NewSyscallError("write", err)
		}
		n += m
	}
	return n, false, nil
}

// TryAccept accepts one connection on the listening fd. The new fd is
// non-blocking and close-on-exec. It returns wait=true, having armed w, if no
// connection is pending.
func (l *Loop) TryAccept(w *Waiter, fd int, timeout time.Duration) (nfd int, sa Sockaddr, wait bool, err error) {
	if f := l.Lookup(fd); f != nil && f.cx != nil && f.cx.has(cfAcceptor) {
		return l.compAccept(w, f, timeout)
	}
	for {
		nfd, sa, err = Accept(fd)
		if err != unix.EINTR && err != unix.ECONNABORTED {
			break
		}
	}
	if err == unix.EAGAIN {
		if err := l.waitFD(w, fd, fdRead, timeout); err != nil {
			return -1, nil, false, err
		}
		return -1, nil, true, nil
	}
	if err != nil {
		return -1, nil, false, os.NewSyscallError("accept", err)
	}
	return nfd, sa, false, nil
}

// TryConnect connects the non-blocking socket fd to sa. While the connection
// is in progress it returns wait=true, having armed w for writability; the
// retry after the wake-up reports the outcome (Linux reports EALREADY while
// in progress, success once connected, and the pending error if it failed).
func (l *Loop) TryConnect(w *Waiter, fd int, sa Sockaddr, timeout time.Duration) (wait bool, err error) {
	err = unix.Connect(fd, sa)
	switch err {
	case nil, unix.EISCONN:
		return false, nil
	case unix.EINPROGRESS, unix.EALREADY, unix.EINTR:
		if err := l.waitFD(w, fd, fdWrite, timeout); err != nil {
			return false, err
		}
		return true, nil
	}
	return false, os.NewSyscallError("connect", err)
}

// TryPoll is poll(2) on the loop. It first checks the fds without waiting;
// if none is ready and timeout is not 0 it arms w (with the timeout; negative
// means forever) and one child per requested direction, records them in ps,
// and returns wait=true. After any wake-up the caller calls [Loop.EndPoll],
// then TryPoll again with the remaining timeout if it reported 0 ready and
// the wake-up was not a timeout (an edge seen earlier can wake a poll for an
// fd that is no longer ready).
func (l *Loop) TryPoll(w *Waiter, ps *PollState, fds []PollFd, timeout time.Duration) (n int, wait bool, err error) {
	n, err = checkPoll(fds)
	if err == nil {
		n += l.pollBuffered(fds)
	}
	if err != nil || n > 0 || timeout == 0 {
		return n, false, err
	}
	if !w.arm(timeout) {
		return 0, true, nil // woken at once with LoopClosed
	}
	if cap(ps.children) < 2*len(fds) {
		ps.children = make([]Waiter, 0, 2*len(fds))
	}
	for _, p := range fds {
		if p.Fd < 0 {
			continue // poll(2) ignores negative fds
		}
		f := l.Lookup(p.Fd)
		if f == nil {
			if f, err = l.Register(p.Fd); err != nil {
				l.EndPoll(w, ps)
				return 0, false, err
			}
			ps.temp = append(ps.temp, f)
		}
		if (p.Events&(EventIn|EventPri|EventRdHup) != 0 || p.Events&EventOut == 0) && !childOf(f.reader, w) {
			ps.children = append(ps.children, Waiter{})
			c := &ps.children[len(ps.children)-1]
			c.InitChild(w)
			if err := f.WaitRead(c, -1); err != nil {
				l.EndPoll(w, ps)
				return 0, false, err
			}
		}
		if p.Events&EventOut != 0 && !childOf(f.writer, w) {
			ps.children = append(ps.children, Waiter{})
			c := &ps.children[len(ps.children)-1]
			c.InitChild(w)
			if err := f.WaitWrite(c, -1); err != nil {
				l.EndPoll(w, ps)
				return 0, false, err
			}
		}
	}
	return 0, true, nil
}

// childOf reports whether c is a child of w: an fd listed twice in one poll
// shares the child armed for its first entry.
func childOf(c, w *Waiter) bool { return c != nil && c.parent == w }

// EndPoll disarms the children of a poll that waited and drops the fds it
// registered for this call only. w itself is left as it is.
func (l *Loop) EndPoll(w *Waiter, ps *PollState) {
	for i := range ps.children {
		ps.children[i].Disarm()
	}
	ps.children = ps.children[:0]
	for _, f := range ps.temp {
		f.Unregister()
	}
	ps.temp = ps.temp[:0]
	if w.state == waiterArmed {
		w.Disarm()
	}
}

// pollBuffered adds EventIn to the Revents of the fds asking for it that
// hold bytes read ahead (see [FD.Buffered]), which poll(2) does not see, and
// returns how many fds it made ready.
func (l *Loop) pollBuffered(fds []PollFd) (n int) {
	for i, p := range fds {
		if f := l.Lookup(p.Fd); f != nil && f.Buffered() > 0 && p.Events&EventIn != 0 {
			if fds[i].Revents == 0 {
				n++
			}
			fds[i].Revents |= EventIn
		}
	}
	return n
}

// checkPoll fills in Revents with one non-blocking poll(2).
func checkPoll(fds []PollFd) (int, error) {
	var small [8]unix.PollFd
	pfds := small[:0]
	if len(fds) > len(small) {
		pfds = make([]unix.PollFd, 0, len(fds))
	}
	for _, p := range fds {
		pfds = append(pfds, unix.PollFd{Fd: int32(p.Fd), Events: int16(p.Events)})
	}
	var n int
	var err error
	for {
		n, err = unix.Poll(pfds, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return 0, os.NewSyscallError("poll", err)
	}
	for i := range fds {
		fds[i].Revents = Events(uint16(pfds[i].Revents))
	}
	return n, nil
}

// waitFD arms w on fd in direction dir for an operation that would block;
// a zero timeout does not wait (see ops.go) and fails with ErrTimeout.
func (l *Loop) waitFD(w *Waiter, fd int, dir uint8, timeout time.Duration) error {
	if timeout == 0 {
		return ErrTimeout
	}
	f, err := l.FD(fd)
	if err != nil {
		return err
	}
	if err := f.wait(w, dir, timeout); err != nil {
		return err
	}
	return nil
}
