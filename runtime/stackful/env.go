package stackful

import (
	"fmt"

	"github.com/cogen-go/cogen/runtime/loop"
)

// DefaultMaxDepth is the default limit of the call stack depth, main
// coroutine included: libco's pCallStack has 128 slots (and overflows them
// silently).
const DefaultMaxDepth = 128

// An Env is one thread of coroutines: libco's stCoRoutineEnv_t. It owns an
// event loop, the asymmetric call stack with the main coroutine at its
// bottom, and the list of live coroutines. One coroutine of an env runs at a
// time, so coroutines of one env share data without locks.
//
// The goroutine that creates an env and runs its loop is the env's main
// coroutine ([Env.Main]); every other coroutine runs on a goroutine of its
// own, entered and left by direct switches. An Env must be used only by the
// coroutine that is current, on its goroutine: never concurrently from other
// goroutines (use [loop.Loop.Submit] to send work in).
type Env struct {
	loop    *loop.Loop
	ownLoop bool

	main    Co
	stack   []*Co // the call stack, len = the depth limit: stack[0] is main, stack[depth-1] current
	depth   int
	current *Co

	live []*Co // started and unfinished coroutines, for Close; co.liveIdx is co's index

	shares   []*ShareStack                   // share stacks bound to this env
	mainStop func() bool                     // stop function of the main coroutine's waits
	starter  func() (struct{}, bool)         // the next of coroutines not started yet
	body     func(yield func(struct{}) bool) // iter.Pull's sequence for every coroutine with a goroutine of its own
	closing  bool
	closed   bool
	mainG    uintptr // the main goroutine's identity in Self's registry

	switches uint64       // Resumes so far: with current, what the stall watchdog samples (stall.go)
	stall    stallWatch   // the stall watchdog
	offload  *offloadPool // worker goroutines for Co.Offload, made on first use
	// dispatching: the coroutine at depth 2 was resumed by the loop (a
	// wakeup), so its waits may switch straight to the coroutine in the
	// loop's run-next slot (Co.wait). handedPanic is a coroutine such a
	// switch ran that panicked: the loop's resume raises its panic.
	dispatching bool
	handedPanic *Co
	// stopPending: a Stop arrived while the main coroutine waited, and the
	// loop run of that wait consumed it; the next Env.Run returns at once.
	stopPending bool
}

// NewEnv creates an env with a loop of its own, which [Env.Close] closes.
func NewEnv() (*Env, error) {
	l, err := loop.New()
	if err != nil {
		return nil, err
	}
	e := NewEnvOn(l)
	e.ownLoop = true
	return e, nil
}

// NewEnvOn creates an env on an existing loop, for example one shared with
// stackless tasks. The loop stays the caller's: [Env.Close] does not close
// it. The goroutine that runs the loop must be the env's main coroutine.
func NewEnvOn(l *loop.Loop) *Env {
	if l == nil {
		panic("stackful: NewEnvOn with a nil loop")
	}
	e := &Env{loop: l}
	e.main.env = e
	e.main.state = stateMain
	e.main.w.Init(l, mainWakeup{})
	e.stack = make([]*Co, DefaultMaxDepth)
	e.stack[0] = &e.main
	e.depth = 1
	e.current = &e.main
	e.mainStop = func() bool { return !e.main.w.Armed() && !e.main.w.Queued() }
	e.starter = func() (struct{}, bool) {
		e.current.start(nil) // Resume has pushed the coroutine
		return struct{}{}, true
	}
	e.body = func(yield func(struct{}) bool) {
		co := e.current // the first next has just pushed it
		co.yield = yield
		co.run()
	}
	e.mainG = register(&e.main) // Self's registry (self.go)
	e.startWatchdog()
	return e
}

// Loop returns the env's event loop (libco's co_get_epoll_ct).
func (e *Env) Loop() *loop.Loop { return e.loop }

// Main returns the main coroutine: the goroutine that created the env and
// runs its loop. It is always running and never yields; its waiting methods
// run the loop until the wait ends.
func (e *Env) Main() *Co { return &e.main }

// Current returns the coroutine on top of the call stack (libco's co_self).
func (e *Env) Current() *Co { return e.current }

// Depth returns the number of coroutines on the call stack, main included.
func (e *Env) Depth() int { return e.depth }

// MaxDepth returns the call stack depth limit, main included.
func (e *Env) MaxDepth() int { return len(e.stack) }

// SetMaxDepth sets the call stack depth limit, main included; a Resume that
// would exceed it panics. It panics if n is less than the current depth.
func (e *Env) SetMaxDepth(n int) {
	if n < e.depth || n < 1 {
		panic(fmt.Sprintf("stackful: SetMaxDepth(%d) below the current depth %d", n, e.depth))
	}
	stack := make([]*Co, n)
	copy(stack, e.stack[:e.depth])
	e.stack = stack
}

