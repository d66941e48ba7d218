package loop

import (
	"math"
	"time"
)

// tickNs is the wheel's slot width. It bounds neither precision nor
// lateness: a tick's timers fire at their own deadlines (see wheel.go). It
// sets how many timers share a slot, and so the cost of the scan that finds
// the next deadline before the loop blocks.
const tickNs = int64(time.Millisecond)

// A Timer calls a function, or wakes a [Waiter], at a deadline on the loop.
// The zero value is ready to use; a Timer may be reused after it fires or is
// stopped. A Timer must not be copied while scheduled.
type Timer struct {
	when  int64 // deadline, nanoseconds on the loop clock
	seq   uint64
	idx   int32 // index in its slot
	level uint8
	slot  uint8
	state uint8

	fn     func()
	waiter *Waiter // set for a waiter's own deadline
}

// Scheduled reports whether t is waiting to fire.
func (t *Timer) Scheduled() bool { return t.state != timerIdle }

// Reset schedules t to call fn after d (d <= 0: in this iteration's timer
// step), replacing any earlier schedule of t. It allocates nothing, but for
// the occasional growth of a wheel slot's array (amortized; slots keep theirs).
func (l *Loop) Reset(t *Timer, d time.Duration, fn func()) {
	if t.waiter != nil {
		panic("loop: Reset on a waiter's deadline timer")
	}
	l.wheel.remove(t)
	t.fn = fn
	l.schedule(t, l.after(d))
}

// CancelTimer unschedules t; it reports whether t was scheduled. O(1).
func (l *Loop) CancelTimer(t *Timer) bool { return l.wheel.remove(t) }

// Stop is CancelTimer.
//
// Deprecated: Stop stops a timer, not the loop (that is [Loop.StopRun]);
// use [Loop.CancelTimer]. Stop will be removed in the release after next.
func (l *Loop) Stop(t *Timer) bool { return l.CancelTimer(t) }

// AfterFunc calls fn on the loop after d and returns its timer, which
// [Loop.CancelTimer] cancels. Use [Loop.Reset] with a reused Timer to avoid the
// allocation.
func (l *Loop) AfterFunc(d time.Duration, fn func()) *Timer {
	t := &Timer{}
	l.Reset(t, d, fn)
	return t
}

// after returns the loop time d from now, saturating instead of overflowing
// so that a huge d (math.MaxInt64 as "forever") never wraps into the past.
func (l *Loop) after(d time.Duration) int64 {
	now := l.nanotime()
	if d > 0 && now > math.MaxInt64-int64(d) {
		return math.MaxInt64
	}
	return now + int64(d)
}

func (l *Loop) schedule(t *Timer, when int64) {
	if when < 0 {
		when = 0
	}
	t.when = when
	l.wheel.add(t)
}

// fire runs on the loop for every timer the wheel reports due. The wheel
// fires a timer once l.now reaches its deadline, so t.when <= l.now here.
func (l *Loop) fire(t *Timer) {
	l.stats.TimersFired++
	if t.waiter != nil {
		t.waiter.wake(Timeout, 0)
		return
	}
	t.fn()
}
