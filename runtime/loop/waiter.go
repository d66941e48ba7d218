package loop

import "time"

// A Runner is what a waiter wakes: a stackful coroutine resumes, a stackless
// frame steps. Run is called on the loop goroutine, once per wake-up.
type Runner interface {
	Run()
}

// A PanicHandler is a Runner that takes over a panic raised by its own Run:
// the loop recovers it, calls HandlePanic with the value on the loop
// goroutine, and goes on with the next waiter. A stackless task uses it to
// end itself panicked without paying for a deferred recover on every step.
// A panic from a Runner that is not a PanicHandler is not recovered.
type PanicHandler interface {
	Runner
	HandlePanic(v any)
}

// Reason says why a waiter was woken.
type Reason uint8

// Wake-up reasons.
const (
	NotWoken   Reason = iota // still armed, or never armed
	Ready                    // the fd became ready, or an explicit wake
	Timeout                  // the deadline passed first
	Signaled                 // a Cond signalled or broadcast
	Closed                   // the fd was unregistered or closed while waited on
	Canceled                 // Cancel was called
	LoopClosed               // the loop was closed
)

var reasonNames = [...]string{"not woken", "ready", "timeout", "signaled", "fd closed", "canceled", "loop closed"}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "Reason(?)"
}

// Err maps a reason to its error: nil for Ready and Signaled.
func (r Reason) Err() error {
	switch r {
	case Timeout:
		return ErrTimeout
	case Closed:
		return ErrFDClosed
	case Canceled:
		return ErrCanceled
	case LoopClosed:
		return ErrClosed
	}
	return nil
}

// Waiter states.
//
//	idle --arm--> armed --wake--> queued --run--> idle
//	any --Kill--> dead (wake and run are no-ops until Init)
const (
	waiterIdle uint8 = iota
	waiterArmed
	waiterQueued
	waiterDead
)

// A Waiter is one suspended computation as the loop sees it. Embed it in the
// thing that waits and call Init once; after that, arming and waking it
// allocate nothing, except that the first wait with a timeout allocates the
// waiter's deadline timer, which later waits reuse. Keeping the timer out of
// line keeps a waiter at 96 bytes, so a suspended stackless task (a waiter
// plus a few words) fits a 128-byte allocation.
//
// A waiter is armed on one source at a time (an fd direction, a Cond, or
// nothing but its deadline) plus an optional deadline. The first of them to
// fire wakes it: the others are disarmed, the reason is recorded and the
// waiter joins the ready queue, from which the loop calls its Runner.
type Waiter struct {
	runner Runner
	loop   *Loop
	parent *Waiter // set for a child: a wake is forwarded to the parent
	state  uint8
	reason Reason
	dir    uint8 // fdRead or fdWrite while armed on fd
	events Events

	deadline *Timer // allocated by the first timed wait, then reused
	fd       *FD    // the fd waited on while armed; after a Ready wake from it, kept until the next wait (see Reason)
	cond     *Cond
	cprev    *Waiter // Cond list links
	cnext    *Waiter
	pprev    *Waiter // loop's list of armed waiters
	pnext    *Waiter
}

// Init binds w to loop l and runner r. It must be called before the first use
// and may be called again when w is idle or dead, to reuse it.
func (w *Waiter) Init(l *Loop, r Runner) {
	if w.state == waiterArmed || w.state == waiterQueued {
		panic("loop: Init of an armed or queued waiter")
	}
	d := w.deadline // idle: detach removed it from the wheel
	if d != nil && d.waiter != w {
		d = nil // w is a copy of another waiter: the timer is not its own
	}
	*w = Waiter{runner: r, loop: l, deadline: d}
}

// InitChild binds w to parent's loop as a child: waking w wakes parent with
// the same reason and events instead of queueing w. Poll over several fds
// uses one child per fd.
func (w *Waiter) InitChild(parent *Waiter) {
	w.Init(parent.loop, nil)
	w.parent = parent
}