// Live returns the number of coroutines that have started and not finished:
// the ones Close would unwind.
func (e *Env) Live() int { return len(e.live) }

// Closed reports whether Close has been called.
func (e *Env) Closed() bool { return e.closed }

// Run runs the event loop until stop returns true (libco's co_eventloop with
// its pfn; a nil stop runs until the loop is closed or [Env.Stop]). stop is
// called once per iteration, after the woken coroutines have run, including
// those woken by coroutines that ran in the same iteration (libco's active
// list; see package loop's "One iteration" for the bound), and once before
// the first: a condition that already holds (every coroutine finished while
// it was created, its hooked calls answered without a wait) returns at once
// instead of blocking in an idle loop's poller. Coroutines whose waits
// end are resumed from the loop, that is, by the coroutine calling Run,
// normally the main coroutine. A panic in a coroutine resumed by the loop
// propagates out of Run.
//
// The trap for code ported from libco: an idle loop does not iterate, so
// stop is not called until an fd event, a timer or a Submit wakes the loop;
// a stop condition set by another goroutine (a signal handler, a quit flag)
// is not seen by an idle env. Call [Env.Stop] from that goroutine instead,
// or set the condition and call [Env.Wake], or give the loop libco's cadence
// with e.Loop().SetIdleTick(time.Millisecond).
func (e *Env) Run(stop func() bool) error {
	if e.stopPending {
		e.stopPending = false
		return nil
	}
	return e.loop.Run(stop)
}

// Stop makes the env's Run return after the loop iteration it is in (or the
// next Run, if none is running). It may be called from any goroutine, for
// example a signal handler's, and fails only if the loop is closed.
// Stopping does not close the env: call Close on the main coroutine after
// Run returns. With a context: context.AfterFunc(ctx, func() { env.Stop() }).
func (e *Env) Stop() error { return e.loop.StopRun() }

// Wake makes the env's loop run an iteration, and so call Run's stop
// function, even when idle. It may be called from any goroutine.
func (e *Env) Wake() error { return e.loop.Wake() }

func (e *Env) addLive(co *Co) {
	co.liveIdx = int32(len(e.live))
	e.live = append(e.live, co)
}

// removeLive swaps co's slot with the last one: O(1), and the slice's
// order (which Close does not rely on) changes.
func (e *Env) removeLive(co *Co) {
	i, last := co.liveIdx, len(e.live)-1
	moved := e.live[last]
	e.live[i], moved.liveIdx = moved, i
	e.live[last] = nil
	e.live = e.live[:last]
	co.liveIdx = -1
}

// Close unwinds every suspended coroutine and closes the env's loop if the
// env created it. Each coroutine is resumed one last time with its pending
// Yield or wait panicking with a private value, so its deferred calls run and
// its goroutine ends; the panic is recovered at the coroutine's top. A
// coroutine that recovers it and keeps waiting is unwound again at each
// wait. Coroutines created and never started simply become unstartable.
//
// Close must be called by the main coroutine with nothing else on the call
// stack. If a deferred call of an unwound coroutine panics, Close finishes
// its work and then re-raises the first such panic. Closing twice does
// nothing.
func (e *Env) Close() error {
	if e.closed {
		return nil
	}
	if e.current != &e.main {
		panic("stackful: Close called by a coroutine other than the main coroutine")
	}
	e.closing = true
	e.stopWatchdog()
	var first any
	var firstStack string
	for len(e.live) > 0 {
		co := e.live[len(e.live)-1] // the most recently started first
		co.w.Disarm()
		co.state = stateUnwinding
		e.stack[e.depth] = co // depth is 1: there is room
		e.depth++
		e.current = co
		e.noteResume(co)
		if co.sw.raw() { // co's Yield or wait sees stateUnwinding and panics
			co.sw.enter()
		} else {
			co.next()
		}
		switch co.state {
		case stateDead:
		case statePanicked:
			if first == nil {
				first, firstStack = co.extra.panicValue, co.extra.panicStack
			}
			co.extra.panicValue = nil
			co.state = stateDead
		default:
			panic("stackful: internal error: coroutine still alive after unwinding")
		}
	}
	e.stopOffload()
	for _, s := range e.shares {
		s.drain()
	}
	e.shares = nil
	e.main.w.Disarm()
	e.main.endPoll()
	unregister(e.mainG, &e.main)
	e.closed = true
	var err error
	if e.ownLoop {
		err = e.loop.Close()
	}
	if first != nil {
		raiseWithStack(first, firstStack)
	}
	return err
}
