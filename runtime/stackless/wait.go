package stackless

import (
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// resumed returns the reason of the wake-up that the current operation
// consumes: NotWoken for a first call, the waiter's reason for the retry
// after a suspension.
func (t *Task) resumed() loop.Reason {
	if !t.waking {
		return loop.NotWoken
	}
	t.waking = false
	r := t.w.Reason()
	if r == loop.LoopClosed {
		t.closing = true
	}
	return r
}

// block records that the current operation armed the waiter: the step must
// now return Suspend. Arming twice in one step, or outside a step, is a bug
// in the caller that would lose a wake-up, so it panics.
func (t *Task) block() {
	if t.state != taskRunning {
		t.misuse()
	}
	t.state = taskWaiting
}

func (t *Task) misuse() {
	if t.state == taskWaiting {
		panic("stackless: waiting operation called after another one blocked in the same step")
	}
	panic("stackless: waiting operation called outside the task's step")
}

// check panics unless the task is in its step with nothing blocked yet; the
// operations call it before they touch the waiter.
func (t *Task) check() {
	if t.state != taskRunning {
		t.misuse()
	}
}

// Sleep suspends the task for at least d. Like time.Sleep, d <= 0 returns
// at once, without suspending ([Task.Gosched] gives the other tasks a turn).
func (t *Task) Sleep(d time.Duration) {
	t.check()
	if t.resumed() != loop.NotWoken || t.canceled || d <= 0 {
		return
	}
	t.w.Sleep(d)
	t.state = taskWaiting
	t.carry = carrySleep
}

// Gosched puts the task at the back of the ready queue: everything already
// woken runs first, and then the task continues.
//
// It is the cheapest suspension, the round that BenchmarkStacklessSwitch
// measures, and both of its calls are on the fast path: the first pushes
// the task's waiter on the ready queue, the retry after the wake-up only
// consumes it.
func (t *Task) Gosched() {
	if t.state != taskRunning {
		t.misuse()
	}
	if t.waking {
		t.waking = false
		if t.w.Reason() == loop.LoopClosed {
			t.closing = true
		}
		return
	}
	if t.canceled {
		return
	}
	t.w.Yield()
	t.state = taskWaiting
	t.carry = carryGosched
}

// Yield suspends the task until [Task.Resume] (libco's co_yield_ct: control
// goes back to whoever drives the task, here the loop).
func (t *Task) Yield() {
	t.check()
	if t.resumed() != loop.NotWoken || t.canceled {
		t.yielded = false
		return
	}
	t.yielded = true
	t.w.Park(-1)
	t.state = taskWaiting
	t.carry = carryYield
}

// Wait suspends the task on c until Signal or Broadcast (true) or until
// timeout passes (false; negative: no timeout; 0: false at once, without
// suspending). Like the stackful Cond wait, a signal queues the task on the
// loop's ready queue rather than running it inline, and waiters are woken in
// arrival order. A canceled task, or one whose loop closed, returns false.
func (t *Task) Wait(c *Cond, timeout time.Duration) bool {
	t.check()
	if r := t.resumed(); r != loop.NotWoken {
		return r == loop.Signaled
	}
	if t.canceled || timeout == 0 {
		return false
	}
	c.Wait(&t.w, timeout)
	t.state = taskWaiting
	return false
}

// Await suspends the task until o finishes. If o panicked, Await panics with
// the same value. It returns ErrCanceled if t is canceled first, the loop's
// error if the loop closes first, and loop.ErrClosed if o was ended by the
// loop's Close. o must run on the same loop.
func (t *Task) Await(o *Task) error {
	t.check()
	if o == t {
		panic("stackless: task awaits itself")
	}
	if o.Loop() != t.Loop() {
		panic("stackless: Await of a task on another loop")
	}
	r := t.resumed()
	if o.Done() {
		if v, ok := o.Panicked(); ok {
			panic(v)
		}
		if m := o.moreIfAny(); m != nil && m.ended {
			return loop.ErrClosed
		}
		return nil
	}
	if t.canceled {
		return ErrCanceled
	}
	if r != loop.NotWoken && r != loop.Signaled {
		return r.Err()
	}
	o.more().joiners.Wait(&t.w, -1)
	t.state = taskWaiting
	return nil
}
