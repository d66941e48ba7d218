package cosync_test

import (
	"runtime"
	"testing"

	"github.com/cogen-go/cogen/runtime/cosync"
	. "github.com/cogen-go/cogen/runtime/cosync/internal/costest"
	"github.com/cogen-go/cogen/runtime/stackless"
)

func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestMemoryBlockedOnChan reports what a stackless task blocked in a
// channel receive holds beyond one blocked on a Cond (the task and its
// frame are the same): its pooled record and the task's rarely used state,
// allocated for its operation slot. It bounds the sum, so a change that
// makes waiting on a channel heavier shows.
func TestMemoryBlockedOnChan(t *testing.T) {
	const n = 20_000
	e := NewEnv(t)
	c := cosync.NewChan[int](0)
	log := &Log{}
	tasks := make([]*stackless.Task, n)
	before := heapAlloc()
	for i := range tasks {
		tasks[i] = stackless.Spawn(e.L, NewReceiverFrame(c, 1, "r", log))
	}
	e.Settle()
	spawned := heapAlloc()
	perTask := float64(spawned-before) / n
	for range n {
		if !c.TrySend(1) {
			t.Fatal("a receiver is missing")
		}
	}
	e.RunUntilDone(10e9)
	runtime.KeepAlive(tasks)
	t.Logf("a stackless task blocked in Chan.Recv holds %.0f bytes (task 128, frame, record, task ext)", perTask)
	if perTask > 600 {
		t.Fatalf("%.0f bytes per blocked receiver", perTask)
	}
}
