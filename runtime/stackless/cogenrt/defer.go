package cogenrt

// Defers holds the pending deferred calls of one frame. Generated frames of
// functions that defer embed it; frames that do not pay nothing for it.
//
// A deferred call is recorded as a func(next func()) that defers the real
// call with Go's own defer and then calls next:
//
//	f.Defer(func(next func()) { defer fn(a0, a1); next() })
//
// where fn, a0 and a1 were evaluated at the defer statement. Running the
// list calls the first record with a next that calls the second, and so on,
// so the real calls are deferred by nested Go frames and run last-in
// first-out when the innermost next returns or panics. Because Go itself
// runs them, recover, re-panics and panics inside deferred calls behave
// exactly as in the source: recover stops a panic only when called directly
// by a deferred function, a deferred call that panics replaces the panic
// in flight, and the remaining deferred calls still run.
type Defers struct {
	calls []func(next func())
}

// deferrer is implemented by frames that embed Defers.
type deferrer interface{ defers() *Defers }

func (d *Defers) defers() *Defers { return d }

// Defer records a deferred call of the frame (generated code only).
func (d *Defers) Defer(call func(next func())) {
	d.calls = append(d.calls, call)
}

// RunDefers runs the frame's deferred calls, last first, as the frame
// returns normally (generated code only). A panic that none of them
// recovers leaves RunDefers and unwinds the task from this frame.
func (d *Defers) RunDefers() {
	calls := d.calls
	d.calls = nil
	runCalls(calls, nil)
}

// runCalls runs calls[0] with a next that runs the rest and then last.
func runCalls(calls []func(next func()), last func()) {
	if len(calls) == 0 {
		if last != nil {
			last()
		}
		return
	}
	calls[0](func() { runCalls(calls[1:], last) })
}

// An Unwinder is a frame with something to unwind when a panic leaves it,
// before its deferred calls run: generated frames with range-over-func
// loops whose bodies suspend unwind their iterator functions, innermost
// loop first ([Range.Unwind]), as the panic unwinds them in Go.
type Unwinder interface {
	// Unwind is called with the panic p that leaves the frame and returns
	// the panic that goes on to the frame's deferred calls: p, or one
	// raised instead on the way.
	Unwind(p any) any
}

// Unwind unwinds frame f, which a panic with value v leaves: its
// [Unwinder] (if it is one) first, then its pending deferred calls (if it
// embeds [Defers]), which it takes. It reports whether one of them
// recovered; if none did, p is the panic that leaves the frame (v, or the
// value of a panic raised on the way). The stackless runtime calls it for
// each frame a panic pops; it costs two type assertions for a frame with
// neither.
func Unwind(f any, v any) (p any, recovered bool) {
	var calls []func(next func())
	if d, ok := f.(deferrer); ok {
		calls, d.defers().calls = d.defers().calls, nil
	}
	u, _ := f.(Unwinder)
	if len(calls) == 0 && u == nil {
		return v, false
	}
	return unwindFrame(calls, u, v)
}

// unwindFrame unwinds a frame that a panic with value v leaves: u (if
// any) first, then the frame's deferred calls.
func unwindFrame(calls []func(next func()), u Unwinder, v any) (p any, recovered bool) {
	panicking := true
	defer func() {
		if panicking {
			p = recover()
		}
	}()
	runCalls(calls, func() {
		if u != nil {
			v = u.Unwind(v)
		}
		panic(v)
	})
	panicking = false
	return nil, true
}
