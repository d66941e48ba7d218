package hook

import (
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

// Poll is poll(2), timeout in milliseconds (negative: forever). In a
// hooked coroutine it is libco's co_poll: the coroutine waits on the loop
// for any descriptor, hook descriptor or not, while the env's other
// coroutines run, and Revents carries poll(2)'s bits. Poll with no
// descriptors sleeps for timeout (libco's poll(NULL, 0, ms)). Unlike
// co_poll, and like poll(2), it returns without suspending when a
// descriptor is ready already or timeout is 0 (see [stackful.Co.Poll] for
// the yield that keeps a polling loop from starving the env). Elsewhere it
// is poll(2), resumed with the time left after EINTR: Go's runtime
// interrupts system calls with signals of its own (SIGURG preempts
// goroutines), which a caller cannot tell from its own (see Nanosleep).
func Poll(fds []unix.PollFd, timeout int) (int, error) {
	co := hooked()
	if co == nil {
		return pollPlain(fds, timeout)
	}
	var small [8]loop.PollFd
	lfds := small[:0]
	if len(fds) > len(small) {
		lfds = make([]loop.PollFd, 0, len(fds))
	}
	for _, p := range fds {
		lfds = append(lfds, loop.PollFd{Fd: int(p.Fd), Events: loop.Events(uint16(p.Events))})
	}
	d := time.Duration(-1)
	if timeout >= 0 {
		d = time.Duration(timeout) * time.Millisecond
	}
	n, err := co.Poll(lfds, d)
	if err != nil {
		return -1, errno(err)
	}
	for i := range fds {
		fds[i].Revents = int16(lfds[i].Revents)
	}
	return n, nil
}

// pollPlain is poll(2) resumed after EINTR with the time left, rounded up
// to the millisecond.
func pollPlain(fds []unix.PollFd, timeout int) (int, error) {
	deadline := time.Now().Add(time.Duration(timeout) * time.Millisecond)
	for {
		n, err := unix.Poll(fds, timeout)
		if err != unix.EINTR {
			return n, err
		}
		if timeout > 0 {
			left := time.Until(deadline)
			if left <= 0 {
				return 0, nil
			}
			timeout = int((left + time.Millisecond - 1) / time.Millisecond)
		}
	}
}
