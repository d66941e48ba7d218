package loop

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Errors reported by the loop and carried by wake-up reasons.
var (
	ErrNotSupported = errors.New("loop: not supported on this platform")
	ErrClosed       = fmt.Errorf("loop: loop closed: %w", net.ErrClosed)
	ErrFDClosed     = fmt.Errorf("loop: fd closed: %w", net.ErrClosed)
	ErrTimeout      = errors.New("loop: timed out")
	ErrCanceled     = errors.New("loop: canceled")
	ErrRegistered   = errors.New("loop: fd already registered")
	ErrBusy         = errors.New("loop: another waiter already waits on this fd in this direction")
)

// Stats are counters kept by the loop. Read them on the loop goroutine (for
// example from the stop function) or after Run returns.
type Stats struct {
	Polls       uint64 // returns from the poller's wait (epoll_wait)
	Events      uint64 // fd events delivered
	TimersFired uint64
	Runs        uint64 // waiters run from the ready queue
	Skipped     uint64 // queued waiters dropped before they ran
	Submitted   uint64 // funcs run from Submit
	FDs         int    // fds registered now
	Armed       int    // waiters armed now
}

// A Loop is a single-goroutine reactor. Create one with New, drive it with
// Run, and release it with Close.
type Loop struct {
	poller  poller
	backend Backend
	comp    compPoller // the poller's completion I/O (comp.go); nil without
	wheel   wheel
	ready   readyQueue
	fds     []*FD // indexed by fd number; grows on demand, no fixed limit
	// fdSpare is the rest of the block newFD hands records out of.
	fdSpare []FD

	armedHead *Waiter // every armed waiter, so Close can wake them all

	base  time.Time
	now   int64        // loop clock at the start of the current timer step
	clock func() int64 // nanoseconds since base; replaced by tests

	submitMu   sync.Mutex
	submitted  []func()
	submitting []func() // the batch being run; reused
	hasSubmit  atomic.Bool

	running  bool
	closed   bool
	closedMu sync.Mutex // guards closed against Submit, Wake and Stop

	stopReq  atomic.Bool   // Stop was called: the next stop check ends Run
	idleTick time.Duration // SetIdleTick: the longest poller wait; 0 for none

	dispatchFn func(fd int, ev Events)
	fireFn     func(*Timer)

	stats Stats

	overflow [readAheadSize]byte // TryReadStream's second iovec
}

// New creates a loop on the default backend: [BackendAuto].
func New() (*Loop, error) { return NewBackend(BackendAuto) }

func withPoller(p poller) *Loop {
	l := &Loop{poller: p, base: time.Now()}
	track(l)
	l.clock = func() int64 { return int64(time.Since(l.base)) }
	l.dispatchFn = l.dispatch
	l.fireFn = l.fire
	return l
}

// nanotime is the loop clock: monotonic nanoseconds since New.
func (l *Loop) nanotime() int64 { return l.clock() }

// Now returns the time elapsed on the loop's monotonic clock since New.
func (l *Loop) Now() time.Duration { return time.Duration(l.nanotime()) }

// Stats returns the loop's counters. Call it on the loop goroutine.
func (l *Loop) Stats() Stats { return l.stats }

// Closed reports whether Close has been called.
func (l *Loop) Closed() bool { return l.closed }

// Pending reports the number of waiters on the ready queue.
func (l *Loop) Pending() int { return l.ready.waiting() }

// Run runs the loop until stop returns true; stop (libco's co_eventloop pfn)
// is called once per iteration, after the ready queue has run, including
// the wake-ups queued while it ran (see the package doc's "One iteration"),
// and once before the first: a condition that already holds returns at
// once, without an iteration. (Work done before Run, such as coroutines
// whose hooked calls all completed without waiting, may have met it, and
// the first iteration could block in the poller for good.) To run exactly
// one iteration, return false on the first call and true on the second.
// A nil stop runs until Close or [Loop.StopRun]. Run returns nil when stopped
// or closed, and the poller's error if waiting fails. After Close it returns
// ErrClosed, having run any waiter that was armed since (those wake at once
// with LoopClosed).
//
// Otherwise stop is called only when an iteration ends, and an idle loop
// does not iterate: with nothing ready and no timer pending, Run blocks in
// the poller until an fd event or a [Loop.Submit]. A stop condition set by
// another goroutine (a signal handler, a quit flag) is therefore not seen
// until something wakes the loop: set it and call [Loop.Wake], or call
// [Loop.StopRun] instead, or give the loop a cadence with [Loop.SetIdleTick]
// (libco's co_eventloop polls with a 1 ms timeout, so its pfn runs about a
// thousand times a second even when idle).
func (l *Loop) Run(stop func() bool) error {
	if l.closed {
		l.drain()
		return ErrClosed
	}
	if l.running {
		panic("loop: Run called while the loop is running")
	}
	if stop != nil && stop() {
		return nil
	}
	l.running = true
	defer func() { l.running = false; l.compFlush() }()
	for {
		if _, err := l.poller.wait(l.pollTimeout(), l.dispatchFn); err != nil {
			return err
		}
		l.stats.Polls++
		l.step()
		if l.closed {
			l.drain() // Close was called during this iteration
			return nil
		}
		if stop != nil && stop() {
			return nil
		}
		if l.stopReq.Load() && l.stopReq.Swap(false) {
			return nil
		}
	}
}

