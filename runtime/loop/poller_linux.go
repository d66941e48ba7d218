//go:build linux && !cogen_netpoll

package loop

import (
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// epoller is the Linux poller: one epoll instance plus an eventfd for wake.
//
// The epoll data of each registration holds the fd number, not a pointer, so
// no Go pointer hides from the garbage collector in kernel memory and no
// race/norace split is needed. The loop maps the number back to its *FD.
//
// A timed wait sleeps with the best precision the kernel offers, chosen
// once per process (timeoutModeOf): epoll_pwait2's nanosecond timeout
// (Linux 5.11+), else a timerfd in the epoll set, else epoll_wait's
// milliseconds rounded up. The first two are as precise as the kernel's
// hrtimers allow: the thread's timer slack (50 µs by default,
// PR_SET_TIMERSLACK) plus scheduling delay.
type epoller struct {
	epfd    int
	efd     int
	tfd     int  // timerfd in timeoutTimerfd mode, else -1
	tfdSet  bool // the timerfd is armed
	mode    timeoutMode
	waking  atomic.Bool // a wake is in flight; cleared when the loop drains the eventfd
	events  []unix.EpollEvent
	drained [8]byte
}

// A timeoutMode is how the epoller sleeps for a timeout.
type timeoutMode uint8

const (
	timeoutPwait2  timeoutMode = iota // epoll_pwait2 with a timespec
	timeoutTimerfd                    // a timerfd armed for the timeout, epoll_wait without one
	timeoutMs                         // epoll_wait, milliseconds rounded up
)

var modeNames = [...]string{"epoll_pwait2", "timerfd", "epoll_wait ms"}

func (m timeoutMode) String() string { return modeNames[m] }

var (
	detectOnce   sync.Once
	detectedMode timeoutMode
)

// bestTimeoutMode probes the kernel once: epoll_pwait2 on a fresh epoll
// instance with a zero timeout, then timerfd_create.
func bestTimeoutMode() timeoutMode {
	detectOnce.Do(func() {
		detectedMode = timeoutMs
		epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			return
		}
		defer unix.Close(epfd)
		var ev [1]unix.EpollEvent
		if _, err := epollPwait2(epfd, ev[:], &unix.Timespec{}); err == nil {
			detectedMode = timeoutPwait2
			return
		}
		tfd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_CLOEXEC|unix.TFD_NONBLOCK)
		if err == nil {
			unix.Close(tfd)
			detectedMode = timeoutTimerfd
		}
	})
	return detectedMode
}

// epollPwait2 is epoll_pwait2(2) without a signal mask; x/sys/unix has the
// system call number but no wrapper. A nil ts waits forever.
func epollPwait2(epfd int, events []unix.EpollEvent, ts *unix.Timespec) (int, error) {
	// The pointers are converted to uintptr in the call expression itself,
	// which keeps events and ts alive and unmoved for the call (unsafe.Pointer
	// rule 4); events is never empty.
	n, _, errno := unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(epfd),
		uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(unsafe.Pointer(ts)), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// newPoller returns the poller for b (see Backend): io_uring if asked for
// and usable, else epoll, with one log line per process saying why
// io_uring was not used.
func newPoller(b Backend) (poller, Backend, error) {
	if b == BackendAuto {
		b = defaultBackend
	}
	switch b {
	case BackendUring:
		p, err := uringProbe()
		if err == nil {
			return p, BackendUring, nil
		}
		logOnce(&fallbackLogged, "loop: io_uring backend unavailable (%v); using epoll", err)
	case BackendPortable:
		logOnce(&fallbackLogged, "loop: the portable poller needs the build tag cogen_netpoll on Linux; using epoll")
	}
	p, err := newEpoller(bestTimeoutMode())
	return p, BackendEpoll, err
}

// defaultBackend is BackendAuto's backend when BackendEnv is unset.
var defaultBackend = BackendEpoll

// uringProbe creates the io_uring poller; tests replace it to force a
// fallback.
var uringProbe = func() (poller, error) { return newUringPoller() }

func newEpoller(mode timeoutMode) (*epoller, error) {
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
	p := &epoller{epfd: epfd, efd: efd, tfd: -1, mode: mode, events: make([]unix.EpollEvent, 256)}
	if mode == timeoutTimerfd {
		tfd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_CLOEXEC|unix.TFD_NONBLOCK)
		if err == nil {
			ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(tfd)}
			err = unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, tfd, &ev)
			if err != nil {
				unix.Close(tfd)
			}
		}
		if err != nil {
			unix.Close(efd)
			unix.Close(epfd)
			return nil, os.NewSyscallError("timerfd", err)
		}
		p.tfd = tfd
	}
	return p, nil
}

