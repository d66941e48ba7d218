package loop

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

const (
	fdRead uint8 = iota
	fdWrite
)

// An FD is a file descriptor's registration on the loop: registered once,
// edge-triggered, for its whole life, with one read-waiter and one
// write-waiter slot (cocoyaxi's SockCtx).
//
// An edge that arrives while nobody waits in that direction is remembered and
// consumed by the next wait, which then wakes at once: data that arrived
// while nobody waited is not lost. Wake-ups can therefore be spurious; a
// caller retries its non-blocking operation after every Ready wake-up and
// waits again on EAGAIN.
type FD struct {
	loop           *Loop
	fd             int
	reader, writer *Waiter
	readEdge       bool   // an edge arrived with no reader waiting
	writeEdge      bool   // an edge arrived with no writer waiting
	seen           Events // every event bit seen since registration
	closed         bool
	drained        bool       // TryReadStream's last read emptied the stream
	filled         bool       // TryReadStream's last read filled the caller's buffer: the next one reads beyond it
	stream         bool       // a byte stream (stream socket, pipe, FIFO), learned once by Register
	ahead          *readAhead // bytes TryReadStream read beyond a caller's buffer; nil until the first time
	cx             *compConn  // completion mode's state (RegisterCompletion); nil for readiness and once unregistered
}

// readSide and writeSide are the events that wake each direction. Errors and
// hang-ups wake both, as they make both operations return at once.
const (
	readSide  = EventIn | EventPri | EventRdHup | EventHup | EventErr
	writeSide = EventOut | EventHup | EventErr
)

// Register adds fd to the loop for the rest of its life. It fails for an
// invalid fd, a file type the poller cannot watch (regular files), or an fd
// already registered.
//
// Register usually runs on a coroutine's stack, inside the first wait on
// fd, where a stackful coroutine has the least room: a goroutine stack
// starts at 2 KiB and grows (to 4 KiB, by copying, kept for the
// coroutine's life) when a call needs more than about 1.1 KiB in all.
// So the path is kept shallow: the errors are built out of line (their
// fmt frames alone were 200 bytes), the poller's add and the stream test
// make raw, non-blocking system calls, and the FD record comes from a block
// allocated fdBlock at a time (newFD), since the allocator's own frames
// would overflow the 2 KiB on their own. It used to grow the stack of every
// echo connection on its first read: 5.2 KB of server memory per idle
// connection instead of 3.2 (Go's net: 3.6).
func (l *Loop) Register(fd int) (*FD, error) {
	if l.closed || fd < 0 || fd < len(l.fds) && l.fds[fd] != nil {
		return nil, l.registerRefused(fd)
	}
	if err := l.poller.add(fd); err != nil {
		return nil, registerFailed(fd, err)
	}
	for fd >= len(l.fds) {
		l.fds = append(l.fds, nil)
	}
	f := l.newFD()
	f.loop, f.fd, f.stream = l, fd, isStream(fd)
	l.fds[fd] = f
	l.stats.FDs++
	return f, nil
}

// fdBlock is how many FD records newFD allocates at once.
const fdBlock = 64

// newFD returns a zero FD record for Register. Records come from blocks of
// fdBlock (4 KiB), like the runtime's own pollDesc cache, so that only one
// registration in fdBlock calls the allocator: see Register. A record is
// never reused (a stale *FD must still read closed), so a block lives while
// any of its records is referenced.
func (l *Loop) newFD() *FD {
	if len(l.fdSpare) == 0 {
		l.fdSpare = make([]FD, fdBlock)
	}
	f := &l.fdSpare[0]
	l.fdSpare = l.fdSpare[1:]
	return f
}

// registerRefused is Register's error for a closed loop, an invalid fd or
// one registered already.
//
//go:noinline
func (l *Loop) registerRefused(fd int) error {
	switch {
	case l.closed:
		return ErrClosed
	case fd < 0:
		return fmt.Errorf("loop: register fd %d: %w", fd, syscall.EBADF)
	}
	return fmt.Errorf("loop: register fd %d: %w", fd, ErrRegistered)
}

// registerFailed is Register's error when the poller refuses fd.
//
//go:noinline
func registerFailed(fd int, err error) error {
	return fmt.Errorf("loop: register fd %d: %w", fd, err)
}

// FD returns fd's registration, registering it on first use.
func (l *Loop) FD(fd int) (*FD, error) {
	if f := l.Lookup(fd); f != nil {
		return f, nil
	}
	return l.Register(fd)
}

// Lookup returns fd's registration, or nil.
func (l *Loop) Lookup(fd int) *FD {
	if fd >= 0 && fd < len(l.fds) {
		return l.fds[fd]
	}
	return nil
}

// Fd returns the file descriptor number.
func (f *FD) Fd() int { return f.fd }

// Seen reports every event bit delivered for f since registration; HUP, ERR
// and RDHUP stay visible here after the waiter they woke has run.
func (f *FD) Seen() Events { return f.seen }

