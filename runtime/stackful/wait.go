package stackful

import (
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// Cond is the loop's condition variable (libco's co_cond): Signal and
// Broadcast put waiters on the loop's ready queue, and the loop resumes them
// on a later step, never inline in the signaller. The zero value is ready to
// use. The same type serves stackless tasks.
type Cond = loop.Cond

// The waiting methods below are the suspension points of a stackful
// coroutine; the stackless task type has the same methods with the same
// signatures. Each one is built on a loop.Try* operation and the coroutine's
// embedded waiter: try; if it would block, the waiter is armed, the
// coroutine yields to its resumer (libco's co_yield_env), and the loop
// resumes it when the waiter is woken; then try again.
//
// Called on the main coroutine, a waiting method runs the loop until the
// wait ends (other coroutines run meanwhile), since main has no resumer to
// yield to; this fails with the loop's panic if the loop is already running
// on the main coroutine (for example inside the stop function of Env.Run).
//
// Every waiting method must be called by the coroutine it is called on,
// which must be the env's current one; otherwise it panics. File descriptors
// must be non-blocking.
//
// Timeouts follow the loop's convention (package loop, Timeouts): negative
// waits as long as it takes, 0 tries once and times out at once without
// suspending, positive bounds the wait and never fires early.

// Read reads up to len(p) bytes from fd, waiting until some are available.
func (co *Co) Read(fd int, p []byte) (int, error) { return co.ReadTimeout(fd, p, -1) }

// ReadTimeout is Read giving up with [loop.ErrTimeout] after timeout
// (negative: never; 0: at once if nothing can be read now).
func (co *Co) ReadTimeout(fd int, p []byte, timeout time.Duration) (int, error) {
	co.mustBeCurrent("Read")
	l := co.env.loop
	deadline := deadlineOf(l, timeout)
	for {
		n, wait, err := l.TryReadStream(&co.w, fd, p, timeout)
		if !wait || err != nil {
			return n, err
		}
		if r := co.wait(); r != loop.Ready {
			return 0, r.Err()
		}
		timeout = remaining(l, deadline, timeout)
	}
}

// Write writes all of p to fd, waiting as often as needed, unless an error
// occurs; it returns the number of bytes written.
func (co *Co) Write(fd int, p []byte) (int, error) { return co.WriteTimeout(fd, p, -1) }

// WriteTimeout is Write giving up with [loop.ErrTimeout] after timeout
// (negative: never; 0: once the kernel takes no more without waiting); the
// bytes written so far are reported.
func (co *Co) WriteTimeout(fd int, p []byte, timeout time.Duration) (int, error) {
	co.mustBeCurrent("Write")
	l := co.env.loop
	deadline := deadlineOf(l, timeout)
	done := 0
	for {
		n, wait, err := l.TryWrite(&co.w, fd, p[done:], timeout)
		done += n
		if !wait || err != nil {
			return done, err
		}
		if r := co.wait(); r != loop.Ready {
			return done, r.Err()
		}
		timeout = remaining(l, deadline, timeout)
	}
}

// Accept accepts a connection on the listening socket fd, waiting for one.
// The new fd is non-blocking and close-on-exec.
func (co *Co) Accept(fd int) (int, loop.Sockaddr, error) { return co.AcceptTimeout(fd, -1) }

// AcceptTimeout is Accept giving up with [loop.ErrTimeout] after timeout
// (negative: never; 0: at once if no connection is pending).
func (co *Co) AcceptTimeout(fd int, timeout time.Duration) (int, loop.Sockaddr, error) {
	co.mustBeCurrent("Accept")
	l := co.env.loop
	deadline := deadlineOf(l, timeout)
	for {
		nfd, sa, wait, err := l.TryAccept(&co.w, fd, timeout)
		if !wait || err != nil {
			return nfd, sa, err
		}
		if r := co.wait(); r != loop.Ready {
			return -1, nil, r.Err()
		}
		timeout = remaining(l, deadline, timeout)
	}
}

// Connect connects the non-blocking socket fd to sa, waiting until the
// connection is established or fails.
func (co *Co) Connect(fd int, sa loop.Sockaddr) error { return co.ConnectTimeout(fd, sa, -1) }

// ConnectTimeout is Connect giving up with [loop.ErrTimeout] after timeout
// (negative: never; 0: at once if the connection is not established by the
// connect call itself, leaving it in progress).
func (co *Co) ConnectTimeout(fd int, sa loop.Sockaddr, timeout time.Duration) error {
	co.mustBeCurrent("Connect")
	l := co.env.loop
	deadline := deadlineOf(l, timeout)
	for {
		wait, err := l.TryConnect(&co.w, fd, sa, timeout)
		if !wait || err != nil {
			return err
		}
		if r := co.wait(); r != loop.Ready {
			return r.Err()
		}
		timeout = remaining(l, deadline, timeout)
	}
}

// Poll is poll(2) on the loop (libco's co_poll): it waits until one of fds is
// ready for its requested Events, or timeout passes (negative: forever;
// 0: just check), and returns the number of fds with non-zero Revents: 0 on
// timeout. Revents carries poll(2)'s bits, EventErr, EventHup and EventNval
// included. With no fds it sleeps for timeout, libco's poll(NULL, 0, ms).
// Fds already registered with the loop keep their registration; others are
// registered for the call only.
//
// Like poll(2), and unlike libco's co_poll (which always suspends), Poll
// returns without suspending when an fd is ready already or timeout is 0.
// So that a coroutine polling ready fds in a loop cannot keep the env's
// other coroutines from running, every pollYieldEvery-th Poll in a row that
// did not suspend first moves the coroutine to the back of the ready queue,
// as [Co.Gosched] does.
func (co *Co) Poll(fds []loop.PollFd, timeout time.Duration) (int, error) {
	co.mustBeCurrent("Poll")
	l := co.env.loop
	x := co.ext()
	if x.pollStreak >= pollYieldEvery {
		deadline := deadlineOf(l, timeout)
		x.pollStreak = 0
		co.Gosched()
		timeout = remaining(l, deadline, timeout)
	}
	deadline := deadlineOf(l, timeout)
	for {
		x.polled = true
		n, wait, err := l.TryPoll(&co.w, &x.poll, fds, timeout)
		if !wait || err != nil {
			x.polled = false
			x.pollStreak++
			return n, err
		}
		x.pollStreak = 0
		r := co.wait()
		co.endPoll()
		switch r {
		case loop.Ready, loop.Closed:
			// Check again: an fd closed while polled reports EventNval.
			timeout = remaining(l, deadline, timeout)
		case loop.Timeout:
			timeout = 0 // a last check reports what is ready at the deadline
		default:
			return 0, r.Err()
		}
	}
}

// pollYieldEvery is how many Polls in a row may return without suspending
// before the next one yields its turn first. A yield is a Gosched (a few
// hundred nanoseconds with the loop's round), so at 64 it adds well under
// 1% to a Poll of a ready fd, which is mostly its poll(2) call: the
// difference is within the noise of BenchmarkPollReady (0.39-0.63 µs per
// Poll without the yield, 0.41-0.53 at 64, 0.37-0.45 at 16; -count 3,
// load average 10). A coroutine polling ready fds in a loop then lets the
// others run every 64 Polls, some 30 µs.
const pollYieldEvery = 64

// endPoll releases what a poll that waited holds on the loop.
func (co *Co) endPoll() {
	if x := co.more(); x != nil && x.polled {
		x.polled = false
		co.env.loop.EndPoll(&co.w, &x.poll)
	}
}

// Sleep suspends the coroutine for d; it never wakes early. Like
// time.Sleep, d <= 0 returns at once, without suspending ([Co.Gosched]
// gives the other coroutines a turn).
func (co *Co) Sleep(d time.Duration) {
	co.mustBeCurrent("Sleep")
	if d <= 0 {
		return
	}
	co.w.Sleep(d)
	co.wait()
}

// Gosched moves the coroutine to the back of the loop's ready queue: every
// coroutine already woken runs before it continues.
func (co *Co) Gosched() {
	co.mustBeCurrent("Gosched")
	co.w.Yield()
	co.wait()
}

// Wait waits on c until it is signalled (true) or timeout passes (false);
// a negative timeout waits forever, and 0 returns false at once without
// suspending (libco's co_cond_timedwait waits forever for any timeout <= 0).
// A signal queues the coroutine on the loop, which resumes it in the same
// iteration of the loop, before Run's stop function is called.
func (co *Co) Wait(c *Cond, timeout time.Duration) bool {
	co.mustBeCurrent("Wait")
	if timeout == 0 {
		return false
	}
	c.Wait(&co.w, timeout)
	return co.wait() == loop.Signaled
}

// Close closes fd: if it is registered with the loop, the registration is
// dropped and coroutines waiting on it wake with an error first (hooked
// close in libco). It does not suspend.
func (co *Co) Close(fd int) error {
	if co == nil {
		nilCo("Close")
	}
	return co.env.loop.CloseFD(fd)
}

// Waiter returns the coroutine's loop waiter, for building waiting
// operations beyond the ones above: arm it (for example with a loop.Try*
// function, [loop.FD.WaitRead] or [loop.Waiter.Park]) and call
// [Co.Await]. Waking it from outside the coroutine ([loop.Waiter.Wake],
// [loop.Waiter.Cancel]) must happen on the loop's goroutine.
func (co *Co) Waiter() *loop.Waiter {
	if co == nil {
		nilCo("Waiter")
	}
	return &co.w
}

// Await suspends the coroutine until its waiter, already armed through
// [Co.Waiter], is woken, and returns why. It panics if the waiter is not
// armed.
func (co *Co) Await() loop.Reason {
	co.mustBeCurrent("Await")
	if !co.w.Armed() && !co.w.Queued() {
		panic("stackful: Await with a waiter that is not armed")
	}
	return co.wait()
}

func (co *Co) mustBeCurrent(op string) {
	if co == nil {
		nilCo(op)
	}
	if co != co.env.current {
		panic("stackful: " + op + " called on a coroutine that is not the current one")
	}
}

// wait suspends co until its armed waiter is woken and returns the reason.
//
// Like Resume, it is flat: it switches away itself (suspend's body, not a
// call of it), and so does its direct hand-off, since each call level
// between a wait and a switch costs a mispredicted return when control
// comes back through the switch.
//
// The direct hand-off is the stackful side of Go's runnext (see
// runtime/cosync's "Hand-off"): co, resumed by the loop and about to wait,
// switches itself to the coroutine in the loop's run-next slot instead of
// yielding to the main coroutine, which would only pop the slot and switch
// to it: one switch where there were two, and no pass through the loop.
// That coroutine runs nested in co (the call stack is main, co, it), so
// when it waits or yields, co gets control back and looks at the slot
// again. When the slot holds co itself (the coroutine it ran handed a
// value back), co goes on without any switch. co suspends as usual when
// the slot is empty or holds a waiter that is not a waiting coroutine of
// this env (handOffTarget), or when the coroutine it ran panicked (the
// panic is raised by the loop's resume of co, as if the loop had resumed
// that coroutine itself). The loop's bound on run-next runs bounds the
// chain.
func (co *Co) wait() loop.Reason {
	e := co.env
	if co.state != stateRunning || e.loop.Closed() {
		return co.waitSpecial()
	}
	if e.dispatching && e.depth == 2 {
		l := e.loop
		for {
			w := l.PeekNext()
			if w == &co.w {
				if l.TakeNext() != w { // co's waiter is queued there, so the slot yields it
					panic("stackful: internal error: the run-next slot did not yield the waiter it held")
				}
				return co.w.Reason()
			}
			next := co.handOffTarget(w)
			if next == nil {
				break
			}
			l.TakeNext()
			// Resume's steps, without its raise: a panic of next belongs
			// to the loop, not to co's wait.
			d := e.depth
			e.stack[d] = next
			e.depth = d + 1
			e.current = next
			e.noteResume(next)
			next.state = stateRunning
			if next.sw.raw() {
				next.sw.enter()
			} else {
				next.next()
			}
			if next.state == statePanicked {
				e.handedPanic = next
				break
			}
		}
	}
	e.depth--
	e.current = e.stack[e.depth-1]
	e.noteCurrent(e.current)
	co.state = stateWaiting
	if co.sw.raw() {
		co.sw.leave()
	} else {
		co.yield(struct{}{})
	}
	if co.state == stateUnwinding {
		panic(errUnwind)
	}
	return co.w.Reason()
}

// handOffTarget returns the coroutine that co, waiting, switches to
// directly when the run-next slot holds w: a waiting coroutine of co's env
// with room on the call stack, while co's own waiter is still armed (woken
// into the queue, co runs in queue order). It returns nil otherwise.
func (co *Co) handOffTarget(w *loop.Waiter) *Co {
	e := co.env
	if w == nil || !co.w.Armed() || !w.Queued() || e.depth >= len(e.stack) {
		return nil
	}
	wk, ok := w.Runner().(*wakeup)
	if !ok {
		return nil
	}
	next := (*Co)(wk)
	if next.env != e || next.state != stateWaiting {
		return nil
	}
	return next
}

// waitSpecial is wait for a coroutine that is not simply running (the main
// coroutine, one being unwound) or whose loop is closed.
func (co *Co) waitSpecial() loop.Reason {
	if co.state == stateUnwinding {
		co.w.Disarm()
		panic(errUnwind)
	}
	if co.env.loop.Closed() {
		// Arming on a closed loop queues the waiter at once with
		// LoopClosed, and nothing runs the queue any more.
		co.w.Disarm()
		return loop.LoopClosed
	}
	if co.state == stateMain {
		return co.env.mainWait()
	}
	panic("stackful: internal error: wait in state " + stateStatus[co.state].String())
}

// mainWait runs the loop until the main coroutine's waiter has been woken
// and run.
func (e *Env) mainWait() loop.Reason {
	w := &e.main.w
	for w.Armed() || w.Queued() {
		if e.loop.Closed() {
			w.Disarm()
			return loop.LoopClosed
		}
		if err := e.loop.Run(e.mainStop); err != nil {
			w.Disarm()
			panic("stackful: event loop failed while the main coroutine waited: " + err.Error())
		}
		if !e.mainStop() && !e.loop.Closed() {
			e.stopPending = true // Run consumed a StopRun meant for Env.Run
		}
	}
	return w.Reason()
}

func deadlineOf(l *loop.Loop, timeout time.Duration) time.Duration {
	if timeout < 0 {
		return -1
	}
	return l.Now() + timeout
}

func remaining(l *loop.Loop, deadline, timeout time.Duration) time.Duration {
	if timeout < 0 {
		return -1
	}
	return max(deadline-l.Now(), 0)
}
