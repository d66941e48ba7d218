package hook

import (
	"errors"
	"os"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// prepare classifies a call on fd. st is nil when the call is the plain
// system call: fd is not a hook descriptor, or the user made it
// non-blocking. Otherwise co is the coroutine to wait in, or nil when the
// call must block like a blocking descriptor (see waitReady); a coroutine
// is bound to fd's loop here.
func prepare(fd int) (st *fdState, co *stackful.Co, err error) {
	st = table.get(fd)
	if st == nil || st.nonblock.Load() {
		return nil, nil, nil
	}
	co = hooked()
	if co != nil && !st.claim(co.Env().Loop()) {
		return nil, nil, unix.EBUSY // served by another env's loop: Detach it there
	}
	return st, co, nil
}

// waitReady waits until fd is ready for reading (write false) or writing,
// or deadline (a monotonic time, negative for none) passes.
//
// In a coroutine it arms the coroutine's waiter on fd's registration with
// the loop and suspends it; elsewhere it blocks the calling goroutine in
// poll(2), which is what a blocking descriptor does inside read(2). Either
// way the deadline ends the wait with EAGAIN, the kernel's error when
// SO_RCVTIMEO or SO_SNDTIMEO expires.
func waitReady(co *stackful.Co, fd int, write bool, deadline time.Duration) error {
	if co == nil {
		return pollReady(fd, write, deadline)
	}
	timeout := remaining(deadline)
	if timeout == 0 {
		return unix.EAGAIN
	}
	l := co.Env().Loop()
	f, err := l.FD(fd)
	if err != nil {
		return errno(err)
	}
	w := co.Waiter()
	if write {
		err = f.WaitWrite(w, timeout)
	} else {
		err = f.WaitRead(w, timeout)
	}
	if err != nil {
		return errno(err)
	}
	return reasonErr(co.Await())
}

// pollReady blocks in poll(2) until fd is ready or deadline passes.
func pollReady(fd int, write bool, deadline time.Duration) error {
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if write {
		pfd[0].Events = unix.POLLOUT
	}
	for {
		ms := -1
		if deadline >= 0 {
			rem := deadline - now()
			if rem <= 0 {
				return unix.EAGAIN
			}
			ms = int((rem + time.Millisecond - 1) / time.Millisecond)
		}
		n, err := unix.Poll(pfd, ms)
		switch {
		case err == unix.EINTR:
		case err != nil:
			return err
		case n > 0:
			return nil // ready, or in error: the retried call reports it
		}
	}
}

// errno turns an error of the loop or of a coroutine's waiting method into
// the errno the system call would have reported: an expired SO_RCVTIMEO or
// SO_SNDTIMEO is EAGAIN, as from the kernel (connect turns it into
// EINPROGRESS itself).
func errno(err error) error {
	if err == nil {
		return nil
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err
	}
	switch {
	case errors.Is(err, loop.ErrTimeout):
		return unix.EAGAIN
	case errors.Is(err, loop.ErrFDClosed):
		return unix.EBADF
	case errors.Is(err, loop.ErrBusy), errors.Is(err, loop.ErrRegistered):
		return unix.EBUSY
	case errors.Is(err, loop.ErrClosed), errors.Is(err, loop.ErrCanceled):
		return unix.ECANCELED
	case errors.Is(err, loop.ErrNotSupported):
		return unix.ENOSYS
	}
	var en unix.Errno
	if errors.As(err, &en) {
		return en
	}
	return err
}

// reasonErr is errno for the reason a wait ended: nil when fd is ready.
func reasonErr(r loop.Reason) error {
	switch r {
	case loop.Ready:
		return nil
	case loop.Timeout:
		return unix.EAGAIN
	case loop.Closed:
		return unix.EBADF // closed by another coroutine while waited on
	}
	return unix.ECANCELED // canceled, or the loop closed
}

// timeoutOf turns a deadline into the timeout of a coroutine's waiting
// method, mapping an expired one to EAGAIN.
func timeoutOf(deadline time.Duration) (time.Duration, error) {
	t := remaining(deadline)
	if t == 0 {
		return 0, unix.EAGAIN
	}
	return t, nil
}
