//go:build linux

package stackless

import (
	"fmt"
	"testing"
)

// chainFrame is the frame at depth n of
//
//	func chain(t *Task, n, rounds int) {
//		if n > 1 {
//			chain(t, n-1, rounds)
//			return
//		}
//		for range rounds {
//			t.Gosched()
//		}
//	}
//
// The frames of a chain are built up front so that the benchmarks time the
// switches only.
type chainFrame struct {
	Base
	n, rounds int
	child     *chainFrame
}

func (f *chainFrame) Step(t *Task) Status {
	for {
		switch f.PC {
		case 0:
			if f.n > 1 {
				f.PC = 3
				return t.Call(f.child)
			}
			f.PC = 1
		case 1:
			if f.rounds == 0 {
				return Done
			}
			f.PC = 2
			fallthrough
		case 2:
			t.Gosched()
			if t.Blocked() {
				return Suspend
			}
			f.rounds--
			f.PC = 1
		case 3:
			return Done
		}
	}
}

// newChain builds the frames of a depth-n chain whose innermost frame
// Goscheds rounds times.
func newChain(n, rounds int) *chainFrame {
	top := &chainFrame{n: n}
	f := top
	for f.n > 1 {
		f.child = &chainFrame{n: f.n - 1}
		f = f.child
	}
	f.rounds = rounds
	return top
}

// benchTasks is the number of tasks that take turns in the switch
// benchmarks. The loop polls (one epoll_wait, about 0.3 µs) once per round
// of its ready queue; with this many tasks that costs under 0.5 ns per
// switch, as in a loaded server, instead of dominating it.
const benchTasks = 1000

// benchGosched spreads b.N Gosched rounds over benchTasks chains of depth
// and runs them.
func benchGosched(b *testing.B, depth int) {
	l := newLoop(b)
	k := min(benchTasks, b.N)
	tasks := make([]*Task, k)
	for i := range tasks {
		rounds := b.N / k
		if i < b.N%k {
			rounds++
		}
		tasks[i] = Spawn(l, newChain(depth, rounds))
	}
	// The first step of every task (the calls down the chain) runs before
	// the timer starts.
	l.RunOnce()
	b.ReportAllocs()
	b.ResetTimer()
	if err := Run(l, tasks...); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStacklessSwitch is one suspend and resume through the ready
// queue: a task calls Gosched, its waiter joins the back of the queue, and
// the loop steps it again once the tasks ahead of it have run.
func BenchmarkStacklessSwitch(b *testing.B) { benchGosched(b, 1) }

// BenchmarkStacklessAwaitDepth is the same round with the waiting frame at
// the bottom of a chain of nested calls: a wake-up steps the innermost frame
// directly, so the cost per wake does not grow with the depth.
func BenchmarkStacklessAwaitDepth(b *testing.B) {
	for _, depth := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) { benchGosched(b, depth) })
	}
}
