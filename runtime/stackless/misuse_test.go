//go:build linux

package stackless

import (
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// TestMisusePanics: contract violations panic with a "stackless: " message.
// Inside a task the panic ends the task and reaches Run's caller; the loop
// stays usable.
func TestMisusePanics(t *testing.T) {
	var c Cond
	inTask := []struct {
		name, want string
		step       func(t *Task, pc *int) Status
	}{
		{"suspend without a blocked operation", "stackless: frame returned Suspend without a blocked operation",
			func(t *Task, pc *int) Status { return Suspend }},
		{"two blocking operations in one step", "stackless: waiting operation called after another one blocked",
			func(t *Task, pc *int) Status {
				t.Wait(&c, -1)
				t.Sleep(time.Millisecond)
				return Suspend
			}},
		{"done after an operation blocked", "stackless: frame returned Done after an operation blocked",
			func(t *Task, pc *int) Status {
				t.Gosched()
				return Done
			}},
		{"call after an operation blocked", "stackless: Call outside the task's step, or after an operation blocked",
			func(t *Task, pc *int) Status {
				t.Sleep(time.Hour)
				return t.Call(newFn(func(t *Task, pc *int) Status { return Done }))
			}},
		{"call status without Task.Call", "stackless: frame returned Call without calling Task.Call",
			func(t *Task, pc *int) Status { return Call }},
		{"unknown status", "stackless: Step returned an unknown status",
			func(t *Task, pc *int) Status { return Status(42) }},
		{"await itself", "stackless: task awaits itself",
			nil}, // filled in below: needs the task
	}
	for _, tc := range inTask {
		t.Run(tc.name, func(t *testing.T) {
			l := newLoop(t)
			var task *Task
			step := tc.step
			if step == nil {
				step = func(t *Task, pc *int) Status { t.Await(task); return Done }
			}
			task = Spawn(l, newFn(step))
			mustPanic(t, tc.want, func() { Run(l, task) })
			if _, ok := task.Panicked(); !ok || !task.Done() {
				t.Fatal("the task did not end panicked")
			}
			if st := l.Stats(); st.Armed != 0 {
				t.Fatalf("%d waiters left armed by the dead task", st.Armed)
			}
			// The loop still works.
			ok := Spawn(l, newFn(func(t *Task, pc *int) Status {
				t.Sleep(time.Millisecond)
				if t.Blocked() {
					return Suspend
				}
				return Done
			}))
			run(t, l, 5*time.Second, ok)
		})
	}
	if c.Len() != 0 {
		t.Fatalf("a dead task is still on the Cond (%d)", c.Len())
	}
}

// TestMisuseOutsideTask: operations called outside the task's step, and bad
// arguments to Spawn, Call, Await and Run, panic at once in the caller.
func TestMisuseOutsideTask(t *testing.T) {
	l := newLoop(t)
	other := newLoop(t)
	done := Spawn(l, newFn(func(t *Task, pc *int) Status { return Done }))
	run(t, l, time.Second, done)
	elsewhere := Spawn(other, newFn(func(t *Task, pc *int) Status { return Done }))
	var c Cond

	mustPanic(t, "stackless: waiting operation called outside the task's step", func() { done.Sleep(time.Millisecond) })
	mustPanic(t, "stackless: waiting operation called outside the task's step", func() { done.Gosched() })
	mustPanic(t, "stackless: waiting operation called outside the task's step", func() { done.Wait(&c, -1) })
	mustPanic(t, "stackless: waiting operation called outside the task's step", func() { done.Read(0, nil) })
	mustPanic(t, "stackless: waiting operation called outside the task's step", func() { done.Poll(nil, 0) })
	mustPanic(t, "stackless: Spawn of a nil frame", func() { Spawn(l, nil) })
	mustPanic(t, "stackless: Run of a task spawned on another loop", func() { Run(l, elsewhere) })

	// Await across loops, and Call of a frame already on the chain.
	var got1, got2 any
	self := newFn(nil)
	self.step = func(t *Task, pc *int) Status {
		func() {
			defer func() { got1 = recover() }()
			t.Await(elsewhere)
		}()
		func() {
			defer func() { got2 = recover() }()
			t.Call(self)
		}()
		return Done
	}
	run(t, l, time.Second, Spawn(l, self))
	if got1 != "stackless: Await of a task on another loop" {
		t.Fatalf("Await across loops: %v", got1)
	}
	if got2 != "stackless: Call of a frame that is already running" {
		t.Fatalf("recursive Call of the same frame: %v", got2)
	}
	run(t, other, time.Second, elsewhere)
}

// TestHandlePanicIsTheLoopsHook: Task implements loop.PanicHandler, so a
// panicking frame costs no defer on the normal path.
func TestHandlePanicIsTheLoopsHook(t *testing.T) {
	var _ loop.PanicHandler = (*Task)(nil)
}
