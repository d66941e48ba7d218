//go:build linux

package stackless

import (
	"errors"
	"testing"
	"time"
)

// depthFrame is
//
//	func depth(t *Task, n, waits int) int {
//		if n == 0 {
//			for i := 0; i < waits; i++ { t.Gosched() }
//			return 1
//		}
//		return depth(t, n-1, waits) + 1
//	}
//
// and counts its steps.
type depthFrame struct {
	Base
	n, waits, i, r0 int
	child           *depthFrame
	steps           *[]int // steps[n]: Step calls of the frame at depth n
}

func (f *depthFrame) Step(t *Task) Status {
	(*f.steps)[f.n]++
	for {
		switch f.PC {
		case 0:
			if f.n == 0 {
				f.PC = 1
				continue
			}
			f.child = &depthFrame{n: f.n - 1, waits: f.waits, steps: f.steps}
			f.PC = 3
			return t.Call(f.child)
		case 1:
			if f.i == f.waits {
				f.r0 = 1
				return Done
			}
			f.PC = 2
			fallthrough
		case 2:
			t.Gosched()
			if t.Blocked() {
				return Suspend
			}
			f.i++
			f.PC = 1
		case 3:
			f.r0 = f.child.r0 + 1
			f.child = nil
			return Done
		}
	}
}

// TestNestedCallDepth: 1,000 nested frames; the innermost one suspends ten
// times. The result flows back through every level, and a wake-up steps only
// the innermost frame: every outer frame is stepped exactly twice (on entry
// and when its child returns), however often the innermost one waits.
func TestNestedCallDepth(t *testing.T) {
	const depth, waits = 1000, 10
	l := newLoop(t)
	steps := make([]int, depth+1)
	top := &depthFrame{n: depth, waits: waits, steps: &steps}
	task := Spawn(l, top)
	run(t, l, 10*time.Second, task)
	if top.r0 != depth+1 {
		t.Fatalf("result %d, want %d", top.r0, depth+1)
	}
	if steps[0] != waits+1 {
		t.Fatalf("innermost frame stepped %d times, want %d", steps[0], waits+1)
	}
	for n := 1; n <= depth; n++ {
		if steps[n] != 2 {
			t.Fatalf("frame at depth %d stepped %d times, want 2", n, steps[n])
		}
	}
}

// awaitFrame awaits another task, records what Await returned and whether
// the code after it ran.
type awaitFrame struct {
	Base
	o     *Task
	err   error
	after bool
}

func (f *awaitFrame) Step(t *Task) Status {
	for {
		switch f.PC {
		case 0:
			f.PC = 1
			fallthrough
		case 1:
			err := t.Await(f.o)
			if t.Blocked() {
				return Suspend
			}
			f.err = err
			f.after = true
			return Done
		}
	}
}

type boom struct{ msg string }

// TestPanicPropagation: a panic three frames deep in one task ends that
// task; a task awaiting it panics with the same value, a task awaiting that
// one too, and Run re-panics it, still the original value, in its caller.
func TestPanicPropagation(t *testing.T) {
	l := newLoop(t)
	v := &boom{"deep"}
	var reached []string
	// Task 1: outer -> middle -> inner, and inner panics after a suspension.
	inner := newFn(func(t *Task, pc *int) Status {
		t.Sleep(time.Millisecond)
		if t.Blocked() {
			return Suspend
		}
		panic(v)
	})
	middle := newFn(func(t *Task, pc *int) Status {
		if *pc == 0 {
			*pc = 1
			return t.Call(inner)
		}
		reached = append(reached, "middle after inner")
		return Done
	})
	outer := newFn(func(t *Task, pc *int) Status {
		if *pc == 0 {
			*pc = 1
			return t.Call(middle)
		}
		reached = append(reached, "outer after middle")
		return Done
	})
	t1 := Spawn(l, outer)
	a2 := &awaitFrame{o: t1}
	t2 := Spawn(l, a2)
	a3 := &awaitFrame{o: t2}
	t3 := Spawn(l, a3)

	got := func() (r any) {
		defer func() { r = recover() }()
		Run(l, t3)
		return nil
	}()
	if got != v {
		t.Fatalf("Run panicked with %#v, want the original %#v", got, v)
	}
	for i, task := range []*Task{t1, t2, t3} {
		if p, ok := task.Panicked(); !ok || p != v {
			t.Fatalf("task %d: Panicked() = %v, %v", i+1, p, ok)
		}
		if !task.Done() {
			t.Fatalf("task %d not done", i+1)
		}
	}
	if reached != nil || a2.after || a3.after {
		t.Fatalf("code after the panic ran: %v %v %v", reached, a2.after, a3.after)
	}
}

