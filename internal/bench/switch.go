//go:build unix

package bench

import (
	"iter"
	"testing"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// newEnv returns a stackful env closed when b ends.
func newEnv(b *testing.B) *stackful.Env {
	e, err := stackful.NewEnv()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

// newLoop returns a loop closed when b ends.
func newLoop(b *testing.B) *loop.Loop {
	l, err := loop.New()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return l
}

// StackfulSwitch is one Resume plus one Yield of a stackful coroutine.
func StackfulSwitch(b *testing.B) {
	e := newEnv(b)
	co := e.Create(func(co *stackful.Co) {
		for {
			co.Yield()
		}
	}, nil)
	co.Resume()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		co.Resume()
	}
}

// IterPullSwitch is the same round trip on bare iter.Pull: one next plus
// one yield.
func IterPullSwitch(b *testing.B) {
	next, stop := iter.Pull(func(yield func(struct{}) bool) {
		for yield(struct{}{}) {
		}
	})
	defer stop()
	next()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		next()
	}
}

// ChanPingPong is one round trip between two goroutines over two
// unbuffered channels: the goroutine baseline of a switch.
func ChanPingPong(b *testing.B) {
	ping, pong := make(chan struct{}), make(chan struct{})
	go func() {
		for range ping {
			pong <- struct{}{}
		}
	}()
	defer close(ping)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		ping <- struct{}{}
		<-pong
	}
}

//go:noinline
func plainCall(x int) int { return x + 1 }

// FuncCall is a plain, not inlined function call: the floor under every
// switch.
func FuncCall(b *testing.B) {
	x := 0
	for range b.N {
		x = plainCall(x)
	}
	if x != b.N {
		b.Fatal("lost calls")
	}
}

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
	stackless.Base
	n, rounds int
	child     *chainFrame
}

func (f *chainFrame) Step(t *stackless.Task) stackless.Status {
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
				return stackless.Done
			}
			f.PC = 2
			fallthrough
		case 2:
			t.Gosched()
			if t.Blocked() {
				return stackless.Suspend
			}
			f.rounds--
			f.PC = 1
		case 3:
			return stackless.Done
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

// switchTasks is the number of tasks that take turns in the stackless
// switch benchmarks. The loop polls (one epoll_wait, about 0.3 µs) once per
// round of its ready queue; with this many tasks that costs under 0.5 ns
// per switch, as in a loaded server, instead of dominating it.
const switchTasks = 1000

// StacklessGosched spreads b.N Gosched rounds over 1,000 tasks whose
// waiting frame sits at the bottom of a chain of depth nested calls, and
// runs them: one op is one suspend and resume through the ready queue.
func StacklessGosched(b *testing.B, depth int) {
	l := newLoop(b)
	k := min(switchTasks, b.N)
	tasks := make([]*stackless.Task, k)
	for i := range tasks {
		rounds := b.N / k
		if i < b.N%k {
			rounds++
		}
		tasks[i] = stackless.Spawn(l, newChain(depth, rounds))
	}
	// The first step of every task (the calls down the chain) runs before
	// the timer starts.
	l.RunOnce()
	b.ReportAllocs()
	b.ResetTimer()
	if err := stackless.Run(l, tasks...); err != nil {
		b.Fatal(err)
	}
}

// StacklessSwitch is one suspend and resume through the ready queue: a task
// calls Gosched, its waiter joins the back of the queue, and the loop steps
// it again once the tasks ahead of it have run.
func StacklessSwitch(b *testing.B) { StacklessGosched(b, 1) }