// StopRun makes Run return after the iteration it is in, or, if the loop is
// not running, the next Run return after its first iteration; each call
// stops one Run. Like Submit and Wake, and unlike the rest of the loop, it
// may be called from any goroutine. It fails with ErrClosed after Close.
func (l *Loop) StopRun() error {
	l.stopReq.Store(true)
	return l.Wake()
}

// StopRequested reports whether a [Loop.StopRun] is pending: called, and not
// yet consumed by a Run.
func (l *Loop) StopRequested() bool { return l.stopReq.Load() }

// Wake makes the loop run an iteration, and so call Run's stop function,
// even if nothing else is due; a loop blocked in the poller returns from
// it. Repeated calls before that iteration collapse into one. It may be
// called from any goroutine and allocates nothing. It fails with ErrClosed
// after Close.
func (l *Loop) Wake() error {
	l.closedMu.Lock()
	defer l.closedMu.Unlock()
	if l.closed {
		return ErrClosed
	}
	return l.poller.wake()
}

// SetIdleTick bounds how long Run blocks in the poller: with d > 0 an
// iteration, and so a call of Run's stop function, happens at least every d
// even when the loop is idle. It is for code
// ported from libco whose pfn polls a condition that other threads set;
// prefer [Loop.StopRun] or [Loop.Wake], which cost nothing while idle. d <= 0,
// the default, removes the bound. Call it on the loop goroutine.
func (l *Loop) SetIdleTick(d time.Duration) {
	l.idleTick = max(d, 0)
}

// pollTimeout is waitTimeout bounded by the idle tick.
func (l *Loop) pollTimeout() time.Duration {
	t := l.waitTimeout()
	if tick := l.idleTick; tick > 0 && (t < 0 || t > tick) {
		return tick
	}
	return t
}

// RunOnce runs one iteration without blocking in the poller. After Close it
// runs what Run would and returns ErrClosed.
func (l *Loop) RunOnce() error {
	if l.closed {
		l.drain()
		return ErrClosed
	}
	if _, err := l.poller.wait(0, l.dispatchFn); err != nil {
		return err
	}
	l.stats.Polls++
	l.step()
	if l.closed {
		l.drain()
	}
	l.compFlush()
	return nil
}

// step is everything an iteration does after the poller returns.
func (l *Loop) step() {
	l.now = l.nanotime()
	l.wheel.advance(l.now, l.fireFn)
	l.runSubmitted()
	l.runReady(l.ready.waiting())
	for i := 1; i <= lateRounds && l.ready.waiting() > 0; i++ {
		if i%lateCheckEvery == 0 && l.nanotime()-l.now >= int64(lateBudget) {
			break
		}
		l.runReady(l.ready.waiting())
	}
}

// lateRounds, lateCheckEvery and lateBudget bound how long an iteration
// keeps running the ready queue for the waiters woken while it ran (libco
// drains its active list, including what is appended while draining,
// before calling pfn) instead of polling. Each round runs the waiters
// queued when it starts; an iteration runs at most 1+lateRounds rounds,
// and, from the lateCheckEvery-th round on, looks at the clock every
// lateCheckEvery rounds and stops once lateBudget has passed since the
// poller returned. So a waiter that keeps requeueing itself (Gosched in a
// loop, two coroutines signalling each other) runs at most 1+lateRounds
// times per iteration, an iteration whose rounds are long ends after
// lateCheckEvery rounds once it is past the budget, and an fd event or a
// due timer waits at most that long (plus one round) for the next poll.
//
// The poll is what the bound buys: two coroutines that wake each other
// with Wake (a Cond) make one round per wake-up, and an epoll_wait costs
// about as much as a channel round trip between two stackless tasks. A
// channel's hand-off (WakeNext) runs within the round instead, up to
// maxRunNext runs.
const (
	lateRounds     = 63
	lateCheckEvery = 8
	lateBudget     = 50 * time.Microsecond
)

// waitTimeout is the poller timeout: 0 if work is ready, the time to the
// next timer's deadline (or to the next wheel move) with nanosecond
// precision, or -1 (forever) if there is none.
func (l *Loop) waitTimeout() time.Duration {
	if l.ready.waiting() > 0 || l.hasSubmit.Load() {
		return 0
	}
	at, ok := l.wheel.nextAt()
	if !ok {
		return -1
	}
	d := at - l.nanotime()
	if d <= 0 {
		return 0
	}
	return time.Duration(d)
}

