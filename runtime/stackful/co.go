package stackful

import (
	"fmt"

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

// Coroutine statuses.
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

// Internal states refine Status so that each hot-path check is one
// comparison: Resume accepts exactly the states up to stateSuspended, Yield
// exactly stateRunning.
const (
	stateCreated   uint8 = iota // Created
	stateSuspended              // Suspended by Yield: Resume continues it
	stateWaiting                // Suspended in a wait: only the loop resumes it
	stateRunning                // Running
	stateMain                   // Running: the main coroutine, which never yields
	stateUnwinding              // Running: Env.Close is unwinding it
	stateDead                   // Dead
	statePanicked               // Dead by a panic, whose value waits in extra for the resumer
	stateReleased               // Dead and released
)

var stateStatus = [...]Status{Created, Suspended, Suspended, Running, Running, Running, Dead, Dead, Dead}

const flagHook uint8 = 1 // hooks enabled (libco's co_enable_hook_sys)

// A Co is a stackful coroutine: libco's stCoRoutine_t. It runs fn on a stack
// of its own (a goroutine stack), so it can suspend at any call depth.
//
// A Co belongs to one [Env] and is driven only by the goroutine running that
// env's coroutines. Resume and Yield switch between coroutines directly,
// without the Go scheduler. The waiting methods (Read, Write, Accept, Connect,
// Poll, Sleep, Gosched, Wait) suspend the coroutine on the env's loop: it
// yields to whoever resumed it, and the loop resumes it when the wait ends.
type Co struct {
	// Layout: the waiter is embedded so waiting allocates nothing, and the
	// whole fits the 160-byte size class: the budget for a suspended
	// coroutine is 3 KB, and its goroutine takes 2.7 of it.
	w     loop.Waiter
	sw    coSwitch // the build's switch state: empty, or the raw coro (switch_*.go)
	env   *Env
	fn    func(*Co)
	next  func() (struct{}, bool) // switch into the coroutine: iter.Pull's next, or a starter (see start)
	yield func(struct{}) bool     // switch back to the resumer (iter.Pull's yield)
	extra *coExtra                // operation slot and rarely used state, allocated on first use
	g     uintptr                 // identity of the goroutine running fn (self.go), 0 when not started

	liveIdx   int32 // index in the env's live coroutines while started and unfinished
	stackSize int32 // bytes of frames reserving a private stack, or 0
	state     uint8
	flags     uint8
}

// coExtra holds the handle protocol's operation slot, which a coroutine
// blocked on a cosync primitive needs (24 bytes), and the link to what most
// coroutines never need (coMore, 152 bytes), allocated on first use. Its
// fields are promoted: x.spec is x.coMore.spec, valid once ext made it.
type coExtra struct {
	pending any // the handle protocol's operation slot (OpSlot)
	*coMore
}

// coMore holds what most coroutines never need.
type coMore struct {
	spec       []any // coroutine-specific values, indexed by key id
	vars       map[string]envVar
	poll       loop.PollState
	polled     bool // poll holds state to release
	pollStreak int  // Polls in a row that returned without suspending (see pollYieldEvery)
	panicValue any
	job        *offloadJob // the coroutine's offload job, reused (offload.go)
	panicStack string      // the coroutine's stack where it panicked (panic.go)
	reraised   *coMore     // the child whose panic this coroutine's Resume raised last
}

// ext returns co's rarely used state, allocating it on first use.
func (co *Co) ext() *coMore {
	x := co.slotHome()
	if x.coMore == nil {
		x.coMore = new(coMore)
	}
	return x.coMore
}

// slotHome returns what holds co's operation slot, allocating it on first
// use.
func (co *Co) slotHome() *coExtra {
	if co.extra == nil {
		co.extra = new(coExtra)
	}
	return co.extra
}

// more returns co's rarely used state, or nil if it has none.
func (co *Co) more() *coMore {
	if co.extra == nil {
		return nil
	}
	return co.extra.coMore
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
	co := &Co{env: e, fn: fn, next: e.starter}
	co.w.Init(e.loop, (*wakeup)(co))
	if attr != nil {
		if attr.ShareStack != nil {
			attr.ShareStack.bind(e)
			co.next = attr.ShareStack.starter
		} else if attr.StackSize > 0 {
			co.stackSize = int32(reservation(attr.StackSize))
		}
	}
	return co
}

// Env returns the env co belongs to.
func (co *Co) Env() *Env {
	if co == nil {
		nilCo("Env")
	}
	return co.env
}

// Status reports co's life-cycle state.
func (co *Co) Status() Status {
	if co == nil {
		nilCo("Status")
	}
	return stateStatus[co.state]
}

// IsMain reports whether co is its env's main coroutine.
func (co *Co) IsMain() bool {
	if co == nil {
		nilCo("IsMain")
	}
	return co.state == stateMain
}

// EnableHook turns on hooked system calls for co (libco's
// co_enable_hook_sys); the hooks package consults [Co.HookEnabled].
func (co *Co) EnableHook() {
	if co == nil {
		nilCo("EnableHook")
	}
	co.flags |= flagHook
}

// DisableHook turns hooked system calls off for co (co_disable_hook_sys).
func (co *Co) DisableHook() {
	if co == nil {
		nilCo("DisableHook")
	}
	co.flags &^= flagHook
}

// HookEnabled reports whether hooked system calls are on for co.
func (co *Co) HookEnabled() bool {
	if co == nil {
		nilCo("HookEnabled")
	}
	return co.flags&flagHook != 0
}

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
	// The cost over iter.Pull's next is mostly this call level itself:
	// after a switch, every call level between the caller and iter.Pull's
	// next or yield costs a mispredicted return (the CPU's return-address
	// predictor does not follow the change of stack), about 6 ns per level
	// and side, and Resume cannot be inlined (the call of next alone takes
	// most of the inliner's budget). So nothing here adds another level:
	// no helper calls, one comparison per check, misuse panics with a
	// value describing it, and a coroutine that has not started has the
	// env's starter as its next.
	if co == nil {
		nilCo("Resume")
	}
	e := co.env
	d := e.depth
	if co.state > stateSuspended || d >= len(e.stack) {
		panic(misuseError{op: "Resume", state: co.state, maxDepth: len(e.stack)})
	}
	e.stack[d] = co
	e.depth = d + 1
	e.current = co
	e.noteResume(co)
	co.state = stateRunning
	if co.sw.raw() { // a constant false unless built with cogen_coroswitch
		co.sw.enter() // inlined: Resume calls runtime.coroswitch itself
	} else {
		co.next()
	}
	if co.state == statePanicked {
		co.raise()
	}
}

