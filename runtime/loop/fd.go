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
func (l *Loop) Register(fd int) (*FD, error) {
	if l.closed {
		return nil, ErrClosed
	}
	if fd < 0 {
		return nil, fmt.Errorf("loop: register fd %d: %w", fd, syscall.EBADF)
	}
	if fd < len(l.fds) && l.fds[fd] != nil {
		return nil, fmt.Errorf("loop: register fd %d: %w", fd, ErrRegistered)
	}
	if err := l.poller.add(fd); err != nil {
		return nil, fmt.Errorf("loop: register fd %d: %w", fd, err)
	}
	for fd >= len(l.fds) {
		l.fds = append(l.fds, nil)
	}
	f := &FD{loop: l, fd: fd, stream: isStream(fd)}
	l.fds[fd] = f
	l.stats.FDs++
	return f, nil
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
	} else if dir == fdRead && f.Buffered() > 0 {
		w.wake(Ready, f.seen&(readSide|writeSide)|EventIn)
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
	if f.closed {
		return nil
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
	if l.closed {
		return nil // the poller is gone, and the registration with it
	}
	if err := l.poller.del(f.fd); err != nil && !isBadFD(err) {
		return fmt.Errorf("loop: unregister fd %d: %w", f.fd, err)
	}
	return nil
}

// Close unregisters f, waking its waiters with Closed, and closes the
// descriptor.
func (f *FD) Close() error {
	if f.closed {
		return fmt.Errorf("loop: close fd %d: %w", f.fd, ErrFDClosed)
	}
	err := f.Unregister()
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
