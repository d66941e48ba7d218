package stackless

import "github.com/cogen-go/cogen/runtime/loop"

// The handle protocol: Waiter, Resumed, Suspend and OpSlot (and Begin,
// the first three in one call) are how waiting operations beyond the task's
// own are built (runtime/cosync's Chan, Mutex, WaitGroup and Semaphore
// are), with the same methods on *stackful.Co, so that one operation serves
// both models:
//
//	r := h.Resumed()             // NotWoken on a first call, else the wake-up being consumed
//	if r != loop.NotWoken { ... finish the pending operation found in *h.OpSlot() ... }
//	if done, try the fast path and return
//	arm h.Waiter() (for example loop.Waiter.Park) and record it, and the
//	operation, where the waker finds them; *h.OpSlot() = the record
//	r, again := h.Suspend()
//	if !again { return zero values } // here: the frame suspends, the call is made again
//	finish with r                    // stackful: the wait is over
//
// A task's operation is therefore called twice when it blocks: the first
// call arms and returns, the frame returns [Suspend], and the call made again
// after the wake-up consumes it. The record must say how the operation ended
// (a waker completes it before waking), because the wake-up reason alone
// cannot: a task canceled after it was woken reports Canceled.

// Waiter returns the task's loop waiter, for operations built on the handle
// protocol. Arm it only between [Task.Resumed] and [Task.Suspend], and wake
// it only on the loop's goroutine.
func (t *Task) Waiter() *loop.Waiter { return &t.w }

// Resumed begins a waiting operation of the handle protocol: it reports
// [loop.NotWoken] on a first call, the reason of the wake-up the call made
// again after a suspension consumes, and [loop.Canceled] whenever the task
// has been canceled (a first call of a canceled task must return at once).
// It panics outside the task's step or after another operation blocked in
// it, like every waiting operation.
func (t *Task) Resumed() loop.Reason {
	t.check()
	r := t.resumed()
	if t.canceled {
		return loop.Canceled
	}
	return r
}

// Suspend records that the operation armed the task's waiter: the frame
// must now return [Suspend], and the operation return its zero values,
// since it reports false. The call is made again after the wake-up. It
// panics if the waiter is neither armed nor already woken.
func (t *Task) Suspend() (loop.Reason, bool) {
	if !t.w.Armed() && !t.w.Queued() {
		panic("stackless: Suspend with a waiter that is not armed")
	}
	t.block()
	return loop.NotWoken, false
}

// Begin is [Task.Resumed], [Task.Waiter] and [Task.OpSlot] in one call,
// for operations of the handle protocol: the reason Resumed reports, the
// waiter, and the slot, or nil if the task has none yet (OpSlot makes it).
// It panics where Resumed does.
func (t *Task) Begin() (loop.Reason, *loop.Waiter, *any) {
	r := t.Resumed()
	if e := t.ext; e != nil {
		return r, &t.w, &e.pending
	}
	return r, &t.w, nil
}

// OpSlot returns the task's operation slot: a primitive stores its record
// of a blocked operation there, so that the call made again finds it, and
// so that the record can tell whether its owner still waits for it (a
// record whose owner's slot holds something else, or whose waiter is not
// armed, is dead). The slot is cleared when the task finishes. The first
// call allocates the task's out-of-line state (48 bytes) once.
func (t *Task) OpSlot() *any { return &t.extra().pending }