// WaitRead arms w to wake when f is readable (or hung up, or in error), or
// with Timeout after timeout (negative: none). If an edge arrived while
// nobody waited, w wakes at once with Ready; otherwise a zero timeout wakes
// it at once with Timeout. It fails if another waiter holds the read
// slot or f is no longer registered.
func (f *FD) WaitRead(w *Waiter, timeout time.Duration) error {
	return f.wait(w, fdRead, timeout)
}

// WaitWrite is WaitRead for writability.
func (f *FD) WaitWrite(w *Waiter, timeout time.Duration) error {
	return f.wait(w, fdWrite, timeout)
}

func (f *FD) wait(w *Waiter, dir uint8, timeout time.Duration) error {
	if f.loop.closed {
		w.arm(timeout) // wakes w at once with LoopClosed, like every wait after Close
		return nil
	}
	if f.closed {
		return fmt.Errorf("loop: wait on fd %d: %w", f.fd, ErrFDClosed)
	}
	slot, edge := &f.reader, &f.readEdge
	if dir == fdWrite {
		slot, edge = &f.writer, &f.writeEdge
	}
	if *slot != nil {
		return fmt.Errorf("loop: wait on fd %d: %w", f.fd, ErrBusy)
	}
	if !w.arm(timeout) {
		return nil // woken with LoopClosed
	}
	*slot, w.fd, w.dir = w, f, dir
	if *edge {
		*edge = false
		w.wake(Ready, f.seen&(readSide|writeSide))
	} else if dir == fdRead && (f.Buffered() > 0 || f.cx != nil && (f.cx.has(cfRdone) || len(f.loop.comp.x(f.cx).accepted) > 0)) {
		w.wake(Ready, f.seen&(readSide|writeSide)|EventIn)
	} else if dir == fdWrite && f.cx != nil && len(f.loop.comp.x(f.cx).pend) < compSendLimit {
		w.wake(Ready, f.seen&(readSide|writeSide)|EventOut) // a write queues at once
	}
	w.expireNow(timeout)
	return nil
}

// notify delivers one poller event to f.
func (f *FD) notify(ev Events) {
	f.seen |= ev
	if ev&readSide != 0 {
		if w := f.reader; w != nil {
			w.wake(Ready, ev)
		} else {
			f.readEdge = true
		}
	}
	if ev&writeSide != 0 {
		if w := f.writer; w != nil {
			w.wake(Ready, ev)
		} else {
			f.writeEdge = true
		}
	}
}

// Unregister removes f from the loop without closing the descriptor. Waiters
// on f wake with Closed. It is idempotent.
func (f *FD) Unregister() error {
	_, err := f.unregister(false)
	return err
}

// unregister is Unregister; closing says FD.Close calls it, and deferred
// that the poller closes the descriptor later (completion mode with a send
// in flight: see RegisterCompletion).
func (f *FD) unregister(closing bool) (deferred bool, err error) {
	if f.closed {
		return false, nil
	}
	f.closed = true
	l := f.loop
	if w := f.reader; w != nil {
		w.wake(Closed, 0)
	}
	if w := f.writer; w != nil {
		w.wake(Closed, 0)
	}
	if f.fd < len(l.fds) && l.fds[f.fd] == f {
		l.fds[f.fd] = nil
		l.stats.FDs--
	}
	if c := f.cx; c != nil {
		// c's slot serves another connection once its requests are
		// over: f lets go of it.
		f.cx = nil
		deferred := l.comp.detach(c, closing && !l.closed)
		if deferred {
			l.compLingerFor(c)
		}
		return deferred, nil
	}
	if l.closed {
		return false, nil // the poller is gone, and the registration with it
	}
	if err := l.poller.del(f.fd); err != nil && !isBadFD(err) {
		return false, fmt.Errorf("loop: unregister fd %d: %w", f.fd, err)
	}
	return false, nil
}

// Close unregisters f, waking its waiters with Closed, and closes the
// descriptor.
func (f *FD) Close() error {
	if f.closed {
		return fmt.Errorf("loop: close fd %d: %w", f.fd, ErrFDClosed)
	}
	deferred, err := f.unregister(true)
	if deferred {
		return err
	}
	if cerr := closeDescriptor(f.fd); cerr != nil && err == nil {
		err = fmt.Errorf("loop: close fd %d: %w", f.fd, os.NewSyscallError("close", cerr))
	}
	return err
}

// CloseFD closes fd: through its registration if it has one ([FD.Close]:
// its waiters wake with Closed first), else with a plain close(2). Both
// coroutine models' Close use it.
func (l *Loop) CloseFD(fd int) error {
	if f := l.Lookup(fd); f != nil {
		return f.Close()
	}
	if err := closeDescriptor(fd); err != nil {
		return os.NewSyscallError("close", err)
	}
	return nil
}

func isBadFD(err error) bool {
	return errors.Is(err, syscall.EBADF) || errors.Is(err, syscall.ENOENT)
}
