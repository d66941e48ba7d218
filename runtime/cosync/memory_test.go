package cosync_test

import (
	"runtime"
	"testing"

	"github.com/cogen-go/cogen/runtime/cosync"
	. "github.com/cogen-go/cogen/runtime/cosync/internal/costest"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// blockFrame blocks once, in a receive on c or (c nil) in Yield, and then
// returns: the same frame type for both, so that the two differ only in
// what blocking costs.
type blockFrame struct {
	stackless.Base
	c *cosync.Chan[int]
}

func (f *blockFrame) Step(t *stackless.Task) stackless.Status {
	if f.c == nil {
		if f.PC == 0 {
			f.PC = 1
			if t.Yield(); t.Blocked() {
				return stackless.Suspend
			}
		}
		return stackless.Done
	}
	f.c.Recv(t)
	if t.Blocked() {
		return stackless.Suspend
	}
	return stackless.Done
}

// blockedBytes spawns n tasks of blockFrame on c, lets them block and
// returns the heap they hold per task, then ends them.
func blockedBytes(t *testing.T, n int, c *cosync.Chan[int]) float64 {
	e := NewEnv(t)
	tasks := make([]*stackless.Task, n)
	before := heapAlloc()
	for i := range tasks {
		tasks[i] = stackless.Spawn(e.L, &blockFrame{c: c})
	}
	e.Settle()
	per := float64(heapAlloc()-before) / float64(n)
	for _, task := range tasks {
		if c != nil {
			if !c.TrySend(1) {
				t.Fatal("a receiver is missing")
			}
		} else {
			task.Resume()
		}
	}
	if err := stackless.Run(e.L, tasks...); err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(tasks)
	return per
}

// TestMemoryBlockedOnChan measures what a stackless task blocked in a
// channel receive holds beyond the same task blocked in Yield (the task and
// its frame are the same): its pooled record (80 bytes for an int channel)
// and the task's out-of-line state that holds its operation slot (48
// bytes). It bounds the difference, so a change that makes waiting on a
// channel heavier shows; before the slot had a home of its own it was 256.
func TestMemoryBlockedOnChan(t *testing.T) {
	const n = 20_000
	yield := blockedBytes(t, n, nil)
	recv := blockedBytes(t, n, cosync.NewChan[int](0))
	extra := recv - yield
	t.Logf("a stackless task blocked in Chan.Recv holds %.0f bytes, %.0f more than one blocked in Yield (record, task's slot state)", recv, extra)
	if extra > 80+48+16 {
		t.Fatalf("%.0f bytes per blocked receiver beyond a yielded task, want <= 144", extra)
	}
}

// TestMemoryBlockedOnChanStackful is the same for stackful coroutines: a
// coroutine blocked in a receive holds, beyond one suspended in Yield (the
// goroutine stack, which the heap figures leave out, and the Co are the
// same), its record and the 24-byte home of its operation slot; before the
// slot had a home of its own it was 240 (the coroutine's 160-byte rarely
// used state).
//
// The same coroutines are measured in both waits: each yields, the heap is
// measured, then each is resumed into the receive and the heap measured
// again. Two populations of coroutines, one per wait, would differ by the
// runtime's goroutine records too (about 450 bytes each), which a new
// goroutine takes from the runtime's free list when an earlier one has
// exited and allocates otherwise: with 1,000 goroutines exited before the
// test, the second population found fewer free records than the first and
// the difference was 204 bytes, 399 with 3,000 (what earlier tests, more
// of them under -count and under load, leave on that list).
func TestMemoryBlockedOnChanStackful(t *testing.T) {
	const n = 5_000
	e := NewEnv(t) // its Close unwinds the coroutines
	c := cosync.NewChan[int](0)
	cos := make([]*stackful.Co, n)
	before := heapAlloc()
	for i := range cos {
		cos[i] = e.E.Create(func(co *stackful.Co) {
			co.Yield()
			c.Recv(co)
		}, nil)
		cos[i].Resume()
	}
	yielded := heapAlloc()
	for _, co := range cos {
		if co.Status() != stackful.Suspended {
			t.Fatalf("coroutine %v, want suspended in Yield", co.Status())
		}
		co.Resume()
	}
	recv := heapAlloc()
	for _, co := range cos {
		if co.Status() != stackful.Suspended {
			t.Fatalf("coroutine %v, want suspended in Recv", co.Status())
		}
	}
	runtime.KeepAlive(cos)
	extra := float64(int64(recv)-int64(yielded)) / n
	t.Logf("a stackful coroutine blocked in Chan.Recv holds %.0f heap bytes, %.0f more than in Yield (record, slot home)", float64(int64(recv)-int64(before))/n, extra)
	if extra > 80+24+32 {
		t.Fatalf("%.0f bytes per blocked receiver beyond a yielded coroutine, want <= 136", extra)
	}
	for range n {
		if !c.TrySend(1) {
			t.Fatal("a receiver is missing")
		}
	}
}