func (l *Loop) dispatch(fd int, ev Events) {
	l.stats.Events++
	if f := l.Lookup(fd); f != nil {
		f.notify(ev)
	}
}

// runReady runs at most n waiters from the ring: those queued before it
// starts. Waiters woken while it runs wait for the next round (see
// lateRounds), so fd events and timers are never starved by a waiter that
// keeps requeueing itself. A waiter in the run-next slot runs before the
// ring's next one and does not count in n: a chain of direct hand-offs runs
// within the round, up to maxRunNext runs.
func (l *Loop) runReady(n int) {
	for n > 0 {
		n = l.runBatch(n)
	}
}

// runBatch is runReady's body. Its one deferred recover protects the whole
// batch: a [PanicHandler] whose Run panics gets the value and runBatch
// returns how many runs are left, so a runner does not need a defer of its
// own on every run (a defer per run would be a large share of a stackless
// switch: docs/benchmarks.md). A panic from any
// other runner is not recovered and leaves Run with its original stack.
func (l *Loop) runBatch(n int) (left int) {
	var cur *Waiter // the waiter being run; nil between runs
	defer func() {
		if cur == nil {
			return
		}
		if h, ok := cur.runner.(PanicHandler); ok {
			if v := recover(); v != nil {
				h.HandlePanic(v)
				left = n
			}
		}
	}()
	for {
		w := l.ready.takeNext()
		if w == nil {
			if n == 0 {
				break
			}
			if w = l.ready.pop(); w == nil {
				return 0
			}
			l.ready.streak = 0
			n--
		}
		if w.state != waiterQueued {
			continue // disarmed or killed after it was queued
		}
		w.state = waiterIdle
		l.stats.Runs++
		cur = w
		w.runner.Run()
	}
	cur = nil
	return 0
}

// Submit queues fn to run on the loop goroutine during its next iteration
// and wakes the loop if it is blocked. It is safe to call from any
// goroutine. It fails after Close; funcs submitted before Close still run.
func (l *Loop) Submit(fn func()) error {
	l.closedMu.Lock()
	if l.closed {
		l.closedMu.Unlock()
		return ErrClosed
	}
	l.submitMu.Lock()
	l.submitted = append(l.submitted, fn)
	l.submitMu.Unlock()
	l.hasSubmit.Store(true)
	err := l.poller.wake()
	l.closedMu.Unlock()
	return err
}

func (l *Loop) runSubmitted() {
	if !l.hasSubmit.Load() {
		return
	}
	l.hasSubmit.Store(false)
	l.submitMu.Lock()
	batch := l.submitted
	l.submitted = l.submitting[:0]
	l.submitMu.Unlock()
	for i, fn := range batch {
		batch[i] = nil
		l.stats.Submitted++
		fn()
	}
	l.submitting = batch[:0]
}

func (l *Loop) park(w *Waiter) {
	w.pprev, w.pnext = nil, l.armedHead
	if l.armedHead != nil {
		l.armedHead.pprev = w
	}
	l.armedHead = w
	l.stats.Armed++
}

func (l *Loop) unpark(w *Waiter) {
	if w.pprev == nil {
		l.armedHead = w.pnext
	} else {
		w.pprev.pnext = w.pnext
	}
	if w.pnext != nil {
		w.pnext.pprev = w.pprev
	}
	w.pprev, w.pnext = nil, nil
	l.stats.Armed--
}

// Close shuts the loop down: every armed waiter wakes with LoopClosed and
// every queued waiter and submitted func runs, until none is left; waits
// armed from then on wake at once with LoopClosed. Then the registrations
// are dropped (the fds themselves stay open: they belong to their owners)
// and the poller's descriptors are closed. Close must be called on the loop
// goroutine or while Run is not running; Run returns after the iteration
// that called it. Closing twice is a no-op.
func (l *Loop) Close() error {
	l.closedMu.Lock()
	if l.closed {
		l.closedMu.Unlock()
		return nil
	}
	l.closed = true
	l.closedMu.Unlock()
	l.drain()
	for _, f := range l.fds {
		if f != nil {
			f.Unregister()
		}
	}
	l.fds = nil
	untrack(l)
	return l.poller.close()
}

// drain wakes every armed waiter with LoopClosed and runs the ready queue and
// submitted funcs until nothing is left. Waits armed while it runs wake at
// once, so it ends unless a waiter keeps waiting forever. Close calls it, and
// Run and RunOnce call it again when Close was called from inside them, for
// the waiters queued after that Close returned.
func (l *Loop) drain() {
	for {
		for l.armedHead != nil {
			l.armedHead.wake(LoopClosed, 0)
		}
		l.runSubmitted()
		if l.ready.waiting() == 0 && l.armedHead == nil && !l.hasSubmit.Load() {
			return
		}
		l.runReady(l.ready.waiting())
	}
}
