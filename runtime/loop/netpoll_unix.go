//go:build unix && (!linux || cogen_netpoll)

package loop

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// A watch is a registration of the portable poller: a duplicate of the fd,
// opened as an *os.File so that Go's poller watches it, and one goroutine
// per direction blocked in it. The duplicate shares the original's open
// file description, so its readiness is the original's; the original stays
// its owner's. As long as the registration lasts the duplicate keeps the
// file open, so an fd closed by its owner without being unregistered (which
// epoll would forget by itself) stays open until it is.
type watch struct {
	p    *netpoller
	fd   int
	file *os.File
	done atomic.Bool
}

// readBits and writeBits are what each watcher asks poll(2) about.
var (
	readBits  = int16(unix.POLLIN | unix.POLLPRI | pollRdHup)
	writeBits = int16(unix.POLLOUT)
)

func (p *netpoller) watch(fd int) (*watch, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, os.NewSyscallError("fstat", err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFREG || st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return nil, fmt.Errorf("a regular file or directory cannot be polled: %w", unix.EPERM)
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("fcntl", err)
	}
	// O_NONBLOCK is shared with the original: the loop needs it anyway, and
	// os.NewFile only hands a non-blocking fd to Go's poller.
	if err := unix.SetNonblock(dup, true); err != nil {
		unix.Close(dup)
		return nil, os.NewSyscallError("fcntl", err)
	}
	w := &watch{p: p, fd: fd, file: os.NewFile(uintptr(dup), "loop-watch")}
	rc, err := w.file.SyscallConn()
	if err != nil {
		w.file.Close()
		return nil, err
	}
	go w.run(rc.Read, readBits)
	go w.run(rc.Write, writeBits)
	return w, nil
}

// run is a watcher goroutine: one RawConn wait that lasts the registration.
// Its callback runs once at the start (readiness from before the watch
// began) and then after every edge Go's poller reports; edges that come
// while it posts are kept by Go's poller for the next wait, so none is lost.
// It returns when stop closes the duplicate.
func (w *watch) run(raw func(func(fd uintptr) bool) error, bits int16) {
	raw(func(fd uintptr) bool {
		if w.done.Load() {
			return true
		}
		if ev := pollNow(int(fd), bits); ev != 0 {
			w.p.post(w, ev)
		}
		return false
	})
}

// pollNow returns fd's readiness among bits (plus errors and hang-ups), by
// a poll(2) that does not wait.
func pollNow(fd int, bits int16) Events {
	pfd := []unix.PollFd{{Fd: int32(fd), Events: bits}}
	for {
		n, err := unix.Poll(pfd, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return 0
		}
		return eventsOf(pfd[0].Revents)
	}
}

// stop ends the watch: closing the duplicate wakes both watchers, which
// return, and Close waits until they have.
func (w *watch) stop() error {
	w.done.Store(true)
	if err := w.file.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	return nil
}

// eventsOf maps poll(2) bits to Events (equal on Linux, mapped elsewhere).
func eventsOf(r int16) Events {
	var ev Events
	for _, m := range [...]struct {
		bit int16
		ev  Events
	}{
		{unix.POLLIN, EventIn}, {unix.POLLPRI, EventPri}, {unix.POLLOUT, EventOut},
		{unix.POLLERR, EventErr}, {unix.POLLHUP, EventHup}, {unix.POLLNVAL, EventNval},
		{pollRdHup, EventRdHup},
	} {
		if m.bit != 0 && r&m.bit != 0 {
			ev |= m.ev
		}
	}
	return ev
}
