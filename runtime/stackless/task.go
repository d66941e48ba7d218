package stackless

import (
	"errors"
	"github.com/cogen-go/cogen/runtime/stackless/cogenrt"
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/internal/taskpanic"
	"github.com/cogen-go/cogen/runtime/loop"
)

// taskPanics counts task panics in the process; Run compares it once per
// loop iteration to notice a panic among its tasks without scanning them.
var taskPanics atomic.Uint64

// Cond is the loop's condition variable, shared by both coroutine models.
type Cond = loop.Cond

// ErrCanceled is returned by the waiting operations of a canceled task.
var ErrCanceled = loop.ErrCanceled

// Status is what a Step returns.
type Status uint8

const (
	// Suspend: a waiting operation blocked (Task.Blocked is true); the task
	// resumes this frame at its PC when woken.
	Suspend Status = iota
	// Call: Task.Call pushed a child frame; the task steps it next.
	Call
	// Done: the frame has returned; its results are in its fields.
	Done
)

// A Frame is one activation of a stackless function. Implementations embed
// [Base], which carries the resume point and the link to the caller.
type Frame interface {
	// Step runs the frame from its PC to the next suspension, call or return.
	Step(t *Task) Status
	base() *Base
}

// Base is embedded in every frame. It holds the resume point only: the
// chain of callers lives in the task, so that a frame costs its own fields
// plus one word.
type Base struct {
	// PC is the resume point: 0 on entry, then whatever the frame's Step
	// assigns. Only Step reads or writes it.
	PC int
}

func (b *Base) base() *Base { return b }

// Task states.
//
//	new --first run--> running --block--> waiting --wake-up--> running
//	running --last frame Done, or a panic--> done
//	waiting --loop closed and woken again--> done
//
// A waiting operation that arms the waiter moves the task from running to
// waiting during its step (Blocked reports it); the frame then returns
// Suspend, and Run checks that the two agree.
const (
	taskNew     uint8 = iota // spawned, queued for its first step
	taskRunning              // in Run, no operation blocked yet
	taskWaiting              // an operation armed the waiter; suspended once Step returns
	taskDone                 // finished: returned, panicked, or ended by the loop's Close
)

// A Task runs a chain of frames on one loop. Its first frame is the one
// given to Spawn; its innermost frame is the one a wake-up steps.
//
// A suspended task is one 128-byte allocation plus its frames: the waiter
// is embedded, and what fewer tasks need lives out of line, allocated on
// first use: in ext (48 bytes) the callers of a nested call and the handle
// protocol's operation slot, which a task blocked on a cosync primitive
// needs; behind ext.more (128 bytes) a Poll's state, a Write's progress,
// the tasks awaiting it, a panic value and a durable task's observer.
//
// The fields a switch touches (top, the flags, the head of the waiter) come
// first so that a resume reads one cache line of the task.
type Task struct {
	top      Frame
	state    uint8
	waking   bool // this run was started by a wake-up that no operation consumed yet
	canceled bool
	yielded  bool  // suspended in Yield: Resume may wake it
	closing  bool  // an operation consumed a LoopClosed wake-up: blocking again ends the task
	carry    uint8 // while waiting: the carriable operation it waits in (durable.go), or carryNone
	observed bool  // an Observer watches it (durable.go): told of carriable suspensions and of the end
	w        loop.Waiter
	ext      *taskExt
}

// taskExt holds what a nested or blocked task needs beyond the Task, so
// that a task blocked on a channel costs 48 bytes here, not the 176 of
// taskExt and taskMore together.
type taskExt struct {
	callers []Frame   // the frames below top, outermost first
	pending any       // the handle protocol's operation slot (OpSlot)
	more    *taskMore // allocated on first use
}

// taskMore holds what few tasks need.
type taskMore struct {
	progress   int // bytes written so far by a Write that suspended
	poll       loop.PollState
	deadline   time.Duration // of a Poll that waits, on the loop clock; <0: none
	pollStreak int           // Polls in a row that returned without suspending
	joiners    loop.Cond     // tasks in Await on this one
	panicVal   any
	durable    *durableState // an observed task's (Observe, durable.go)
	panicked   bool
	ended      bool // ended by the loop's Close rather than by returning
}

func (t *Task) extra() *taskExt {
	if t.ext == nil {
		t.ext = &taskExt{}
	}
	return t.ext
}

// more returns the task's rarely used state, allocating it on first use.
func (t *Task) more() *taskMore {
	e := t.extra()
	if e.more == nil {
		e.more = &taskMore{}
	}
	return e.more
}

