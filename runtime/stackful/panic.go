package stackful

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Panics that cross a switch.
//
// A panic ends its coroutine's goroutine (iter.Pull's goroutine, or a
// carrier's run) and is raised again in the resumer with the original
// value, so recover there returns exactly what the coroutine panicked with.
// The traceback of that second panic shows the resumer, not the code that
// panicked. So the coroutine's stack is captured where the panic is
// recovered at the coroutine's top (debug.Stack in the deferred call still
// sees the panicking frames), and the resumer raises it in two steps:
// first a private marker panic whose message is that stack, which it
// recovers at once, then the original value from the deferred call that
// recovered the marker. Go prints an unrecovered panic together with the
// recovered panics it interrupted, so a crash shows
//
//	panic: stackful: coroutine panicked; its stack: ... [recovered]
//		panic: <the original value>
//
// followed by the resumer's traceback, while recover() anywhere returns the
// original value and never sees the marker. The cost is on the panic path
// only: one debug.Stack per panicking coroutine.
//
// A panic that crosses several coroutines (A resumes B, B panics, A does
// not recover) keeps every coroutine's stack: when A ends with the value
// its Resume raised, A's stack is followed by B's.

// panicStack returns the calling coroutine's stack while its deferred call
// handles the panic p, with the stacks of the coroutines p came from.
func (co *Co) panicStack(p any) string {
	if p == nil || isUnwind(p) {
		return ""
	}
	stack := trimToPanic(string(debug.Stack()))
	if x := co.more(); x != nil && x.reraised != nil {
		child := x.reraised
		x.reraised = nil
		if sameValue(child.panicValue, p) {
			stack += "\n" + child.panicStack
		}
	}
	return stack
}

// trimToPanic drops the frames of the capture itself (debug.Stack, this
// file, the deferred call) from a goroutine's stack: what is left starts at
// the panic call and goes down to the coroutine's entry.
func trimToPanic(stack string) string {
	header, rest, ok := strings.Cut(stack, "\n")
	if !ok {
		return stack
	}
	if i := strings.Index(rest, "\npanic("); i >= 0 {
		return header + rest[i:]
	}
	return stack
}

// sameValue reports whether a and b are equal, false if they cannot be
// compared.
func sameValue(a, b any) (same bool) {
	defer func() { recover() }()
	return a == b
}

// raise re-raises the panic that ended co in its resumer, which is now the
// current coroutine: see above. It is kept out of Resume, whose fast path
// must not grow.
//
//go:noinline
func (co *Co) raise() {
	x := co.more()
	v := x.panicValue
	if v == errGoexit {
		// The coroutine called runtime.Goexit (raw switch build): so does
		// its resumer, as with iter.Pull.
		x.panicValue = nil
		co.state = stateDead
		runtime.Goexit()
	}
	co.env.dispatching = false // the panic leaves the loop's resume that set it, if any
	if e := co.env; e.current != &e.main {
		e.current.ext().reraised = x
	}
	raiseWithStack(v, x.panicStack)
}

// raiseWithStack panics with v, printing stack first if nothing recovers it.
func raiseWithStack(v any, stack string) {
	defer func() {
		recover() // the marker
		panic(v)
	}()
	panic(&coroutineStack{stack: stack})
}

// coroutineStack is the marker panic: its message carries the stack.
type coroutineStack struct{ stack string }

func (m *coroutineStack) Error() string {
	return "stackful: coroutine panicked; the panic below is raised again by its resumer; the coroutine's stack:\n\n" +
		strings.TrimRight(m.stack, "\n")
}

// PanicStack returns the stack trace of the coroutine where it panicked, if
// a panic ended it (and the stacks of the coroutines that panic came
// from, if it went on through co's Resume), or "" otherwise. The resumer's
// recover returns the original value; this is the rest of the story, for
// logging. It is dropped by Reset and Release.
func (co *Co) PanicStack() string {
	if co == nil {
		nilCo("PanicStack")
	}
	if x := co.more(); x != nil {
		return x.panicStack
	}
	return ""
}

// nilCo is the panic of a method called on a nil *Co, typically the result
// of Self on a goroutine that is no coroutine, before any env exists.
func nilCo(op string) {
	panic("stackful: " + op + " called on a nil *Co (Self returns nil outside coroutines and envs' main goroutines)")
}
