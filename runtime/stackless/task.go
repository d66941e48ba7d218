package stackless

import (
	"errors"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

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

// Base is embedded in every frame.
type Base struct {
	// PC is the resume point: 0 on entry, then whatever the frame's Step
	// assigns. Only Step reads or writes it.
	PC     int
	parent Frame
}

func (b *Base) base() *Base { return b }

// Task states.
const (
	taskNew     uint8 = iota // spawned, queued for its first step
	taskRunning              // in Run
	taskWaiting              // suspended; its waiter is armed or queued
	taskDone                 // finished (returned, panicked)
)

// A Task runs a chain of frames on one loop. Its first frame is the one
// given to Spawn; its innermost frame is the one a wake-up steps.
type Task struct {
	w        loop.Waiter
	top      Frame
	state    uint8
	waking   bool // this run was started by a wake-up that no operation consumed yet
	blocked  bool // an operation armed the waiter during this step
	canceled bool
	yielded  bool // suspended in Yield: Resume may wake it
	progress int // bytes written so far by a Write that suspended
	ext      *taskExt
}

// taskExt holds what few tasks need, so a suspended task stays small.
type taskExt struct {
	poll     loop.PollState
	deadline time.Duration // of a Poll that waits, on the loop clock; <0: none
	joiners  loop.Cond     // tasks in Await on this one
	panicked bool
	panicVal any
}

func (t *Task) extra() *taskExt {
	if t.ext == nil {
		t.ext = &taskExt{}
	}
	return t.ext
}

// Spawn creates a task running f on l and queues its first step, which runs
// in a later iteration of the loop. Call it on the loop goroutine (or before
// the loop runs).
func Spawn(l *loop.Loop, f Frame) *Task {
	t := &Task{top: f}
	t.w.Init(l, t)
	t.w.Yield()
	return t
}

// Loop returns the loop t runs on.
func (t *Task) Loop() *loop.Loop { return t.w.Loop() }

// Done reports whether t has finished, by returning or by panicking.
func (t *Task) Done() bool { return t.state == taskDone }

// Panicked reports the value t panicked with, if it did.
func (t *Task) Panicked() (any, bool) {
	if t.ext == nil || !t.ext.panicked {
		return nil, false
	}
	return t.ext.panicVal, true
}

// Blocked reports whether a waiting operation in the current step armed the
// task's waiter: the frame must return Suspend.
func (t *Task) Blocked() bool { return t.blocked }

// Call pushes child as the innermost frame and returns Call; the caller
// frame returns that status with its PC set to where it continues once the
// child is Done.
func (t *Task) Call(child Frame) Status {
	if t.state != taskRunning {
		panic("stackless: Call outside the task's step")
	}
	child.base().parent = t.top
	t.top = child
	return Call
}

// Run steps the innermost frame; it is the task's loop.Runner. Only the loop
// calls it.
func (t *Task) Run() {
	if t.state == taskDone {
		return
	}
	t.waking = t.state == taskWaiting
	t.state = taskRunning
	defer func() {
		if r := recover(); r != nil {
			t.blocked = false
			t.top = nil
			e := t.extra()
			e.panicked, e.panicVal = true, r
			t.finish()
		}
	}()
	for {
		f := t.top
		switch f.Step(t) {
		case Suspend:
			if !t.blocked {
				panic("stackless: frame returned Suspend without a blocked operation")
			}
			t.blocked = false
			t.state = taskWaiting
			return
		case Call:
			if t.blocked {
				panic("stackless: frame returned Call after a blocked operation")
			}
		case Done:
			if t.blocked {
				panic("stackless: frame returned Done after a blocked operation")
			}
			b := f.base()
			t.top, b.parent = b.parent, nil
			if t.top == nil {
				t.finish()
				return
			}
		default:
			panic("stackless: Step returned an unknown status")
		}
	}
}

func (t *Task) finish() {
	t.state = taskDone
	t.w.Kill()
	if t.ext != nil {
		t.ext.joiners.Broadcast()
	}
}

// Cancel cancels t: its current wait (fd, timer, cond, await) ends, that
// operation and every later one returns ErrCanceled (Sleep, Gosched and Yield
// return at once), and the task unwinds through its own error paths.
// Canceling a finished task does nothing.
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
	if t.state == taskWaiting && t.w.Armed() && t.yielded {
		t.w.Wake(loop.Ready)
	}
}

// Run runs l until every task in tasks has finished, then re-panics the
// first panic among them in the caller, with the original value. It returns
// the loop's error, if any.
func Run(l *loop.Loop, tasks ...*Task) error {
	pending := func() bool {
		for _, t := range tasks {
			if !t.Done() {
				return true
			}
		}
		return false
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