// moreIfAny returns the task's rarely used state, or nil if it has none.
func (t *Task) moreIfAny() *taskMore {
	if t.ext == nil {
		return nil
	}
	return t.ext.more
}

// Spawn creates a task running f on l and queues its first step, which runs
// in a later iteration of the loop. Call it on the loop goroutine (or before
// the loop runs). On a closed loop the task runs only if Close is still
// running queued work, and its first wait then reports the loop's error.
func Spawn(l *loop.Loop, f Frame) *Task {
	if f == nil {
		panic("stackless: Spawn of a nil frame")
	}
	t := &Task{top: f}
	t.w.Init(l, t)
	t.w.Yield()
	return t
}

// Loop returns the loop t runs on.
func (t *Task) Loop() *loop.Loop { return t.w.Loop() }

// Done reports whether t has finished: by returning, by panicking, or by
// being ended when its loop closed.
func (t *Task) Done() bool { return t.state == taskDone }

// Panicked reports the value t panicked with, if it did.
func (t *Task) Panicked() (any, bool) {
	m := t.moreIfAny()
	if m == nil || !m.panicked {
		return nil, false
	}
	return m.panicVal, true
}

// Blocked reports whether a waiting operation in the current step armed the
// task's waiter: the frame must return Suspend.
func (t *Task) Blocked() bool { return t.state == taskWaiting }

// Call pushes child as the innermost frame and returns Call; the caller
// frame returns that status with its PC set to where it continues once the
// child is Done.
func (t *Task) Call(child Frame) Status {
	if t.state != taskRunning {
		panic("stackless: Call outside the task's step, or after an operation blocked")
	}
	if child == t.top {
		panic("stackless: Call of a frame that is already running")
	}
	child.base() // a nil child panics here, in the caller
	e := t.extra()
	e.callers = append(e.callers, t.top)
	t.top = child
	return Call
}

// Run steps the innermost frame; it is the task's loop.Runner. Only the loop
// calls it.
//
// This is the hot path of every resume: a state check, one interface call
// per frame step and the status check, no allocation and no defer (a panic
// is recovered once per batch by the loop, which calls HandlePanic).
func (t *Task) Run() {
	switch t.state {
	case taskWaiting:
		t.waking = true
		t.carry = carryNone
	case taskNew:
	default:
		return // finished, or re-entered: never step twice
	}
	t.state = taskRunning
	for {
		f := t.top
		switch f.Step(t) {
		case Suspend:
			if t.state != taskWaiting {
				panic("stackless: frame returned Suspend without a blocked operation")
			}
			if t.closing {
				t.end() // blocked again after the loop closed: it would never finish
			} else if t.observed && t.carry != carryNone {
				t.ext.more.durable.observer.Suspended(t)
			}
			return
		case Call:
			if t.state != taskRunning {
				panic("stackless: frame returned Call after an operation blocked")
			}
			if t.top == f {
				panic("stackless: frame returned Call without calling Task.Call")
			}
		case Done:
			if t.state != taskRunning {
				panic("stackless: frame returned Done after an operation blocked")
			}
			if e := t.ext; e == nil || len(e.callers) == 0 {
				t.top = nil
				t.finish()
				return
			}
			t.pop()
		default:
			panic("stackless: Step returned an unknown status")
		}
	}
}

// HandlePanic unwinds the task with the value a frame panicked with; the
// loop calls it after recovering a panic from Run (loop.PanicHandler).
//
// The frames are unwound innermost first, each running its deferred calls
// (frames that embed [cogenrt.Defers]). If one of them recovers, that frame returns
// normally to its caller, which goes on in this same run. Otherwise the task
// ends panicked: tasks in Await on t re-panic with the value, and so does a
// Run waiting for it.
func (t *Task) HandlePanic(v any) {
	if h := taskpanic.Hook; h != nil {
		h(v) // the tests' restore fuzzers: where the panic was raised
	}
	for {
		var recovered bool
		v, recovered = t.unwind(v)
		if !recovered {
			break
		}
		// The frame that recovered has returned: its caller continues.
		if t.top == nil {
			t.finish()
			return
		}
		var again bool
		if v, again = t.runCatching(); !again {
			return
		}
	}
	t.waking = false
	t.top = nil
	e := t.extra()
	clear(e.callers)
	e.callers = nil
	m := t.more()
	m.panicked, m.panicVal = true, v
	taskPanics.Add(1)
	t.finish()
}

