package stackless

import (
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// Read reads from the non-blocking fd into p, suspending the task until data
// (or EOF, or an error) is available. It returns what read(2) returns.
func (t *Task) Read(fd int, p []byte) (int, error) { return t.ReadTimeout(fd, p, -1) }

// ReadTimeout is Read giving up with [loop.ErrTimeout] after timeout
// (negative: never), as the stackful coroutine's ReadTimeout does. A wait
// with a timeout keeps its deadline in the task's extension (allocated once
// per task), so a wake-up that finds no data waits only for what is left.
func (t *Task) ReadTimeout(fd int, p []byte, timeout time.Duration) (int, error) {
	t.check()
	r, timeout, err := t.resumeTimed(timeout)
	if err != nil {
		return 0, err
	}
	n, wait, err := t.w.Loop().TryReadStream(&t.w, fd, p, timeout)
	if wait && err == nil {
		t.blockTimed(r, timeout)
	}
	return n, err
}

// resumeTimed is the common entry of the fd operations with a timeout:
// the reason of the wake-up that retries the operation (NotWoken on its
// first call), the time left of its timeout (negative: none; on a retry,
// what is left of the deadline its first call recorded), and the error
// that ends it if the task is canceled or the wake-up was not Ready.
func (t *Task) resumeTimed(timeout time.Duration) (loop.Reason, time.Duration, error) {
	r := t.resumed()
	switch {
	case t.canceled:
		return r, timeout, ErrCanceled
	case r == loop.NotWoken:
	case r != loop.Ready:
		return r, timeout, r.Err()
	case timeout >= 0:
		timeout = max(t.ext.more.deadline-t.w.Loop().Now(), 0)
	}
	return r, timeout, nil
}

// blockTimed suspends the task in an operation that armed its waiter; the
// first call of an operation with a timeout records its deadline, in the
// task's extension (allocated once per task).
func (t *Task) blockTimed(r loop.Reason, timeout time.Duration) {
	if timeout >= 0 && r == loop.NotWoken {
		t.more().deadline = t.w.Loop().Now() + timeout
	}
	t.block()
}

// Write writes all of p to the non-blocking fd, suspending whenever the
// kernel's buffer is full, as a blocking write does. It returns len(p), or
// the bytes written before an error.
func (t *Task) Write(fd int, p []byte) (int, error) { return t.WriteTimeout(fd, p, -1) }

// WriteTimeout is Write giving up with [loop.ErrTimeout] after timeout
// (negative: never; 0: once the kernel takes no more without waiting), as
// the stackful coroutine's WriteTimeout does; the bytes written so far are
// reported.
func (t *Task) WriteTimeout(fd int, p []byte, timeout time.Duration) (int, error) {
	t.check()
	done := 0 // written by earlier calls of this Write that suspended
	if m := t.moreIfAny(); m != nil {
		done = m.progress
		m.progress = 0
	}
	r, timeout, err := t.resumeTimed(timeout)
	if err != nil {
		return done, err
	}
	n, wait, err := t.w.Loop().TryWrite(&t.w, fd, p[done:], timeout)
	done += n
	if wait && err == nil {
		t.more().progress = done // first partial write of this task: allocates its state once
		t.blockTimed(r, timeout)
		return 0, nil
	}
	return done, err
}

// Accept accepts a connection on the listening fd, suspending until one
// arrives. The new fd is non-blocking and close-on-exec.
func (t *Task) Accept(fd int) (int, loop.Sockaddr, error) { return t.AcceptTimeout(fd, -1) }

// AcceptTimeout is Accept giving up with [loop.ErrTimeout] after timeout
// (negative: never; 0: at once if no connection is pending).
func (t *Task) AcceptTimeout(fd int, timeout time.Duration) (int, loop.Sockaddr, error) {
	t.check()
	r, timeout, err := t.resumeTimed(timeout)
	if err != nil {
		return -1, nil, err
	}
	nfd, sa, wait, err := t.w.Loop().TryAccept(&t.w, fd, timeout)
	if wait && err == nil {
		t.blockTimed(r, timeout)
	}
	return nfd, sa, err
}

// Connect connects the non-blocking socket fd to sa, suspending until the
// connection is established or fails.
func (t *Task) Connect(fd int, sa loop.Sockaddr) error { return t.ConnectTimeout(fd, sa, -1) }

// ConnectTimeout is Connect giving up with [loop.ErrTimeout] after timeout
// (negative: never; 0: at once if the connection is not established by the
// connect call itself, leaving it in progress).
func (t *Task) ConnectTimeout(fd int, sa loop.Sockaddr, timeout time.Duration) error {
	t.check()
	r, timeout, err := t.resumeTimed(timeout)
	if err != nil {
		return err
	}
	wait, err := t.w.Loop().TryConnect(&t.w, fd, sa, timeout)
	if wait && err == nil {
		t.blockTimed(r, timeout)
	}
	return err
}

// Poll is poll(2) for the task (libco's co_poll): it waits until one of fds
// is ready for its requested Events, or timeout passes (negative: forever;
// 0: just check), and returns the number of fds with non-zero Revents: 0 on
// timeout. Revents carries poll(2)'s bits, EventErr, EventHup and EventNval
// included. With no fds it sleeps for timeout. Fds already registered with
// the loop keep their registration; others are registered for the call only.
// The semantics are the stackful coroutine's: after the timeout one last
// check reports what is ready at the deadline, an fd closed while polled
// is checked again (it reports EventNval), and every pollYieldEvery-th Poll
// in a row that would return without suspending (an fd ready already, or a
// zero timeout) first yields the task's turn, as Gosched does, so that a
// task polling ready fds in a loop cannot starve the others.
func (t *Task) Poll(fds []loop.PollFd, timeout time.Duration) (int, error) {
	t.check()
	l := t.w.Loop()
	e := t.more()
	if r := t.resumed(); r != loop.NotWoken {
		l.EndPoll(&t.w, &e.poll)
		switch {
		case t.canceled:
			return 0, ErrCanceled
		case r == loop.Ready || r == loop.Closed:
			timeout = -1
			if e.deadline >= 0 {
				timeout = max(e.deadline-l.Now(), 0)
			}
		case r == loop.Timeout:
			timeout = 0
		default:
			return 0, r.Err()
		}
	} else {
		if t.canceled {
			return 0, ErrCanceled
		}
		e.deadline = -1
		if timeout >= 0 {
			e.deadline = l.Now() + timeout
		}
		if e.pollStreak >= pollYieldEvery {
			e.pollStreak = 0
			t.w.Yield() // the retry takes the Ready branch above and polls
			t.block()
			return 0, nil
		}
	}
	n, wait, err := l.TryPoll(&t.w, &e.poll, fds, timeout)
	if wait && err == nil {
		e.pollStreak = 0
		t.block()
		return 0, nil
	}
	e.pollStreak++
	return n, err
}

// pollYieldEvery is how many Polls in a row may return without suspending
// before the next one yields first: the stackful model's figure (see
// runtime/stackful's pollYieldEvery for its cost).
const pollYieldEvery = 64

// Close unregisters fd from the loop, waking any task waiting on it with an
// error, and closes it.
func (t *Task) Close(fd int) error {
	return t.w.Loop().CloseFD(fd)
}
