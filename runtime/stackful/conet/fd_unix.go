//go:build linux || darwin || freebsd

package conet

import (
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// A netFD is a socket shared by the conns, listeners and packet conns of
// this package: a non-blocking descriptor, used on the loop of the env
// whose hooked coroutine last claimed it (migrate_linux.go), and through
// Go's own poller (an *os.File made on first use) everywhere else.
//
// Life cycle. state counts the references held by operations in progress
// plus one for being open, and has closedBit set by Close. An operation
// takes a reference for its whole duration (refused once closed); the last
// reference dropped after Close closes the descriptor, so its number is
// never reused while an operation may still use it. If a loop serves the
// descriptor, Close keeps the open reference until the descriptor's
// registration has been dropped on that loop (directly when Close runs on
// one of the env's goroutines, through Loop.Submit otherwise, after
// replacing the socket under the number with a placeholder so that it is
// released at once), so a loop never keeps a registration under a number
// that has been reused.
type netFD struct {
	sysfd  int
	family int
	sotype int
	net    string
	laddr  net.Addr // set before the fd is shared
	raddr  net.Addr

	state atomic.Int64
	owner atomic.Pointer[loop.Loop]

	// Deadlines, in nanoseconds on the package clock (see now); 0 is none.
	rdeadline atomic.Int64
	wdeadline atomic.Int64

	fileMu sync.Mutex
	file   atomic.Pointer[os.File]

	// Bytes a loop had read ahead on the stream when it handed fd to
	// another (migrate_linux.go); reads take them first.
	carryMu sync.Mutex
	carry   []byte
	carried atomic.Int32 // len(carry)

	// noAskUntil: until then (package clock) calls from other envs fall
	// back without asking the serving loop, which left a request unanswered.
	// It is about that loop only: a hand-over resets it (release), and a
	// back-off set after the hand-over it concerns is undone (backOff).
	noAskUntil atomic.Int64

	// Completion mode (comp_unix.go): set before the fd is shared.
	comp      bool
	lfd       int         // the duplicate the loop serves in completion mode
	lfdToLoop atomic.Bool // the loop closes lfd (unregister)

	// Loop side: touched only by goroutines of the owner's env, which run
	// one at a time.
	rco, wco     *stackful.Co // the coroutine waiting to read or write
	rbusy, wbusy bool         // a coroutine is reading or writing
	rq, wq       loop.Cond    // coroutines waiting for their turn
}

const closedBit = 1 << 62

func newFD(sysfd, family, sotype int, network string) *netFD {
	fd := &netFD{sysfd: sysfd, family: family, sotype: sotype, net: network}
	fd.state.Store(1)
	return fd
}

// incref takes a reference for an operation; it fails once fd is closed.
// A closed fd's count never goes up again, so exactly one decref brings it
// to closedBit and destroys it: a reference taken and dropped after Close
// would destroy it once more, closing a number that may have been reused.
func (fd *netFD) incref() error {
	for {
		s := fd.state.Load()
		if s&closedBit != 0 {
			return errClosed
		}
		if fd.state.CompareAndSwap(s, s+1) {
			return nil
		}
	}
}

// errClosed is what operations on a closed conn report, wrapped in a
// net.OpError.
var errClosed = ErrClosed

func (fd *netFD) decref() {
	if fd.state.Add(-1) == closedBit {
		fd.destroy()
	}
}

func (fd *netFD) closed() bool { return fd.state.Load()&closedBit != 0 }

// destroy closes the descriptor: the last reference is gone.
func (fd *netFD) destroy() {
	fd.closeLoopFD()
	if f := fd.file.Load(); f != nil {
		f.Close()
		return
	}
	unix.Close(fd.sysfd)
}

// Close marks fd closed, wakes every operation waiting on it (they fail
// with net.ErrClosed) and drops the open reference (see dropOpen: the
// socket is released at once, from any goroutine).
func (fd *netFD) Close() error {
	if fd.state.Or(closedBit)&closedBit != 0 {
		return errClosed
	}
	if f := fd.file.Load(); f != nil {
		f.SetDeadline(aLongTimeAgo) // wakes operations waiting in Go's poller
	}
	fd.dropOpen()
	return nil
}

// unregister drops fd's registration with its loop, waking the coroutines
// waiting on it, and wakes those waiting for their turn. It runs on the
// loop's env.
func (fd *netFD) unregister(l *loop.Loop) {
	if f := l.Lookup(fd.loopFD()); f != nil {
		if fd.comp {
			// The loop closes its duplicate once what was written has
			// been sent (RegisterCompletion's deferred close).
			fd.lfdToLoop.Store(true)
			f.Close()
		} else {
			f.Unregister()
		}
	}
	fd.rq.Broadcast()
	fd.wq.Broadcast()
}

var aLongTimeAgo = time.Unix(1, 0)

// onLoop reports whether the caller is a goroutine of an env on l, and so
// may touch l and the loop-side fields of the fds it serves.
func onLoop(l *loop.Loop) bool {
	self := stackful.Self()
	return self != nil && self.Env().Loop() == l
}

// hooked returns the coroutine an operation waits in, or nil if it must
// behave like an operation on an ordinary net.Conn: the caller is not a
// coroutine with hooks enabled (see package hook's contract).
func hooked() *stackful.Co {
	co := stackful.Self()
	if co == nil || !co.HookEnabled() {
		return nil
	}
	return co
}

// Errors that calls on this package's conns, listeners and packet conns
// wrap (test with errors.Is; the errors themselves are *net.OpError values,
// as package net's):
var (
	// ErrClosed: the conn was closed, before or during the call; also
	// what a call of a coroutine whose env's loop closed meanwhile reports.
	// It is net.ErrClosed.
	ErrClosed = net.ErrClosed
	// ErrDeadlineExceeded: the deadline set with SetDeadline,
	// SetReadDeadline or SetWriteDeadline passed; the error's Timeout()
	// is true. It is os.ErrDeadlineExceeded.
	ErrDeadlineExceeded = os.ErrDeadlineExceeded
)

// Deadlines.

var start = time.Now()

// now reads the package's monotonic clock.
func now() time.Duration { return time.Since(start) }

func deadlineValue(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return max(int64(t.Sub(start)), 1) // a time in the past is still a deadline
}

// timeout returns what is left before the deadline in dl: -1 for none, or
// os.ErrDeadlineExceeded if it has passed.
func timeout(dl *atomic.Int64) (time.Duration, error) {
	d := dl.Load()
	if d == 0 {
		return -1, nil
	}
	left := time.Duration(d) - now()
	if left <= 0 {
		return 0, os.ErrDeadlineExceeded
	}
	return left, nil
}

func (fd *netFD) setDeadline(t time.Time, read, write bool) error {
	if fd.closed() {
		return errClosed
	}
	v := deadlineValue(t)
	if read {
		fd.rdeadline.Store(v)
	}
	if write {
		fd.wdeadline.Store(v)
	}
	if f := fd.file.Load(); f != nil {
		fd.applyFileDeadlines(f)
	}
	fd.kickOn(fd.owner.Load(), read, write)
	return nil
}

// kickOn runs kick on the loop o serving fd, following fd if it migrates.
func (fd *netFD) kickOn(o *loop.Loop, read, write bool) {
	switch {
	case o == nil:
	case onLoop(o):
		fd.kick(read, write)
	default:
		o.Submit(func() {
			if cur := fd.owner.Load(); cur != o {
				fd.kickOn(cur, read, write)
				return
			}
			fd.kick(read, write)
		})
	}
}

// kick wakes the coroutines waiting on fd in the given directions so that
// they look at their deadline again.
func (fd *netFD) kick(read, write bool) {
	if read {
		if fd.rco != nil {
			fd.rco.Waiter().Cancel()
		}
		fd.rq.Broadcast()
	}
	if write {
		if fd.wco != nil {
			fd.wco.Waiter().Cancel()
		}
		fd.wq.Broadcast()
	}
}

// Cooperative waiting.

// lock waits for co's turn to read (or write) fd: the loop keeps one
// waiter per direction, and a net.Conn may be read by several coroutines
// at once. Close and deadline changes wake the queue.
func (fd *netFD) lock(co *stackful.Co, write bool) error {
	busy, q, dl := &fd.rbusy, &fd.rq, &fd.rdeadline
	if write {
		busy, q, dl = &fd.wbusy, &fd.wq, &fd.wdeadline
	}
	for {
		// Closed is checked after every wait too: a coroutine whose turn
		// comes after Close must not wait on the descriptor, whose
		// registration Close has dropped (it would register it anew and
		// wait there for good).
		if fd.closed() {
			return errClosed
		}
		if !*busy {
			break
		}
		t, err := timeout(dl)
		if err != nil {
			return err
		}
		co.Wait(q, t)
	}
	*busy = true
	return nil
}

func (fd *netFD) unlock(write bool) {
	if write {
		fd.wbusy = false
		fd.wq.Signal()
	} else {
		fd.rbusy = false
		fd.rq.Signal()
	}
}

// await suspends co, whose waiter has been armed on fd, and says whether
// the operation should try again: an error ends it.
func (fd *netFD) await(co *stackful.Co, write bool) error {
	if write {
		fd.wco = co
	} else {
		fd.rco = co
	}
	r := co.Await()
	if write {
		fd.wco = nil
	} else {
		fd.rco = nil
	}
	switch r {
	case loop.Ready, loop.Timeout, loop.Canceled:
		// Ready: try again. Timeout or Canceled (a deadline changed):
		// the deadline check before the next try decides.
		if fd.closed() {
			return errClosed
		}
		return nil
	}
	return errClosed // the registration was dropped by Close, or the loop closed
}

// waitFD waits in co until fd is ready in one direction, or the deadline.
func (fd *netFD) waitFD(co *stackful.Co, l *loop.Loop, write bool) error {
	dl := &fd.rdeadline
	if write {
		dl = &fd.wdeadline
	}
	t, err := timeout(dl)
	if err != nil {
		return err
	}
	f, err := l.FD(fd.loopFD())
	if err != nil {
		return err
	}
	if write {
		err = f.WaitWrite(co.Waiter(), t)
	} else {
		err = f.WaitRead(co.Waiter(), t)
	}
	if err != nil {
		return err
	}
	return fd.await(co, write)
}

// Plain operations through Go's poller.

// rawConn returns a syscall.RawConn for fd through an *os.File, made on
// first use: os.NewFile registers a non-blocking descriptor with Go's
// runtime poller, whose waits honour the file's deadlines and Close.
func (fd *netFD) rawConn() (syscall.RawConn, error) {
	f := fd.file.Load()
	if f == nil {
		fd.fileMu.Lock()
		if f = fd.file.Load(); f == nil {
			f = os.NewFile(uintptr(fd.sysfd), fd.net)
			fd.file.Store(f)
		}
		fd.fileMu.Unlock()
		fd.applyFileDeadlines(f)
		if fd.closed() {
			f.SetDeadline(aLongTimeAgo)
		}
	}
	return f.SyscallConn()
}

func (fd *netFD) applyFileDeadlines(f *os.File) {
	toTime := func(v int64) time.Time {
		if v == 0 {
			return time.Time{}
		}
		return start.Add(time.Duration(v))
	}
	f.SetReadDeadline(toTime(fd.rdeadline.Load()))
	f.SetWriteDeadline(toTime(fd.wdeadline.Load()))
}

// plain runs a non-blocking call through Go's poller: call is retried
// whenever fd becomes ready while it reports EAGAIN.
func (fd *netFD) plain(write bool, call func(s int) error) error {
	rc, err := fd.rawConn()
	if err != nil {
		return err
	}
	var cerr error
	f := func(s uintptr) bool {
		cerr = call(int(s))
		return cerr != unix.EAGAIN
	}
	if write {
		err = rc.Write(f)
	} else {
		err = rc.Read(f)
	}
	if err != nil {
		if fd.closed() {
			return errClosed
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return os.ErrDeadlineExceeded
		}
		return err
	}
	return cerr
}