// unwind pops frames from the innermost one, running their deferred calls
// with the panic v in flight, until one recovers. It reports the panic that
// is left, or that a frame recovered; t.top is then that frame's caller (nil
// if it was the first frame).
func (t *Task) unwind(v any) (any, bool) {
	// Whatever the panicking step was waiting for is abandoned.
	t.waking, t.yielded = false, false
	if t.state == taskWaiting {
		t.w.Disarm()
	}
	if m := t.moreIfAny(); m != nil {
		t.w.Loop().EndPoll(&t.w, &m.poll)
	}
	t.state = taskRunning
	for t.top != nil {
		f := t.top
		t.pop()
		var recovered bool
		if v, recovered = cogenrt.Unwind(f, v); recovered {
			return nil, true
		}
	}
	return v, false
}

// pop drops the innermost frame; its caller, if any, becomes the top.
func (t *Task) pop() {
	e := t.ext
	if e == nil || len(e.callers) == 0 {
		t.top = nil
		return
	}
	n := len(e.callers) - 1
	t.top = e.callers[n]
	e.callers[n] = nil
	e.callers = e.callers[:n]
}

// runCatching continues the task after a recovered panic, in the loop's run
// that recovered it. It reports a new panic from the task's frames.
func (t *Task) runCatching() (v any, panicked bool) {
	panicked = true
	defer func() {
		if panicked {
			v = recover()
		}
	}()
	t.state = taskNew // Run steps the top frame without a wake-up to consume
	t.Run()
	return nil, false
}

// end ends a task that would wait forever on a closed loop.
func (t *Task) end() {
	t.top = nil
	e := t.extra()
	clear(e.callers)
	e.callers = nil
	t.more().ended = true
	t.finish()
}

func (t *Task) finish() {
	t.state = taskDone
	m := t.moreIfAny()
	if t.ext != nil {
		t.ext.pending = nil // an abandoned operation's records are dead from now on
	}
	if m != nil {
		// A task that ends inside a Poll (panic, Close) must not leave its
		// per-fd child waiters holding the fds' slots.
		t.w.Loop().EndPoll(&t.w, &m.poll)
	}
	t.w.Kill()
	if m != nil {
		m.joiners.Broadcast()
	}
	if t.observed {
		t.observed = false
		m.durable.observer.Finished(t)
	}
}

// Cancel cancels t: its current wait (fd, timer, cond, await) ends, that
// operation and every later one returns ErrCanceled (Sleep, Gosched and
// Yield return at once, Wait returns false), and the task unwinds through
// its own error paths. Canceling a finished task does nothing. Call it on
// the loop goroutine.
func (t *Task) Cancel() {
	if t.state == taskDone || t.canceled {
		return
	}
	t.canceled = true
	t.w.Cancel()
}

// Canceled reports whether Cancel was called.
func (t *Task) Canceled() bool { return t.canceled }

// Resume wakes a task suspended in Yield; it does nothing otherwise. Call it
// on the loop goroutine.
func (t *Task) Resume() {
	if t.yielded && t.state == taskWaiting && t.w.Armed() {
		t.w.Wake(loop.Ready)
	}
}

// Run runs l until every task in tasks has finished or one of them has
// panicked, then re-panics the first panic among them in the caller, with
// the original value. It returns the loop's error if the loop fails, and an
// error if the loop stops (is closed) before the tasks finish.
func Run(l *loop.Loop, tasks ...*Task) error {
	for _, t := range tasks {
		if t.Loop() != l {
			panic("stackless: Run of a task spawned on another loop")
		}
	}
	// A task panic anywhere bumps taskPanics; only then does Run look for
	// one among its own tasks. This keeps Run from attaching anything to
	// the tasks it watches.
	panicked := false
	seen := taskPanics.Load()
	checkPanics := func() {
		if p := taskPanics.Load(); p != seen {
			seen = p
			for _, t := range tasks {
				if _, ok := t.Panicked(); ok {
					panicked = true
					return
				}
			}
		}
	}
	for _, t := range tasks {
		if _, ok := t.Panicked(); ok {
			panicked = true
		}
	}
	// The stop function runs once per loop iteration: keep it O(1) amortised
	// by remembering the first task that had not finished.
	next := 0
	pending := func() bool {
		checkPanics()
		for next < len(tasks) && tasks[next].Done() {
			next++
		}
		return next < len(tasks) && !panicked
	}
	if pending() {
		if err := l.Run(func() bool { return !pending() }); err != nil {
			return err
		}
	}
	for _, t := range tasks {
		if v, ok := t.Panicked(); ok {
			panic(v)
		}
	}
	if pending() {
		return errors.New("stackless: loop stopped before the tasks finished")
	}
	return nil
}
