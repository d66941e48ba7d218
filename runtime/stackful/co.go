package stackful

import (
	"fmt"
	"iter"

	"github.com/cogen-go/cogen/runtime/loop"
)

// Status is the life-cycle state of a coroutine.
//
//	Created --Resume--> Running --Yield or a wait--> Suspended --Resume or wake-up--> Running
//	Running --fn returns or panics--> Dead --Reset--> Created
//
// A coroutine that has resumed another is still Running: it is on the call
// stack, below the one it resumed. The main coroutine is always Running.
type Status uint8

// Coroutine states.
const (
	Created   Status = iota // not started: Resume runs fn from the beginning
	Running                 // on the env's call stack
	Suspended               // started, off the call stack, waiting for Resume or a wake-up
	Dead                    // fn returned or panicked (or the env was closed)
)

var statusNames = [...]string{"created", "running", "suspended", "dead"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Coroutine flags.
const (
	flagMain     uint8 = 1 << iota // the env's main coroutine
	flagWaiting                    // suspended in a wait on the loop: only a wake-up resumes it
	flagPanicked                   // fn panicked; the value waits in extra.panicValue for the resumer
	flagReleased                   // Release was called
	flagHook                       // hooks enabled (libco's co_enable_hook_sys)
)

// A Co is a stackful coroutine: libco's stCoRoutine_t. It runs fn on a stack
// of its own (a goroutine stack), so it can suspend at any call depth.
//
// A Co belongs to one [Env] and is driven only by the goroutine running that
// env's coroutines. Resume and Yield switch between coroutines directly,
// without the Go scheduler. The waiting methods (Read, Write, Accept, Connect,
// Poll, Sleep, Gosched, Wait) suspend the coroutine on the env's loop: it
// yields to whoever resumed it, and the loop resumes it when the wait ends.
type Co struct {
	// Layout: the waiter is embedded so waiting allocates nothing; the rest
	// is kept to nine words (224-byte size class) because a suspended
	// coroutine's memory budget is 3 KB, of which the goroutine takes 2.7.
	w      loop.Waiter
	env    *Env
	fn     func(*Co)
	next   func() (struct{}, bool) // switch into the coroutine (iter.Pull's next)
	stop   func()                  // unwind it (iter.Pull's stop); used by Env.Close
	yield  func(struct{}) bool     // switch back to the resumer (iter.Pull's yield)
	lprev  *Co                     // env's list of live (started, unfinished) coroutines
	lnext  *Co
	extra  *coExtra // rarely used state, allocated on first use
	status Status
	flags  uint8
}

// coExtra holds what most coroutines never need.
type coExtra struct {
	stackSize  int         // private stack reservation, 0 = none
	share      *ShareStack // shared-stack group, or nil
	spec       []any       // coroutine-specific values, indexed by key id
	vars       map[string]envVar
	poll       loop.PollState
	polled     bool // poll holds state to release
	panicValue any
}

func (co *Co) ext() *coExtra {
	if co.extra == nil {
		co.extra = new(coExtra)
	}
	return co.extra
}

// Create returns a new coroutine that will run fn(co) when first resumed
// (libco's co_create: the coroutine does not start by itself). A nil attr
// means the default: a goroutine stack that starts small and grows on demand.
func (e *Env) Create(fn func(co *Co), attr *Attr) *Co {
	if fn == nil {
		panic("stackful: Create with a nil function")
	}
	if e.closed {
		panic("stackful: Create on a closed env")
	}
	co := &Co{env: e, fn: fn}
	co.w.Init(e.loop, (*wakeup)(co))
	if attr != nil {
		if attr.ShareStack != nil {
			attr.ShareStack.bind(e)
			co.ext().share = attr.ShareStack
		} else if attr.StackSize > 0 {
			co.ext().stackSize = reservation(attr.StackSize)
		}
	}
	return co
}

// Env returns the env co belongs to.
func (co *Co) Env() *Env { return co.env }

// Status reports co's life-cycle state.
func (co *Co) Status() Status { return co.status }

// IsMain reports whether co is its env's main coroutine.
func (co *Co) IsMain() bool { return co.flags&flagMain != 0 }

// EnableHook turns on hooked system calls for co (libco's
// co_enable_hook_sys); the hooks package consults [Co.HookEnabled].
func (co *Co) EnableHook() { co.flags |= flagHook }

// DisableHook turns hooked system calls off for co (co_disable_hook_sys).
func (co *Co) DisableHook() { co.flags &^= flagHook }

// HookEnabled reports whether hooked system calls are on for co.
func (co *Co) HookEnabled() bool { return co.flags&flagHook != 0 }

// Resume switches to co: it is pushed on the env's call stack and runs until
// it yields, waits on the loop or finishes; then Resume returns (libco's
// co_resume). The first Resume starts fn. If fn panics, the panic is
// re-raised here with the original value.
//
// Resume panics if co is running (on the call stack, including the caller
// itself), dead, released, the main coroutine, waiting on the loop (the wait
// resumes it when it ends), if the env is closed, or if the call stack is
// already [Env.MaxDepth] deep. It must be called by the env's current
// coroutine, on its goroutine.
func (co *Co) Resume() {
	switch co.status {
	case Suspended:
		if co.flags&flagWaiting != 0 {
			panic("stackful: Resume of a coroutine that waits on the loop (the loop resumes it when the wait ends)")
		}
	case Created:
		if co.env.closed {
			panic("stackful: Resume on a closed env")
		}
	case Running:
		if co.flags&flagMain != 0 {
			panic("stackful: Resume of the main coroutine")
		}
		panic("stackful: Resume of a running coroutine")
	default:
		if co.flags&flagReleased != 0 {
			panic("stackful: Resume of a released coroutine")
		}
		panic("stackful: Resume of a dead coroutine")
	}
	co.resume()
}

// resume is Resume after the checks; the loop's wake-ups enter here. Its
// cost over iter.Pull's next is the depth check, the push and the flag test.
func (co *Co) resume() {
	e := co.env
	if len(e.stack) >= e.maxDepth {
		panic(fmt.Sprintf("stackful: Resume exceeds the call stack depth limit of %d (Env.SetMaxDepth)", e.maxDepth))
	}
	e.stack = append(e.stack, co)
	e.current = co
	co.status = Running
	if co.next != nil {
		co.next()
	} else {
		co.start()
	}
	if co.flags&flagPanicked != 0 {
		co.rethrow()
	}
}

// start runs co for the first time, on a carrier of its share stack or on a
// goroutine of its own.
func (co *Co) start() {
	co.env.addLive(co)
	if x := co.extra; x != nil && x.share != nil {
		x.share.start(co)
		return
	}
	co.next, co.stop = iter.Pull(co.body)
	co.next()
}

// body is the goroutine of a coroutine that has one of its own.
func (co *Co) body(yield func(struct{}) bool) {
	co.yield = yield
	co.run()
}

// run calls fn on the coroutine's goroutine and always returns normally,
// except for runtime.Goexit: a panic is kept for the resumer, and the
// unwinding panic of Env.Close ends here.
func (co *Co) run() {
	normal := false
	defer func() {
		var p any
		if !normal {
			p = recover()
		}
		co.finish(p, normal)
	}()
	if x := co.extra; x != nil && x.stackSize > 0 {
		reserveStack(x.stackSize)
	}
	co.fn(co)
	normal = true
}

// finish marks co dead and pops it; it runs on co's goroutine, in run's
// deferred call, so co is on top of the call stack.
func (co *Co) finish(p any, normal bool) {
	if !normal && p != nil && p != errUnwind {
		co.ext().panicValue = p
		co.flags |= flagPanicked
	}
	// p == nil without a normal return is runtime.Goexit: iter.Pull
	// propagates it to the resumer.
	co.status = Dead
	co.flags &^= flagWaiting
	co.w.Disarm()
	co.endPoll()
	e := co.env
	e.removeLive(co)
	n := len(e.stack) - 1
	if e.stack[n] != co {
		panic("stackful: internal error: a finishing coroutine is not on top of the call stack")
	}
	e.stack[n] = nil
	e.stack = e.stack[:n]
	e.current = e.stack[n-1]
	co.next, co.stop, co.yield = nil, nil, nil
}

func (co *Co) rethrow() {
	x := co.extra
	p := x.panicValue
	x.panicValue = nil
	co.flags &^= flagPanicked
	panic(p)
}

// Yield suspends co and switches back to the coroutine that resumed it
// (libco's co_yield_ct). co continues when something resumes it again; a
// coroutine that yields this way is not resumed by the loop.
//
// Yield panics when called by the main coroutine or on a coroutine that is
// not the current one.
func (co *Co) Yield() {
	if co != co.env.current || co.flags&flagMain != 0 {
		co.badYield("Yield")
	}
	co.suspend()
}

func (co *Co) badYield(op string) {
	if co.flags&flagMain != 0 {
		panic("stackful: " + op + " called by the main coroutine (it has no resumer to yield to)")
	}
	panic("stackful: " + op + " called on a coroutine that is not the current one")
}

// suspend pops co off the call stack and switches to the resumer below it.
// If Env.Close stops co while suspended, it unwinds co's stack by panicking
// with errUnwind, which run recovers.
func (co *Co) suspend() {
	e := co.env
	n := len(e.stack) - 1
	e.stack[n] = nil
	e.stack = e.stack[:n]
	e.current = e.stack[n-1]
	co.status = Suspended
	if !co.yield(struct{}{}) {
		co.unwind()
	}
}

// errUnwind is the panic value that unwinds a coroutine stopped by
// Env.Close; run recovers it, so it never reaches user code unless that
// code recovers it first.
var errUnwind = &unwindError{}

type unwindError struct{}

func (*unwindError) Error() string { return "stackful: coroutine unwound by Env.Close" }

func (co *Co) unwind() {
	if e := co.env; e.current != co {
		// Already stopped: yield returned at once, without switching,
		// so co is still running and goes back on top.
		e.stack = append(e.stack, co)
		e.current = co
	}
	co.status = Running
	co.flags &^= flagWaiting
	co.w.Disarm()
	co.endPoll()
	panic(errUnwind)
}

// Release frees a coroutine that has finished or never started (libco's
// co_release): its function, coroutine-specific values and environment
// variables are dropped. Releasing a suspended or running coroutine panics:
// it still has a stack in use.
func (co *Co) Release() {
	switch {
	case co.flags&flagMain != 0:
		panic("stackful: Release of the main coroutine")
	case co.status == Suspended:
		panic("stackful: Release of a suspended coroutine")
	case co.status == Running:
		panic("stackful: Release of a running coroutine")
	}
	co.status = Dead
	co.flags |= flagReleased
	co.fn = nil
	co.extra = nil
}

// Reset makes a dead coroutine startable again (libco's co_reset): the next
// Resume runs fn from the beginning, with the same attributes. Its
// coroutine-specific values and environment variables are dropped. Reset of
// a created coroutine does nothing; of a suspended, running or released one
// it panics.
func (co *Co) Reset() {
	switch {
	case co.flags&flagMain != 0:
		panic("stackful: Reset of the main coroutine")
	case co.flags&flagReleased != 0:
		panic("stackful: Reset of a released coroutine")
	case co.status == Suspended:
		panic("stackful: Reset of a suspended coroutine")
	case co.status == Running:
		panic("stackful: Reset of a running coroutine")
	case co.status == Created:
		return
	}
	co.status = Created
	if x := co.extra; x != nil {
		x.spec, x.vars, x.panicValue = nil, nil, nil
	}
	co.flags &^= flagPanicked
	co.w.Init(co.env.loop, (*wakeup)(co))
}

// wakeup is the loop's view of a coroutine: running it resumes the
// coroutine whose wait ended.
type wakeup Co

func (r *wakeup) Run() {
	co := (*Co)(r)
	if co.status != Suspended || co.flags&flagWaiting == 0 {
		panic("stackful: internal error: woken coroutine is not waiting")
	}
	co.flags &^= flagWaiting
	co.resume()
}

// mainWakeup is the main coroutine's runner: it has nothing to switch to,
// since the main coroutine waits by running the loop itself.
type mainWakeup struct{}

func (mainWakeup) Run() {}
