//go:build linux

package stackless

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// sleepyFrame is the stackless form of
//
//	func sleepy(t *Task, id int, d time.Duration) (int, bool) {
//		t.Sleep(d)
//		t.Gosched()
//		return id * 3, t.Canceled()
//	}
//
// its result names the task that computed it, so that a block reused for
// another task while the first was still running would show.
type sleepyFrame struct {
	Base
	id       int
	d        time.Duration
	r        int
	canceled bool
}

func (f *sleepyFrame) Step(t *Task) Status {
	switch f.PC {
	case 0:
		if f.d > 0 {
			if t.Sleep(f.d); t.Blocked() {
				return Suspend
			}
		}
		f.PC = 1
		fallthrough
	case 1:
		if t.Gosched(); t.Blocked() {
			return Suspend
		}
	}
	f.r, f.canceled = f.id*3, t.Canceled()
	return Done
}

func runPooled(t *testing.T, l *loop.Loop, hs ...Pooled[sleepyFrame, *sleepyFrame]) {
	t.Helper()
	ts := make([]*Task, len(hs))
	for i, h := range hs {
		ts[i] = h.Task()
	}
	if err := Run(l, ts...); err != nil {
		t.Fatal(err)
	}
}

// TestPoolReuse: a released block runs the next task spawned, from a clean
// frame, and its result is that task's.
func TestPoolReuse(t *testing.T) {
	l := newLoop(t)
	p := NewPool[sleepyFrame](l)
	h := p.Spawn(sleepyFrame{id: 1, d: time.Millisecond})
	first := h.Task()
	runPooled(t, l, h)
	if !h.Done() || h.Frame().r != 3 || h.Frame().canceled {
		t.Fatalf("first task: done %v, frame %+v", h.Done(), *h.Frame())
	}
	h.Release()
	if p.Free() != 1 {
		t.Fatalf("Free after Release = %d, want 1", p.Free())
	}
	h2 := p.Spawn(sleepyFrame{id: 2})
	if h2.Task() != first {
		t.Fatal("Spawn after Release did not reuse the released block")
	}
	if h2.Done() || h2.Frame().r != 0 || h2.Frame().PC != 0 {
		t.Fatalf("reused block not fresh: done %v, frame %+v", h2.Done(), *h2.Frame())
	}
	runPooled(t, l, h2)
	if h2.Frame().r != 6 {
		t.Fatalf("second task's result %d, want 6", h2.Frame().r)
	}
	// A task canceled in its sleep leaves no trace in the next one.
	h2.Release()
	h3 := p.Spawn(sleepyFrame{id: 3, d: time.Hour})
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	h3.Task().Cancel()
	runPooled(t, l, h3)
	if !h3.Frame().canceled {
		t.Fatal("the canceled task did not see its cancel")
	}
	h3.Release()
	h4 := p.Spawn(sleepyFrame{id: 4})
	if task := h4.Task(); task.Canceled() || task.carry != carryNone || task.waking || task.closing {
		t.Fatalf("reused task carries its last task's state: %+v", *task)
	}
	runPooled(t, l, h4)
	if h4.Frame().canceled || h4.Frame().r != 12 {
		t.Fatalf("fourth task: %+v", *h4.Frame())
	}
	h4.Release()
}

// TestPoolStaleHandle: every use of a released handle panics, also once
// its block runs another task; so does releasing an unfinished task.
func TestPoolStaleHandle(t *testing.T) {
	l := newLoop(t)
	p := NewPool[sleepyFrame](l)
	h := p.Spawn(sleepyFrame{id: 1})
	mustPanic(t, "stackless: Release of a task that has not finished", h.Release)
	runPooled(t, l, h)
	h.Release()
	uses := map[string]func(){
		"Task":    func() { h.Task() },
		"Frame":   func() { h.Frame() },
		"Done":    func() { h.Done() },
		"Release": h.Release,
	}
	check := func(when string) {
		for _, use := range uses {
			mustPanic(t, "stackless: use of a released task", use)
		}
	}
	check("released")
	h2 := p.Spawn(sleepyFrame{id: 2}) // the same block, a new generation
	check("block reused")
	runPooled(t, l, h2)
	h2.Release()
	check("block released again")
	var zero Pooled[sleepyFrame, *sleepyFrame]
	mustPanic(t, "stackless: use of a zero Pooled handle", func() { zero.Done() })
}