// Yield suspends co and switches back to the coroutine that resumed it
// (libco's co_yield_ct). co continues when something resumes it again; a
// coroutine that yields this way is not resumed by the loop.
//
// Yield panics when called by the main coroutine or on a coroutine that is
// not the current one.
func (co *Co) Yield() {
	// Flat, like Resume. The popped slot keeps its pointer until the next
	// push or the coroutine's end.
	if co == nil {
		nilCo("Yield")
	}
	e := co.env
	if co.state != stateRunning || co != e.current {
		panic(misuseError{op: "Yield", state: co.state, notCurrent: co != e.current})
	}
	if checkGoroutine && getg() != co.g {
		panic(misuseError{op: "Yield", state: co.state, otherGoroutine: true})
	}
	e.depth--
	e.current = e.stack[e.depth-1]
	e.noteCurrent(e.current)
	co.state = stateSuspended
	if co.sw.raw() {
		co.sw.leave()
	} else {
		co.yield(struct{}{})
	}
	if co.state == stateUnwinding {
		panic(errUnwind) // Env.Close resumed co to unwind it
	}
}

// start runs co for the first time, on a carrier of share if that is not
// nil, else on a goroutine of its own. Until then co's next is a starter,
// the env's or its share stack's (one closure each, so that creating a
// coroutine allocates nothing but the Co), which calls start as if it were
// co's next: on the resumer's goroutine, with co already pushed.
func (co *Co) start(share *ShareStack) {
	e := co.env
	if e.closed {
		e.depth--
		e.current = e.stack[e.depth-1]
		e.noteCurrent(e.current)
		co.state = stateCreated
		panic("stackful: Resume on a closed env")
	}
	e.addLive(co)
	if share != nil {
		share.start(co)
		return
	}
	co.startOwn() // switch_*.go
}

