//go:build linux

package stackless

import (
	"runtime"
	"testing"
	"time"
	"unsafe"
)

// parkedFrame is
//
//	func parked(t *Task, c *Cond, woken *int) { t.Wait(c, -1); *woken++ }
type parkedFrame struct {
	Base
	c     *Cond
	woken *int
}

func (f *parkedFrame) Step(t *Task) Status {
	switch f.PC {
	case 0:
		f.PC = 1
		fallthrough
	case 1:
		t.Wait(f.c, -1)
		if t.Blocked() {
			return Suspend
		}
		*f.woken++
		return Done
	}
	panic("bad pc")
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestMillionSuspendedTasks: 1,000,000 tasks suspended on one Cond fit in
// memory (100,000 under -short or -race); the heap they hold is reported per
// task and must stay within the 256-byte budget. A Broadcast then wakes every
// one of them and each finishes.
func TestMillionSuspendedTasks(t *testing.T) {
	n := 1_000_000
	if testing.Short() || raceEnabled {
		n = 100_000
	}
	l := newLoop(t)
	var c Cond
	woken := 0
	tasks := make([]*Task, n) // kept: the tasks are what is measured
	start := time.Now()
	before := heapInUse()
	for i := range tasks {
		tasks[i] = Spawn(l, &parkedFrame{c: &c, woken: &woken})
	}
	l.RunOnce()
	after := heapInUse()
	if c.Len() != n {
		t.Fatalf("%d tasks suspended, want %d", c.Len(), n)
	}
	perTask := float64(after-before) / float64(n)
	t.Logf("%d suspended tasks: %.0f bytes per task (task %d B + frame %d B + ready-ring slot), %.2fs to spawn and suspend",
		n, perTask, unsafe.Sizeof(Task{}), unsafe.Sizeof(parkedFrame{}), time.Since(start).Seconds())
	if perTask > 256 {
		t.Errorf("%.0f bytes per suspended task, budget 256", perTask)
	}

	if got := c.Broadcast(); got != n {
		t.Fatalf("Broadcast woke %d", got)
	}
	run(t, l, 20*time.Second, tasks...)
	if woken != n {
		t.Fatalf("%d tasks finished after the broadcast, want %d", woken, n)
	}
	runtime.KeepAlive(tasks)
}

// TestTaskSizes: a task fits the 128-byte size class, and the out-of-line
// state a task blocked on a cosync primitive needs for its operation slot
// (with a nested call's callers) the 48-byte one; the rest waits behind it.
func TestTaskSizes(t *testing.T) {
	if n := unsafe.Sizeof(Task{}); n > 128 {
		t.Errorf("Task is %d bytes, want <= 128", n)
	}
	if n := unsafe.Sizeof(taskExt{}); n > 48 {
		t.Errorf("taskExt is %d bytes, want <= 48", n)
	}
}
