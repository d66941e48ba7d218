//go:build unix

package bench

import (
	"testing"

	"github.com/cogen-go/cogen/internal/durabletest"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// durableLedger returns a task of internal/durabletest's Ledger suspended
// after its third trace line: three frames deep (Ledger, transfer, audit),
// holding maps, slices, shared and cyclic pointers and a time.Time.
func durableLedger(b *testing.B) *stackless.Task {
	l := newLoop(b)
	task := stackless.Spawn(l, durabletest.NewLedgerFrame(4))
	lines := 0
	durabletest.Log = func(string) { lines++ }
	b.Cleanup(func() { durabletest.Log = func(string) {} })
	for lines < 3 {
		if err := l.RunOnce(); err != nil {
			b.Fatal(err)
		}
	}
	if !task.Blocked() {
		b.Fatal("bench: the ledger is not suspended")
	}
	return task
}

// DurableSnapshot is stackless.Snapshot of a suspended 3-frame task; it
// reports the snapshot's size as bytes/task.
func DurableSnapshot(b *testing.B) {
	task := durableLedger(b)
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
func DurableRestore(b *testing.B) {
	data, err := stackless.Snapshot(durableLedger(b))
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
