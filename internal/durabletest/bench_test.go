package durabletest

import (
	"testing"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// suspendedLedger returns a Ledger task suspended three frames deep (in
// audit, called by transfer, called by Ledger), and its loop.
func suspendedLedger(b *testing.B) (*loop.Loop, *stackless.Task) {
	l, err := loop.New()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	task := stackless.Spawn(l, NewLedgerFrame(4))
	lines := 0
	Log = func(string) { lines++ }
	b.Cleanup(func() { Log = func(string) {} })
	for lines < 3 {
		if err := l.RunOnce(); err != nil {
			b.Fatal(err)
		}
	}
	if !task.Blocked() {
		b.Fatal("the ledger is not suspended")
	}
	return l, task
}

// BenchmarkSnapshot: the cost of encoding a 3-frame task (maps, slices,
// shared and cyclic pointers, a time.Time), and its size.
func BenchmarkSnapshot(b *testing.B) {
	_, task := suspendedLedger(b)
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

// BenchmarkRestore: the cost of decoding that snapshot into a task
// scheduled on a loop (loops are replaced every 1,000 tasks, untimed).
func BenchmarkRestore(b *testing.B) {
	_, task := suspendedLedger(b)
	data, err := stackless.Snapshot(task)
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
