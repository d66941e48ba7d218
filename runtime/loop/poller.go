package loop

import "time"

// A poller is the platform's readiness notifier. Each poller file defines
//
//	newPoller(b Backend) (poller, Backend, error)
//
// for the platforms its build constraint selects:
//
//   - poller_linux.go (linux && !cogen_netpoll): epoll, an eventfd for wake,
//     nanosecond timeouts (epoll_pwait2, else a timerfd); or, when b asks
//     for it and the kernel allows, poller_uring_linux.go: io_uring as a
//     readiness engine (uring_linux.go holds the ring);
//   - poller_netpoll.go (!linux || cogen_netpoll): the portable poller, one
//     goroutine per fd and direction waiting in Go's own runtime poller,
//     with its per-platform halves netpoll_unix.go (fds watched through
//     os.File + RawConn) and netpoll_other.go (no int fds: add fails with
//     ErrNotSupported).
//
// It returns an implementation whose methods all run on the loop goroutine
// except wake, which any goroutine may call:
//
//   - add registers fd for read and write readiness, edge-triggered, once for
//     the life of the registration;
//   - del removes it;
//   - wait blocks for at most timeout (negative = forever, 0 = just check),
//     retries EINTR itself, and reports each ready fd with its events. It
//     may return early (the loop then waits again for the rest) but should
//     not oversleep: the timeout is as precise as the platform allows, down
//     to the nanosecond, and a coarser platform rounds it up;
//   - wake makes a blocked or future wait return; repeated calls before that
//     wait collapse into one;
//   - close releases the poller's own descriptors and goroutines.
//
// Readiness is reported as the poll(2)-style bits below so the loop core is
// platform-neutral.
type poller interface {
	add(fd int) error
	del(fd int) error
	wait(timeout time.Duration, fn func(fd int, ev Events)) (int, error)
	wake() error
	close() error
}

// Events is a set of readiness bits with poll(2) meanings.
type Events uint32

// Readiness bits, identical in value to poll(2)'s on Linux.
const (
	EventIn    Events = 0x1    // POLLIN: readable
	EventPri   Events = 0x2    // POLLPRI: urgent data
	EventOut   Events = 0x4    // POLLOUT: writable
	EventErr   Events = 0x8    // POLLERR: error condition
	EventHup   Events = 0x10   // POLLHUP: hang-up
	EventNval  Events = 0x20   // POLLNVAL: invalid fd
	EventRdHup Events = 0x2000 // POLLRDHUP: peer closed its write side
)
