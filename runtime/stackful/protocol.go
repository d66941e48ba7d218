package stackful

import "github.com/cogen-go/cogen/runtime/loop"

// The handle protocol: the methods below, with [Co.Waiter], are how waiting
// operations beyond the coroutine's own are built (runtime/cosync's Chan,
// Mutex, WaitGroup and Semaphore are), so that one operation serves both
// models: *stackless.Task has the same methods. An operation is written as
//
//	r := h.Resumed()             // NotWoken here; a stackless retry's wake-up there
//	if r != loop.NotWoken { ... finish the pending operation found in *h.OpSlot() ... }
//	if done, try the fast path and return
//	arm h.Waiter() (for example loop.Waiter.Park) and record it, and the
//	operation, where the waker finds them; *h.OpSlot() = the record
//	r, again := h.Suspend()
//	if !again { return zero values } // stackless: called again after the wake-up
//	finish with r                    // stackful: the wait is over
//
// A stackful coroutine waits inside Suspend, so every call is a first call:
// Resumed reports NotWoken and Suspend reports true.

// Resumed begins a waiting operation of the handle protocol. For a stackful
// coroutine it always reports [loop.NotWoken]: Suspend returns only after
// the wake-up. It panics if co is not the env's current coroutine.
func (co *Co) Resumed() loop.Reason {
	co.mustBeCurrent("Resumed")
	return loop.NotWoken
}

// Suspend suspends the coroutine until its waiter, armed through
// [Co.Waiter], is woken, and returns why and true: the operation goes on
// with the outcome. It is [Co.Await] in the shape of the handle protocol.
// It panics if the waiter is not armed, and unwinds the coroutine when its
// env is closed.
func (co *Co) Suspend() (loop.Reason, bool) {
	// Await's body, so that one call level (wait's) stands between the
	// operation and the switch.
	co.mustBeCurrent("Suspend")
	if !co.w.Armed() && !co.w.Queued() {
		panic("stackful: Suspend with a waiter that is not armed")
	}
	return co.wait(), true
}

// Begin is [Co.Resumed], [Co.Waiter] and [Co.OpSlot] in one call, for
// operations of the handle protocol: NotWoken, the waiter, and the slot, or
// nil if the coroutine has none yet (OpSlot makes it). It panics if co is
// not the env's current coroutine.
func (co *Co) Begin() (loop.Reason, *loop.Waiter, *any) {
	co.mustBeCurrent("Begin")
	if x := co.extra; x != nil {
		return loop.NotWoken, &co.w, &x.pending
	}
	return loop.NotWoken, &co.w, nil
}

// OpSlot returns the coroutine's operation slot: a primitive stores its
// record of a blocked operation there, so that the record can tell whether
// its owner still waits for it (a record whose owner's slot holds something
// else, or whose waiter is not armed, is dead). The slot is cleared when
// the coroutine finishes. The first call allocates the slot's home (24
// bytes) once.
func (co *Co) OpSlot() *any {
	if co == nil {
		nilCo("OpSlot")
	}
	return &co.slotHome().pending
}