// TestPoolAwaitedNotReused: a task that another one awaited is not reused,
// so the awaiter, which reads its Done when it next runs, never sees the
// block's next task.
func TestPoolAwaitedNotReused(t *testing.T) {
	l := newLoop(t)
	p := NewPool[sleepyFrame](l)
	h := p.Spawn(sleepyFrame{id: 1, d: time.Millisecond})
	var awaitErr error
	w := Spawn(l, newAwaiter(h.Task(), &awaitErr))
	runPooled(t, l, h)
	h.Release() // whether or not the awaiter has run since h finished
	if p.Free() != 0 {
		t.Fatalf("Free = %d after releasing an awaited task, want 0", p.Free())
	}
	h2 := p.Spawn(sleepyFrame{id: 2, d: time.Hour})
	if err := Run(l, w); err != nil || awaitErr != nil {
		t.Fatalf("awaiter: Run %v, Await %v", err, awaitErr)
	}
	h2.Task().Cancel()
	runPooled(t, l, h2)
}

// awaiterFrame is the stackless form of func(t *Task) error { return t.Await(o) }.
type awaiterFrame struct {
	Base
	o   *Task
	err *error
}

func newAwaiter(o *Task, err *error) *awaiterFrame {
	return &awaiterFrame{o: o, err: err}
}

func (f *awaiterFrame) Step(t *Task) Status {
	if *f.err = t.Await(f.o); t.Blocked() {
		return Suspend
	}
	return Done
}

// TestPoolAllocs: once warm, spawn + run (a sleep on the wheel and a
// Gosched through the ready queue) + release allocates nothing.
func TestPoolAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	l := newLoop(t)
	p := NewPool[sleepyFrame](l)
	const batch = 64
	hs := make([]Pooled[sleepyFrame, *sleepyFrame], batch)
	ts := make([]*Task, batch)
	round := func() {
		for i := range hs {
			hs[i] = p.Spawn(sleepyFrame{id: i, d: time.Microsecond})
			ts[i] = hs[i].Task()
		}
		if err := Run(l, ts...); err != nil {
			t.Fatal(err)
		}
		for i, h := range hs {
			if h.Frame().r != 3*i {
				t.Fatalf("task %d: result %d", i, h.Frame().r)
			}
			h.Release()
		}
	}
	round() // warm: the blocks, their timer entries, the loop's queues
	if a := testing.AllocsPerRun(20, round); a != 0 {
		t.Errorf("%v allocations per round of %d pooled tasks, want 0", a, batch)
	}
}

// TestPoolChurn: tasks spawned, canceled at random points and released in
// random order, with their blocks reused all along, each finish with their
// own result or ErrCanceled and never another task's. Run under -race by
// CI.
func TestPoolChurn(t *testing.T) {
	l := newLoop(t)
	p := NewPool[sleepyFrame](l)
	rng := rand.New(rand.NewPCG(1, 2))
	live := map[int]Pooled[sleepyFrame, *sleepyFrame]{}
	id := 0
	for round := 0; round < 200; round++ {
		for range rng.IntN(20) {
			id++
			live[id] = p.Spawn(sleepyFrame{id: id, d: time.Duration(rng.IntN(3)) * time.Millisecond})
		}
		for _, h := range live {
			if rng.IntN(8) == 0 {
				h.Task().Cancel()
			}
		}
		if err := l.RunOnce(); err != nil {
			t.Fatal(err)
		}
		for k, h := range live {
			if !h.Done() || rng.IntN(3) == 0 {
				continue
			}
			f := h.Frame()
			if f.r != 3*k || f.id != k {
				t.Fatalf("task %d: frame %+v", k, *f)
			}
			h.Release()
			delete(live, k)
		}
	}
	for _, h := range live {
		h.Task().Cancel()
	}
	for _, h := range live {
		runPooled(t, l, h)
		h.Release()
	}
	if p.Free() == 0 || p.Free() > id {
		t.Fatalf("Free = %d after %d tasks", p.Free(), id)
	}
}
