package cosync

import (
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// A Handle is the coroutine an operation runs on: *stackful.Co or
// *stackless.Task. Its methods are the handle protocol, the way waiting
// operations are built so that one source serves both models (see the
// package documentation). The generator treats any call that passes the
// coroutine handle to a parameter of this type (or of an interface type
// that embeds it) as a suspension point.
type Handle interface {
	// Waiter returns the handle's loop waiter, which the operation arms.
	Waiter() *loop.Waiter
	// Resumed begins an operation: NotWoken on a first call; for a
	// stackless task, the wake-up a call made again consumes, and
	// Canceled once the task is canceled.
	Resumed() loop.Reason
	// Suspend waits until the armed waiter is woken. Stackful: it returns
	// the reason and true. Stackless: it marks the task blocked and
	// returns false; the operation returns zero values and is called
	// again after the wake-up.
	Suspend() (loop.Reason, bool)
	// OpSlot is where a blocked operation keeps its record: the call made
	// again finds it there, and a waker checks that the record is still
	// the one its owner waits for.
	OpSlot() *any
	// Begin is Resumed, Waiter and OpSlot in one call, which is how this
	// package's operations begin: one dynamic call where three were (the
	// hand-shake methods were a quarter of a channel ping-pong's profile).
	// The slot is nil while the handle has none yet (it never blocked on
	// a primitive, so nothing is pending); an operation that blocks then
	// takes it from OpSlot, which makes it.
	Begin() (r loop.Reason, w *loop.Waiter, slot *any)
}

// slotOf is slot, or h's operation slot if Begin reported none yet.
func slotOf(h Handle, slot *any) *any {
	if slot == nil {
		return h.OpSlot()
	}
	return slot
}

// Errors of the waiting operations. A timed operation that gives up
// reports ErrTimeout; an operation of a canceled stackless task
// reports ErrCanceled; one whose loop closed reports ErrClosed (which is
// also net.ErrClosed).
var (
	ErrTimeout  = loop.ErrTimeout
	ErrCanceled = loop.ErrCanceled
	ErrClosed   = loop.ErrClosed
)

// Forever is the timeout of an operation that waits as long as it takes.
// Every timeout in this package follows one convention: negative waits
// forever, 0 does not wait (an immediate try), positive is a deadline that
// far from the call.
const Forever time.Duration = -1

// place binds a primitive to the loop of waiter w on its first use and
// reports whether w belongs to another loop than the primitive's: the
// operation then runs there, through the bridge.
func place(l **loop.Loop, w *loop.Waiter) (foreign bool) {
	hl := w.Loop()
	if *l == nil {
		*l = hl
		return false
	}
	return *l != hl
}

// failure maps the reason an operation ended without completing to its
// error.
func failure(r loop.Reason) error {
	switch r {
	case loop.Timeout:
		return ErrTimeout
	case loop.Canceled:
		return ErrCanceled
	case loop.LoopClosed:
		return ErrClosed
	}
	panic("cosync: internal error: operation woken with " + r.String() + " but not completed")
}