// add registers fd with a raw epoll_ctl, as Go's own poller does: the call
// never blocks, and skipping entersyscall keeps Register shallow (fd.go).
func (p *epoller) add(fd int) error {
	ev := unix.EpollEvent{
		Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLPRI | unix.EPOLLET,
		Fd:     int32(fd),
	}
	_, _, e := unix.RawSyscall6(unix.SYS_EPOLL_CTL, uintptr(p.epfd), unix.EPOLL_CTL_ADD, uintptr(fd), uintptr(unsafe.Pointer(&ev)), 0, 0)
	if e != 0 {
		return epollCtlError(e)
	}
	return nil
}

//go:noinline
func epollCtlError(e unix.Errno) error { return os.NewSyscallError("epoll_ctl", e) }

func (p *epoller) del(fd int) error {
	if err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, fd, nil); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

func (p *epoller) wait(timeout time.Duration, fn func(fd int, ev Events)) (int, error) {
	n, err := p.sleep(timeout)
	if err != nil {
		return 0, err
	}
	for i := range n {
		e := &p.events[i]
		fd := int(e.Fd)
		switch fd {
		case p.efd:
			// Clear the flag before the loop drains submissions: a Submit
			// after this point sees false and writes again.
			unix.Read(p.efd, p.drained[:])
			p.waking.Store(false)
			continue
		case p.tfd:
			unix.Read(p.tfd, p.drained[:])
			p.tfdSet = false
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

// sleep is one epoll wait with the timeout in the poller's mode, retrying
// EINTR; it returns the number of events in p.events.
func (p *epoller) sleep(timeout time.Duration) (int, error) {
	ms := -1
	switch {
	case timeout == 0:
		ms = 0
	case timeout < 0:
		if p.tfdSet {
			if err := p.setTimer(0); err != nil { // an idle loop stays asleep
				return 0, err
			}
		}
	case p.mode == timeoutPwait2:
		ts := unix.NsecToTimespec(int64(timeout))
		n, err := epollPwait2(p.epfd, p.events, &ts)
		switch err {
		case nil:
			return n, nil
		case unix.EINTR:
			return 0, nil // the loop recomputes the timeout
		}
		return 0, os.NewSyscallError("epoll_pwait2", err)
	case p.mode == timeoutTimerfd:
		if err := p.setTimer(timeout); err != nil {
			return 0, err
		}
	default:
		ms = int(min((timeout+time.Millisecond-1)/time.Millisecond, math.MaxInt32))
	}
	for {
		n, err := unix.EpollWait(p.epfd, p.events, ms)
		if err == nil {
			return n, nil
		}
		if err != unix.EINTR {
			return 0, os.NewSyscallError("epoll_wait", err)
		}
		if ms > 0 {
			return 0, nil // the loop recomputes the timeout
		}
	}
}

// setTimer arms the timerfd to expire after d, or disarms it if d is 0.
func (p *epoller) setTimer(d time.Duration) error {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(p.tfd, 0, &spec, nil); err != nil {
		return os.NewSyscallError("timerfd_settime", err)
	}
	p.tfdSet = d > 0
	return nil
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
	if p.tfd >= 0 {
		unix.Close(p.tfd)
	}
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
