//go:build linux || darwin || freebsd

package conet

import (
	"errors"
	"net"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

// Completion mode (ServeCompletion).
//
// A conn of ServeCompletion on a loop with completion I/O (io_uring) is
// served by that loop in completion mode (loop.Loop.RegisterCompletion):
// the loop receives into buffers of its own and sends from a queue, and
// only the loop's goroutine can reach either. The loop serves a duplicate
// of the descriptor (lfd), which it closes itself once what was written
// has been sent (FD.Close's deferred close), while sysfd keeps the
// package's reference-counted life cycle: a call in progress never sees
// either number reused. The mode is set before the handler sees the conn
// and lasts until Close; the calls that cannot reach the loop's buffers
// fail with ErrCompletion instead of missing bytes or overtaking writes:
// Read and Write outside a hooked coroutine of the serving env (plain
// goroutines, other envs: no migration, no fallback), SyscallConn's Read
// and Write, and CloseWrite outside such a coroutine.

// ErrCompletion is what a call on a conn in the loop's completion mode
// (ServeCompletion) wraps when it is made where the loop's buffers cannot
// be reached: outside a hooked coroutine of the serving env, or through
// SyscallConn's Read and Write.
var ErrCompletion = errors.New("conet: conn in the loop's completion mode used outside its env's hooked coroutines")

// enterCompletion puts c in l's completion mode if it is one of this
// package's conns (ServeCompletion's handlers get them).
func enterCompletion(c net.Conn, l *loop.Loop) {
	if cc, ok := c.(*Conn); ok {
		cc.fd.enterCompletion(l)
	}
}

// enterCompletion puts a new stream conn in l's completion mode if l has
// one: the loop serves a duplicate of the descriptor. It runs on l's
// goroutine before the conn is shared; on any failure the conn stays in
// readiness mode.
func (fd *netFD) enterCompletion(l *loop.Loop) {
	if !l.Completion() || fd.sotype != unix.SOCK_STREAM || !fd.owner.CompareAndSwap(nil, l) {
		return
	}
	d, err := unix.FcntlInt(uintptr(fd.sysfd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return
	}
	f, err := l.RegisterCompletion(d)
	if err != nil || !f.InCompletion() {
		if f != nil {
			f.Unregister()
		}
		unix.Close(d)
		return
	}
	fd.lfd, fd.comp = d, true
}

// loopFD is the descriptor fd's loop serves: the duplicate in completion
// mode, else sysfd.
func (fd *netFD) loopFD() int {
	if fd.comp {
		return fd.lfd
	}
	return fd.sysfd
}

// closeLoopFD is destroy's part for completion mode: the duplicate is
// closed here unless the serving loop took it over (unregister), as when
// that loop closed first.
func (fd *netFD) closeLoopFD() {
	if fd.comp && !fd.lfdToLoop.Load() {
		unix.Close(fd.lfd)
	}
}
