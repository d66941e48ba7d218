//go:build linux

package stackless_test

import (
	"fmt"
	"testing"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// tallyFrame is the stackless form of
//
//	func tally(t *stackless.Task, n int) int { for i := range n { t.Gosched() }; return n }
type tallyFrame struct {
	stackless.Base
	n, i, r int
}

func (f *tallyFrame) Step(t *stackless.Task) stackless.Status {
	for f.i < f.n {
		t.Gosched()
		if t.Blocked() {
			return stackless.Suspend
		}
		f.i++
	}
	f.r = f.n
	return stackless.Done
}

// TestSpawnFrame: SpawnFrame runs a copy of the frame to its end, the
// returned frame holds its result, and task and frame are one allocation.
func TestSpawnFrame(t *testing.T) {
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	init := tallyFrame{n: 3}
	task, f := stackless.SpawnFrame(l, init)
	if err := stackless.Run(l, task); err != nil {
		t.Fatal(err)
	}
	if !task.Done() || f.r != 3 || f.i != 3 || init.i != 0 {
		t.Fatalf("done %v, frame %+v, the caller's copy %+v", task.Done(), *f, init)
	}
	var tasks [1]*stackless.Task
	allocs := testing.AllocsPerRun(100, func() {
		tasks[0], _ = stackless.SpawnFrame(l, tallyFrame{n: 1})
		stackless.Run(l, tasks[0])
	})
	if allocs != 1 {
		t.Fatalf("%v allocations per SpawnFrame and run, want 1", allocs)
	}
}

// A frame spawned with SpawnFrame lives in its task's allocation; the
// returned pointer reads its results.
func ExampleSpawnFrame() {
	l, err := loop.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	t, f := stackless.SpawnFrame(l, tallyFrame{n: 2})
	if err := stackless.Run(l, t); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.r)
	// Output: 2
}