// run calls fn on the coroutine's goroutine and always returns normally,
// except for runtime.Goexit: a panic is kept for the resumer, and the
// unwinding panic of Env.Close ends here.
func (co *Co) run() {
	normal := false
	g := register(co) // Self's registry (self.go)
	co.g = g
	defer func() {
		var p any
		var stack string
		if !normal {
			p = recover()
			stack = co.panicStack(p)
		}
		unregister(g, co)
		co.finish(p, stack, normal)
	}()
	if co.stackSize > 0 {
		reserveStack(int(co.stackSize))
	}
	co.fn(co)
	normal = true
}

// finish marks co dead and pops it; it runs on co's goroutine, in run's
// deferred call, so co is on top of the call stack.
func (co *Co) finish(p any, stack string, normal bool) {
	co.state = stateDead
	if !normal && p != nil && !isUnwind(p) {
		x := co.ext()
		x.panicValue = p
		x.panicStack = stack
		co.state = statePanicked
	}
	// p == nil without a normal return is runtime.Goexit: iter.Pull
	// propagates it to the resumer; the raw switch leaves it to raise.
	if !normal && p == nil && co.sw.raw() {
		co.ext().panicValue = errGoexit
		co.state = statePanicked
	}
	co.w.Disarm()
	co.endPoll()
	if co.extra != nil {
		co.extra.pending = nil // an abandoned operation's records are dead from now on
	}
	e := co.env
	e.removeLive(co)
	d := e.depth - 1
	if e.stack[d] != co {
		panic("stackful: internal error: a finishing coroutine is not on top of the call stack")
	}
	e.stack[d] = nil
	e.depth = d
	e.current = e.stack[d-1]
	e.noteCurrent(e.current)
	co.next, co.yield = e.starter, nil // for Reset; a share stack's carrier puts its own
	co.sw = coSwitch{}
}

// A misuseError is the panic value of a misused Resume or Yield: a snapshot
// of the coroutine's state, turned into a message when printed, so that
// the hot path has no call to build one.
type misuseError struct {
	op         string
	state      uint8
	notCurrent bool
	// otherGoroutine: Yield was called on the current coroutine, but from
	// a goroutine other than the coroutine's own.
	otherGoroutine bool
	maxDepth       int
}

func (m misuseError) Error() string {
	if m.op == "Yield" {
		switch {
		case m.otherGoroutine:
			return "stackful: Yield called from a goroutine that is not the current coroutine's"
		case m.state == stateMain && !m.notCurrent:
			return "stackful: Yield called by the main coroutine (it has no resumer to yield to)"
		case m.state == stateUnwinding && !m.notCurrent:
			return errUnwind.Error()
		}
		return "stackful: Yield called on a coroutine that is not the current one"
	}
	switch m.state {
	case stateMain:
		return "stackful: Resume of the main coroutine"
	case stateRunning, stateUnwinding:
		return "stackful: Resume of a running coroutine"
	case stateReleased:
		return "stackful: Resume of a released coroutine"
	case stateDead, statePanicked:
		return "stackful: Resume of a dead coroutine"
	case stateWaiting:
		return "stackful: Resume of a coroutine that waits on the loop (the loop resumes it when the wait ends)"
	}
	return fmt.Sprintf("stackful: Resume exceeds the call stack depth limit of %d (Env.SetMaxDepth)", m.maxDepth)
}