// Loop returns the loop w belongs to.
func (w *Waiter) Loop() *Loop { return w.loop }

// Reason reports why w was last woken.
//
// A waiter woken Ready by its fd's edge whose fd is then closed before it
// runs (a close in the same iteration: a submitted func, a waiter queued
// ahead of it) reports Closed: its wait had not returned when the fd was
// closed, as it has not for a waiter still armed, which the close wakes
// with Closed. Reporting Ready would send its retry to a closed
// descriptor, whose number may already be another file's.
func (w *Waiter) Reason() Reason {
	if w.reason == Ready && w.fd != nil && w.fd.closed {
		return Closed
	}
	return w.reason
}

// Events reports the readiness bits that woke w, if an fd did.
func (w *Waiter) Events() Events { return w.events }

// Deadline reports when w's own timeout fires, on the loop clock (see
// [Loop.Now]), while w is armed with one: a stackless snapshot of a
// sleeping task records it.
func (w *Waiter) Deadline() (time.Duration, bool) {
	if w.state != waiterArmed || w.deadline == nil || !w.deadline.Scheduled() {
		return 0, false
	}
	return time.Duration(w.deadline.when), true
}

// Armed reports whether w is waiting for a wake-up.
func (w *Waiter) Armed() bool { return w.state == waiterArmed }

// Queued reports whether w has been woken and waits on the ready queue.
func (w *Waiter) Queued() bool { return w.state == waiterQueued }

// arm starts a wait with an optional timeout (negative: none). A zero
// timeout schedules nothing: the caller attaches w's source and then calls
// expireNow, so a source that is ready already still wins. It reports false
// if the wait cannot start because the loop is closed; w has then been woken
// with LoopClosed.
func (w *Waiter) arm(timeout time.Duration) bool {
	l := w.loop
	if l == nil {
		panic("loop: waiter used before Init")
	}
	switch w.state {
	case waiterArmed:
		panic("loop: waiter armed twice")
	case waiterQueued:
		panic("loop: waiter armed while queued")
	case waiterDead:
		panic("loop: waiter armed after Kill")
	}
	w.state = waiterArmed
	w.reason = NotWoken
	w.events = 0
	w.fd = nil // the last wake's fd (see Reason); the wait sets its own
	l.park(w)  // before the closed check: wake unparks
	if l.closed {
		w.wake(LoopClosed, 0)
		return false
	}
	if timeout > 0 {
		if w.deadline == nil {
			w.deadline = &Timer{waiter: w}
		}
		l.schedule(w.deadline, l.after(timeout))
	}
	return true
}

// expireNow ends a wait armed with a zero timeout that its source did not
// end at once: w wakes with Timeout in the call that armed it.
func (w *Waiter) expireNow(timeout time.Duration) {
	if timeout == 0 && w.state == waiterArmed {
		w.wake(Timeout, 0)
	}
}

// Sleep arms w to wake with Timeout after d; d <= 0 wakes it at once.
func (w *Waiter) Sleep(d time.Duration) {
	d = max(d, 0)
	w.arm(d)
	w.expireNow(d)
}

// Park arms w with no source but its timeout (negative: none; zero: w
// wakes with Timeout at once). Something must later call [Waiter.Wake], or
// the timeout must fire.
func (w *Waiter) Park(timeout time.Duration) {
	w.arm(timeout)
	w.expireNow(timeout)
}

// Yield puts w at the back of the ready queue, as if armed and woken at once
// with Ready. Everything already queued runs first.
//
// An idle waiter of an open loop takes a fast path: being armed and woken at
// once, it never joins the armed list or the timing wheel, so a yield costs a
// few stores and one ready-queue push (this is the stackless Gosched).
func (w *Waiter) Yield() {
	if l := w.loop; l != nil && w.state == waiterIdle && w.parent == nil && !l.closed && l.ready.tryPush(w) {
		w.reason = Ready
		w.events = 0
		w.fd = nil
		w.state = waiterQueued
		return
	}
	if w.arm(-1) {
		w.wake(Ready, 0)
	}
}