// TestRunStopsOnPanic: Run re-panics as soon as one of its tasks panics,
// even though another of its tasks would wait forever.
func TestRunStopsOnPanic(t *testing.T) {
	l := newLoop(t)
	var c Cond
	forever := Spawn(l, newFn(func(t *Task, pc *int) Status {
		t.Wait(&c, -1)
		if t.Blocked() {
			return Suspend
		}
		return Done
	}))
	bad := Spawn(l, newFn(func(t *Task, pc *int) Status { panic("bad") }))
	mustPanic(t, "bad", func() { Run(l, forever, bad) })
	if forever.Done() {
		t.Fatal("the waiting task finished")
	}
}

// TestAwaitFinished: Await of a task that already returned does not
// suspend; Await of a task that already panicked panics with its value.
func TestAwaitFinished(t *testing.T) {
	l := newLoop(t)
	ok := Spawn(l, newFn(func(t *Task, pc *int) Status { return Done }))
	v := &boom{"early"}
	bad := Spawn(l, newFn(func(t *Task, pc *int) Status { panic(v) }))
	run(t, l, time.Second, ok)
	for !bad.Done() {
		l.RunOnce()
	}

	blocked := true
	var got any
	checker := Spawn(l, newFn(func(t *Task, pc *int) Status {
		if err := t.Await(ok); err != nil {
			panic(err)
		}
		blocked = t.Blocked()
		func() {
			defer func() { got = recover() }()
			t.Await(bad)
		}()
		return Done
	}))
	run(t, l, time.Second, checker)
	if blocked {
		t.Fatal("Await of a finished task suspended")
	}
	if got != v {
		t.Fatalf("Await of a panicked task panicked with %v, want %v", got, v)
	}
}

// TestAwaitMany: every task awaiting one task wakes when it returns, and
// reads its results from its frame.
func TestAwaitMany(t *testing.T) {
	l := newLoop(t)
	worker := &depthFrame{n: 3, waits: 2, steps: &[]int{0, 0, 0, 0}}
	w := Spawn(l, worker)
	var sums []int
	var tasks []*Task
	for range 3 {
		tasks = append(tasks, Spawn(l, newFn(func(t *Task, pc *int) Status {
			err := t.Await(w)
			if t.Blocked() {
				return Suspend
			}
			if err != nil {
				panic(err)
			}
			sums = append(sums, worker.r0)
			return Done
		})))
	}
	run(t, l, 5*time.Second, tasks...)
	if len(sums) != 3 || sums[0] != 4 || sums[1] != 4 || sums[2] != 4 {
		t.Fatalf("awaiters saw %v, want [4 4 4]", sums)
	}
}

// TestAwaitCanceled: canceling a task blocked in Await makes Await return
// ErrCanceled; the awaited task is not affected.
func TestAwaitCanceled(t *testing.T) {
	l := newLoop(t)
	var c Cond
	slow := Spawn(l, newFn(func(t *Task, pc *int) Status {
		t.Wait(&c, -1)
		if t.Blocked() {
			return Suspend
		}
		return Done
	}))
	a := &awaitFrame{o: slow}
	waiter := Spawn(l, a)
	l.AfterFunc(time.Millisecond, waiter.Cancel)
	run(t, l, 5*time.Second, waiter)
	if !errors.Is(a.err, ErrCanceled) {
		t.Fatalf("Await returned %v, want ErrCanceled", a.err)
	}
	if slow.Done() {
		t.Fatal("the awaited task was affected")
	}
	c.Signal()
	run(t, l, 5*time.Second, slow)
}