// errUnwind is the panic value that unwinds a coroutine stopped by
// Env.Close; run recovers it, so it never reaches user code unless that
// code recovers it first. A coroutine being unwound panics again at every
// Yield (with a misuseError that run also recognizes) or wait.
var errUnwind = &unwindError{}

type unwindError struct{}

func (*unwindError) Error() string { return "stackful: coroutine unwound by Env.Close" }

// Unwinding reports whether p, a value recovered in a coroutine, is the
// panic by which Env.Close unwinds it. Code that recovers panics (a
// server's handler guard, say) must panic again with p when it is: the
// coroutine is to end, and each further wait would panic anew.
func Unwinding(p any) bool { return isUnwind(p) }

// isUnwind reports whether p is the panic of a coroutine being unwound.
func isUnwind(p any) bool {
	if p == errUnwind {
		return true
	}
	m, ok := p.(misuseError)
	return ok && m.op == "Yield" && m.state == stateUnwinding && !m.notCurrent
}

// Release frees a coroutine that has finished or never started (libco's
// co_release): its function, coroutine-specific values and environment
// variables are dropped. Releasing a suspended or running coroutine panics:
// it still has a stack in use.
func (co *Co) Release() {
	if co == nil {
		nilCo("Release")
	}
	switch stateStatus[co.state] {
	case Running:
		if co.state == stateMain {
			panic("stackful: Release of the main coroutine")
		}
		panic("stackful: Release of a running coroutine")
	case Suspended:
		panic("stackful: Release of a suspended coroutine")
	}
	co.state = stateReleased
	co.fn, co.next = nil, nil
	co.extra = nil
}

// Reset makes a dead coroutine startable again (libco's co_reset): the next
// Resume runs fn from the beginning, with the same attributes. Its
// coroutine-specific values and environment variables are dropped. Reset of
// a created coroutine does nothing; of a suspended, running or released one
// it panics.
func (co *Co) Reset() {
	if co == nil {
		nilCo("Reset")
	}
	switch co.state {
	case stateCreated:
		return
	case stateDead, statePanicked:
	case stateMain:
		panic("stackful: Reset of the main coroutine")
	case stateReleased:
		panic("stackful: Reset of a released coroutine")
	default:
		if stateStatus[co.state] == Suspended {
			panic("stackful: Reset of a suspended coroutine")
		}
		panic("stackful: Reset of a running coroutine")
	}
	co.state = stateCreated
	if x := co.more(); x != nil {
		x.spec, x.vars, x.panicValue, x.panicStack, x.reraised = nil, nil, nil, "", nil
	}
	co.w.Init(co.env.loop, (*wakeup)(co))
}

// wakeup is the loop's view of a coroutine: running it resumes the
// coroutine whose wait ended.
type wakeup Co

// Run resumes the coroutine. It has Resume's body rather than a call of
// Resume, for the reason Resume is flat: one call level less to return
// through after the switch back.
func (r *wakeup) Run() {
	co := (*Co)(r)
	e := co.env
	d := e.depth
	if co.state != stateWaiting || d >= len(e.stack) {
		r.misrun()
	}
	e.stack[d] = co
	e.depth = d + 1
	e.current = co
	e.noteResume(co)
	co.state = stateRunning
	e.dispatching = true // co may run the coroutines its hand-offs wake (Co.wait)
	if co.sw.raw() {
		co.sw.enter()
	} else {
		co.next()
	}
	e.dispatching = false
	if co.state == statePanicked {
		co.raise()
	}
	if h := e.handedPanic; h != nil {
		e.handedPanic = nil
		h.raise()
	}
}

// misrun panics for a wake-up that cannot resume its coroutine.
func (r *wakeup) misrun() {
	co := (*Co)(r)
	if co.state != stateWaiting {
		panic("stackful: internal error: woken coroutine is not waiting")
	}
	panic(misuseError{op: "Resume", state: stateSuspended, maxDepth: len(co.env.stack)})
}

// mainWakeup is the main coroutine's runner: it has nothing to switch to,
// since the main coroutine waits by running the loop itself.
type mainWakeup struct{}

func (mainWakeup) Run() {}
