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
	return t.w.Reason()
}

// begin is the common entry of the fd operations: the error that ends the
// operation, if the task is canceled or the wake-up was not Ready.
func (t *Task) begin() error {
	r := t.resumed()
	if t.canceled {
		return ErrCanceled
	}
	if r != loop.NotWoken && r != loop.Ready {
		return r.Err()
	}
	return nil
}

// block records that the current operation armed the waiter.
func (t *Task) block() {
	if t.state != taskRunning {
		panic("stackless: waiting operation called outside the task's step")
	}
	t.blocked = true
}

// Sleep suspends the task for at least d.
func (t *Task) Sleep(d time.Duration) {
	if t.resumed() != loop.NotWoken || t.canceled {
		return
	}
	t.w.Sleep(d)
	t.block()
}

// Gosched puts the task at the back of the ready queue: everything already
// woken runs first.
func (t *Task) Gosched() {
	if t.resumed() != loop.NotWoken || t.canceled {
		return
	}
	t.w.Yield()
	t.block()
}

// Yield suspends the task until [Task.Resume] (libco's co_yield_ct: control
// goes back to whoever drives the task, here the loop).
func (t *Task) Yield() {
	if t.resumed() != loop.NotWoken || t.canceled {
		t.yielded = false
		return
	}
	t.yielded = true
	t.w.Park(-1)
	t.block()
}

// Wait suspends the task on c until Signal or Broadcast (true) or until
// timeout passes (false; negative: no timeout). Like the stackful Cond wait,
// a signal queues the task on the loop's ready queue rather than running it
// inline.
func (t *Task) Wait(c *Cond, timeout time.Duration) bool {
	if r := t.resumed(); r != loop.NotWoken {
		return r == loop.Signaled
	}
	if t.canceled {
		return false
	}
	c.Wait(&t.w, timeout)
	t.block()
	return false
}

// Await suspends the task until o finishes. If o panicked, Await panics with
// the same value. It returns ErrCanceled if t is canceled first, and the
// loop's error if the loop closes first.
func (t *Task) Await(o *Task) error {
	if o == t {
		panic("stackless: task awaits itself")
	}
	r := t.resumed()
	if o.Done() {
		if v, ok := o.Panicked(); ok {
			panic(v)
		}
		return nil
	}
	if t.canceled {
		return ErrCanceled
	}
	if r != loop.NotWoken && r != loop.Signaled {
		return r.Err()
	}
	o.extra().joiners.Wait(&t.w, -1)
	t.block()
	return nil
}