// Wake wakes w with reason r if it is armed; otherwise it does nothing.
func (w *Waiter) Wake(r Reason) { w.wake(r, 0) }

// WakeNext is Wake for a direct hand-off (Go's runnext): w, if armed, runs
// right after the runner now running, ahead of the waiters already queued,
// as a receiver woken by a send continues before the loop turns to anything
// else. So that a chain of hand-offs cannot starve the queue, w is queued at
// the back like any wake-up when the run-next slot is taken or when 64
// run-next runs have followed one another since the loop last ran a waiter
// from the queue. A parented waiter (a Poll child) wakes as with Wake.
func (w *Waiter) WakeNext(r Reason) {
	if w.state != waiterArmed {
		return
	}
	l := w.loop
	if w.parent != nil || !l.ready.tryNext(w) {
		w.wake(r, 0)
		return
	}
	if w.deadline == nil && w.fd == nil && w.cond == nil {
		l.unpark(w) // detach of a waiter armed on nothing (a Park without timeout: a channel's waiter)
	} else {
		f := w.fd
		w.detach()
		if r == Ready {
			w.fd = f // as in wake: a close before w runs makes Reason Closed
		}
	}
	w.reason = r
	w.events = 0
	w.state = waiterQueued
}

// TakeNext removes the waiter in l's run-next slot, if it still waits to
// run, and returns it as if the loop had popped it to run it: the caller
// must now run it (call its runner, or continue the computation it stands
// for). It returns nil if the slot is empty. A stackful coroutine that
// waits uses it to switch straight to the coroutine it handed a value to,
// or to continue at once when the hand-off was to itself.
func (l *Loop) TakeNext() *Waiter {
	for {
		w := l.ready.takeNext()
		if w == nil {
			return nil
		}
		if w.state == waiterQueued {
			w.state = waiterIdle
			l.stats.Runs++
			return w
		}
	}
}

// PeekNext returns the waiter in l's run-next slot without taking it, or nil.
func (l *Loop) PeekNext() *Waiter { return l.ready.next }

// Runner returns what running w runs (nil for a child).
func (w *Waiter) Runner() Runner { return w.runner }

// Cancel wakes w with Canceled if it is armed.
func (w *Waiter) Cancel() { w.wake(Canceled, 0) }

// Disarm ends w's wait without waking it, and takes it off the ready queue
// if it was queued. It is used to drop the remaining children of a Poll.
func (w *Waiter) Disarm() {
	switch w.state {
	case waiterArmed:
		w.detach()
		w.state = waiterIdle
	case waiterQueued:
		w.state = waiterIdle // the queue skips it
		w.loop.stats.Skipped++
	}
}

// Kill disarms w for good: later wakes and queued runs are no-ops until
// [Waiter.Init]. A finished coroutine or task kills its waiter.
func (w *Waiter) Kill() {
	w.Disarm()
	w.state = waiterDead
}

// detach removes an armed w from its sources and the armed list.
func (w *Waiter) detach() {
	l := w.loop
	if w.deadline != nil {
		l.wheel.remove(w.deadline)
	}
	if f := w.fd; f != nil {
		if w.dir == fdRead {
			f.reader = nil
		} else {
			f.writer = nil
		}
		w.fd = nil
	}
	if c := w.cond; c != nil {
		c.unlink(w)
	}
	l.unpark(w)
}

func (w *Waiter) wake(r Reason, ev Events) {
	if w.state != waiterArmed {
		return
	}
	f := w.fd
	w.detach()
	if r == Ready {
		w.fd = f // kept until the next wait: a close before w runs makes Reason Closed
	}
	w.reason = r
	w.events = ev
	if w.parent != nil {
		w.state = waiterIdle
		w.parent.wake(r, ev)
		return
	}
	w.state = waiterQueued
	if !w.loop.ready.tryPush(w) {
		w.loop.ready.push(w)
	}
}
