//go:build linux

package loop

import (
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// epoller is the Linux poller: one epoll instance plus an eventfd for wake.
//
// The epoll data of each registration holds the fd number, not a pointer, so
// no Go pointer hides from the garbage collector in kernel memory and no
// race/norace split is needed. The loop maps the number back to its *FD.
type epoller struct {
	epfd    int
	efd     int
	waking  atomic.Bool // a wake is in flight; cleared when the loop drains the eventfd
	events  []unix.EpollEvent
	drained [8]byte
}

func newPoller() (poller, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(epfd)
		return nil, os.NewSyscallError("eventfd", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(efd)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, efd, &ev); err != nil {
		unix.Close(efd)
		unix.Close(epfd)
		return nil, os.NewSyscallError("epoll_ctl", err)
	}
	return &epoller{epfd: epfd, efd: efd, events: make([]unix.EpollEvent, 256)}, nil
}

func (p *epoller) add(fd int) error {
	ev := unix.EpollEvent{
		Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLPRI | unix.EPOLLET,
		Fd:     int32(fd),
	}
	if err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

func (p *epoller) del(fd int) error {
	if err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, fd, nil); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

func (p *epoller) wait(timeoutMs int, fn func(fd int, ev Events)) (int, error) {
	var n int
	var err error
	for {
		n, err = unix.EpollWait(p.epfd, p.events, timeoutMs)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return 0, os.NewSyscallError("epoll_wait", err)
	}
	for i := range n {
		e := &p.events[i]
		fd := int(e.Fd)
		if fd == p.efd {
			// Clear the flag before the loop drains submissions: a Submit
			// after this point sees false and writes again.
			unix.Read(p.efd, p.drained[:])
			p.waking.Store(false)
			continue
		}
		// EPOLL* bits equal POLL* bits on Linux.
		fn(fd, Events(e.Events))
	}
	if n == len(p.events) && n < 1<<14 {
		p.events = make([]unix.EpollEvent, 2*n)
	}
	return n, nil
}

var one = [8]byte{1, 0, 0, 0, 0, 0, 0, 0} // eventfd counter increment, little-endian

func (p *epoller) wake() error {
	if !p.waking.CompareAndSwap(false, true) {
		return nil // a wake is already pending
	}
	for {
		_, err := unix.Write(p.efd, one[:])
		switch err {
		case nil, unix.EAGAIN: // EAGAIN: counter saturated, a wake is pending anyway
			return nil
		case unix.EINTR:
			continue
		default:
			return os.NewSyscallError("write", err)
		}
	}
}

func (p *epoller) close() error {
	err1 := unix.Close(p.efd)
	err2 := unix.Close(p.epfd)
	if err1 != nil {
		return os.NewSyscallError("close", err1)
	}
	if err2 != nil {
		return os.NewSyscallError("close", err2)
	}
	return nil
}

// isStream reports whether fd is a byte stream, where a short read means the
// kernel's buffer is empty: a SOCK_STREAM socket, a pipe or a FIFO. It costs
// one or two system calls, paid once per registration.
func isStream(fd int) bool {
	typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	if err == nil {
		return typ == unix.SOCK_STREAM
	}
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO
}
