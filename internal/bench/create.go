//go:build unix

package bench

import (
	"iter"
	"testing"

	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// StackfulModes are the stack modes of the stackful benchmarks, by name:
// default (a goroutine stack from 2 KiB, grown on demand), private128K (a
// 128 KiB private stack reserved at start) and shared (carriers of a group
// of 16 reused from one coroutine to the next).
var StackfulModes = []string{"default", "private128K", "shared"}

// StackfulAttr returns the attributes of a stack mode of StackfulModes; each
// call of "shared" allocates a fresh group.
func StackfulAttr(mode string) *stackful.Attr {
	switch mode {
	case "default":
		return nil
	case "private128K":
		return &stackful.Attr{StackSize: 128 << 10}
	case "shared":
		return &stackful.Attr{ShareStack: stackful.AllocShareStack(16, 128<<10)}
	}
	panic("bench: unknown stack mode " + mode)
}

// StackfulCreateRelease creates a coroutine with the stack mode, runs it to
// its end (one Yield on the way) and releases it.
func StackfulCreateRelease(b *testing.B, mode string) {
	e := newEnv(b)
	attr := StackfulAttr(mode)
	fn := func(co *stackful.Co) { co.Yield() }
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		co := e.Create(fn, attr)
		co.Resume()
		co.Resume()
		co.Release()
	}
}

// IterPullCreate is StackfulCreateRelease on bare iter.Pull: create,
// next (the sequence runs to its one yield), next (to its end), stop. It is
// the floor under a stackful create: the goroutine and the coroutine switch
// every stackful coroutine is built on.
func IterPullCreate(b *testing.B) {
	seq := func(yield func(struct{}) bool) { yield(struct{}{}) }
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		next, stop := iter.Pull(seq)
		next()
		next()
		stop()
	}
}

// onceFrame is the frame of
//
//	func once(t *Task) { t.Gosched() }
type onceFrame struct {
	stackless.Base
}

func (f *onceFrame) Step(t *stackless.Task) stackless.Status {
	t.Gosched() // on the wake-up, the retried call consumes it
	if t.Blocked() {
		return stackless.Suspend
	}
	return stackless.Done
}

// createBatch is how many tasks StacklessCreateRelease spawns before it
// runs the loop: the loop polls once per batch, not once per task.
const createBatch = 1000

// StacklessCreateRelease spawns a task with its frame in one allocation
// (SpawnFrame), runs it to its end (one Gosched through the ready queue on
// the way) and drops it, in batches of 1,000 per run of the loop. The
// garbage collector releases the task and its frame: that cost is
// included, spread over the run.
func StacklessCreateRelease(b *testing.B) {
	l := newLoop(b)
	tasks := make([]*stackless.Task, 0, createBatch)
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; {
		k := min(createBatch, b.N-done)
		tasks = tasks[:0]
		for range k {
			t, _ := stackless.SpawnFrame(l, onceFrame{})
			tasks = append(tasks, t)
		}
		if err := stackless.Run(l, tasks...); err != nil {
			b.Fatal(err)
		}
		done += k
	}
	clear(tasks[:cap(tasks)])
}

// StacklessPoolCreateRelease is StacklessCreateRelease on a stackless.Pool:
// the task+frame block of a released task is the next one spawned, so once
// warm nothing is allocated and the garbage collector has nothing to free.
func StacklessPoolCreateRelease(b *testing.B) {
	l := newLoop(b)
	p := stackless.NewPool[onceFrame](l)
	hs := make([]stackless.Pooled[onceFrame, *onceFrame], 0, createBatch)
	tasks := make([]*stackless.Task, 0, createBatch)
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; {
		k := min(createBatch, b.N-done)
		hs, tasks = hs[:0], tasks[:0]
		for range k {
			h := p.Spawn(onceFrame{})
			hs = append(hs, h)
			tasks = append(tasks, h.Task())
		}
		if err := stackless.Run(l, tasks...); err != nil {
			b.Fatal(err)
		}
		for _, h := range hs {
			h.Release()
		}
		done += k
	}
}

// StacklessCreateReleaseSpawn is StacklessCreateRelease with the task and
// the frame allocated apart (Spawn of a frame allocated by the caller).
func StacklessCreateReleaseSpawn(b *testing.B) {
	l := newLoop(b)
	tasks := make([]*stackless.Task, 0, createBatch)
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; {
		k := min(createBatch, b.N-done)
		tasks = tasks[:0]
		for range k {
			tasks = append(tasks, stackless.Spawn(l, &onceFrame{}))
		}
		if err := stackless.Run(l, tasks...); err != nil {
			b.Fatal(err)
		}
		done += k
	}
	clear(tasks[:cap(tasks)])
}

// GoroutineCreate starts a goroutine, hands control back and forth once
// over an unbuffered channel (the goroutine's Yield) and waits for it to
// end.
func GoroutineCreate(b *testing.B) {
	handoff, done := make(chan struct{}), make(chan struct{})
	fn := func() {
		handoff <- struct{}{}
		done <- struct{}{}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		go fn()
		<-handoff
		<-done
	}
}
