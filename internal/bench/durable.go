//go:build unix

package bench

import (
	"testing"

	"github.com/cogen-go/cogen/internal/durabletest"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// A DurableShape is a durable task of one frame shape, from
// internal/durabletest, that the durable benchmarks snapshot and restore.
type DurableShape struct {
	Name string // the sub-benchmark's name: BenchmarkDurableSnapshot/<Name>
	Desc string // what its frames hold
	// suspend spawns the task on l and runs it to its suspension.
	suspend func(tb testing.TB, l *loop.Loop) *stackless.Task
}

// DurableShapes are the measured shapes, smallest first.
var DurableShapes = []DurableShape{
	{"pair", "1 frame, two ints", yielding(func() stackless.Frame { return durabletest.NewPairFrame(1, 2) })},
	{"blob", "1 frame, a 1 KiB []byte", yielding(func() stackless.Frame { return durabletest.NewBlobFrame(1) })},
	{"map", "1 frame, a 100-entry map[string]int", yielding(func() stackless.Frame { return durabletest.NewIndexFrame(1) })},
	{"ledger", "3 frames: maps, slices, shared and cyclic pointers, a time.Time", durableLedger},
}

// yielding suspends a shape that waits in Yield on its first step.
func yielding(frame func() stackless.Frame) func(testing.TB, *loop.Loop) *stackless.Task {
	return func(tb testing.TB, l *loop.Loop) *stackless.Task {
		task := stackless.Spawn(l, frame())
		if err := l.RunOnce(); err != nil {
			tb.Fatal(err)
		}
		if !task.Blocked() {
			tb.Fatal("bench: the task is not suspended")
		}
		return task
	}
}

// durableLedger returns a task of internal/durabletest's Ledger suspended
// after its third trace line: three frames deep (Ledger, transfer, audit),
// holding maps, slices, shared and cyclic pointers and a time.Time. A loop
// iteration may step the ledger more than once, so the point is taken as
// the differential tests take it: a stopper task, resumed by the third
// line, is queued ahead of the ledger's wake-up and snapshots it there;
// the task returned is restored from those bytes onto l, not yet run.
func durableLedger(tb testing.TB, l *loop.Loop) *stackless.Task {
	src, err := loop.New()
	if err != nil {
		tb.Fatal(err)
	}
	defer src.Close()
	ledger := stackless.Spawn(src, durabletest.NewLedgerFrame(4))
	stop := &snapshotter{target: ledger}
	stopper := stackless.Spawn(src, stop)
	lines := 0
	durabletest.Log = func(string) {
		if lines++; lines == 3 {
			stopper.Resume()
		}
	}
	defer func() { durabletest.Log = func(string) {} }()
	if err := stackless.Run(src, stopper); err != nil {
		tb.Fatal(err)
	}
	if stop.err != nil {
		tb.Fatal(stop.err)
	}
	task, err := stackless.Restore(l, stop.data)
	if err != nil {
		tb.Fatal(err)
	}
	return task
}

// snapshotter is a frame that waits in Yield, then snapshots its target
// and cancels it.
type snapshotter struct {
	stackless.Base
	target *stackless.Task
	data   []byte
	err    error
}

func (f *snapshotter) Step(t *stackless.Task) stackless.Status {
	if t.Yield(); t.Blocked() {
		return stackless.Suspend
	}
	f.data, f.err = stackless.Snapshot(f.target)
	f.target.Cancel()
	return stackless.Done
}

// DurableSnapshot is stackless.Snapshot of a suspended task of the shape;
// it reports the snapshot's size as bytes/task.
func DurableSnapshot(b *testing.B, s DurableShape) {
	task := s.suspend(b, newLoop(b))
	var data []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if data, err = stackless.Snapshot(task); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data)), "bytes/task")
}

// DurableRestore is stackless.Restore of that snapshot into a task
// scheduled on a loop; the loop is replaced every 1,000 tasks, untimed.
func DurableRestore(b *testing.B, s DurableShape) {
	data, err := stackless.Snapshot(s.suspend(b, newLoop(b)))
	if err != nil {
		b.Fatal(err)
	}
	l, err := loop.New()
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		if _, err := stackless.Restore(l, data); err != nil {
			b.Fatal(err)
		}
		if n++; n == 1000 {
			b.StopTimer()
			l.Close()
			if l, err = loop.New(); err != nil {
				b.Fatal(err)
			}
			n = 0
			b.StartTimer()
		}
	}
	l.Close()
	b.ReportMetric(float64(len(data)), "bytes/task")
}
