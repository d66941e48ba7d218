package durabletest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/cotest"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// stepFunc is a frame whose Step is a closure (the test's stopper).
type stepFunc struct {
	stackless.Base
	step func(t *stackless.Task) stackless.Status
}

func (f *stepFunc) Step(t *stackless.Task) stackless.Status { return f.step(t) }

func newLoop(t *testing.T) *loop.Loop {
	t.Helper()
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func run(t *testing.T, l *loop.Loop, tasks ...*stackless.Task) {
	t.Helper()
	var guard loop.Timer
	l.Reset(&guard, 20*time.Second, func() { l.Close() })
	if err := stackless.Run(l, tasks...); err != nil {
		t.Fatal(err)
	}
	l.Stop(&guard)
}

// record makes Log append to a fresh trace and call onLine with the number
// of each line.
func record(t *testing.T, onLine func(n int)) *[]string {
	tr := new([]string)
	Log = func(line string) {
		*tr = append(*tr, line)
		onLine(len(*tr))
	}
	t.Cleanup(func() { Log = func(string) {} })
	return tr
}

// snapshotAt runs frame until the suspension that follows the k-th trace
// line and snapshots it there: a stopper task in Yield, resumed by that
// line, is queued ahead of the task's own wake-up. ok is false if the task
// finished first.
func snapshotAt(t *testing.T, k int, frame stackless.Frame) (data []byte, prefix []string, ok bool) {
	l := newLoop(t)
	var target *stackless.Task
	var snapErr error
	var stopper *stackless.Task
	tr := record(t, func(n int) {
		if n == k {
			stopper.Resume()
		}
	})
	stopper = stackless.Spawn(l, &stepFunc{step: func(tk *stackless.Task) stackless.Status {
		if tk.Yield(); tk.Blocked() {
			return stackless.Suspend
		}
		prefix = slices.Clone(*tr)
		data, snapErr = stackless.Snapshot(target)
		target.Cancel()
		Log = func(string) {} // the canceled task goes on, untraced
		return stackless.Done
	}})
	target = stackless.Spawn(l, frame)
	run(t, l, target)
	if len(*tr) < k {
		return nil, nil, false
	}
	run(t, l, stopper)
	if errors.Is(snapErr, stackless.ErrNotCarriable) && strings.Contains(snapErr.Error(), "finished") {
		return nil, nil, false
	}
	if snapErr != nil {
		t.Fatalf("Snapshot after line %d: %v", k, snapErr)
	}
	return data, prefix, true
}

// TestEverySuspension is the differential test: for every suspension
// point, the trace of a run snapshotted there and restored through bytes
// into a fresh loop equals the trace of an uninterrupted run.
func TestEverySuspension(t *testing.T) {
	const n = 5
	l := newLoop(t)
	want := record(t, func(int) {})
	run(t, l, stackless.Spawn(l, NewLedgerFrame(n)))
	if last := (*want)[len(*want)-1]; !strings.Contains(last, "ring=true same=true") {
		t.Fatalf("uninterrupted run: %s", last)
	}
	sizes := map[int]bool{}
	points := 0
	for k := 1; k <= len(*want); k++ {
		data, prefix, ok := snapshotAt(t, k, NewLedgerFrame(n))
		if !ok {
			continue
		}
		points++
		sizes[len(data)] = true
		l2 := newLoop(t)
		rest := record(t, func(int) {})
		task, err := stackless.Restore(l2, data)
		if err != nil {
			t.Fatalf("Restore after line %d: %v", k, err)
		}
		run(t, l2, task)
		if got := append(prefix, *rest...); !slices.Equal(got, *want) {
			t.Fatalf("snapshot after line %d (%d bytes):\n got %q\nwant %q", k, len(data), got, *want)
		}
	}
	// The lines after the last suspension (ledger i=4, its nap of 0, which
	// does not suspend, and done) have none left to snapshot at.
	if points != len(*want)-3 {
		t.Fatalf("%d snapshots for %d lines", points, len(*want))
	}
	t.Logf("%d suspension points, snapshot sizes %v", points, slices.Sorted(func(yield func(int) bool) {
		for s := range sizes {
			if !yield(s) {
				return
			}
		}
	}))
}

// TestTallyEverySuspension: the same differential test on a frame whose
// types are named like the generated encoding's locals.
func TestTallyEverySuspension(t *testing.T) {
	words := []string{"a", "b", "a", "c", "b", "a"}
	l := newLoop(t)
	want := record(t, func(int) {})
	run(t, l, stackless.Spawn(l, NewTallyFrame(words)))
	if last := (*want)[len(*want)-1]; last != "tally done a:3 b:2 c:1 " {
		t.Fatalf("uninterrupted run: %q", last)
	}
	points := 0
	for k := 1; k <= len(*want); k++ {
		data, prefix, ok := snapshotAt(t, k, NewTallyFrame(words))
		if !ok {
			continue
		}
		points++
		l2 := newLoop(t)
		rest := record(t, func(int) {})
		task, err := stackless.Restore(l2, data)
		if err != nil {
			t.Fatalf("Restore after line %d: %v", k, err)
		}
		run(t, l2, task)
		if got := append(prefix, *rest...); !slices.Equal(got, *want) {
			t.Fatalf("snapshot after line %d:\n got %q\nwant %q", k, got, *want)
		}
	}
	if points != len(words) {
		t.Fatalf("%d snapshots, want one per word (%d)", points, len(words))
	}
}

// TestBothModels: the source of the durable functions, run as stackful
// coroutines, gives the trace the generated frames give.
func TestBothModels(t *testing.T) {
	l := newLoop(t)
	want := record(t, func(int) {})
	run(t, l, stackless.Spawn(l, NewLedgerFrame(5)), stackless.Spawn(l, NewTallyFrame([]string{"a", "b", "a"})))
	e := cotest.NewEnv(t)
	got := record(t, func(int) {})
	finished := 0
	cotest.Spawn(e, func(co *stackful.Co) { Ledger(co, 5); finished++ })
	cotest.Spawn(e, func(co *stackful.Co) { Tally(co, []string{"a", "b", "a"}); finished++ })
	cotest.RunUntil(t, e, 20*time.Second, func() bool { return finished == 2 })
	if len(*want) < 30 || !slices.Equal(*got, *want) {
		t.Fatalf("stackful trace:\n%q\nstackless trace:\n%q", *got, *want)
	}
}

// TestChangedCode: bytes whose fingerprint is not the program's are
// refused with an error naming the function.
func TestChangedCode(t *testing.T) {
	data, _, ok := snapshotAt(t, 3, NewLedgerFrame(2))
	if !ok {
		t.Fatal("no snapshot")
	}
	_, fp := NewLedgerFrame(0).Durable()
	i := strings.Index(string(data), ".Ledger")
	if i < 0 {
		t.Fatal("no frame name in the snapshot")
	}
	// The fingerprint follows the name; flip one of its bits and fix the
	// checksum, as a program whose Ledger changed would have written it.
	bad := slices.Clone(data[:len(data)-4])
	bad[i+len(".Ledger")] ^= 1
	bad = appendCRC(bad)
	_, err := stackless.Restore(newLoop(t), bad)
	if !errors.Is(err, stackless.ErrChangedCode) || !strings.Contains(err.Error(), "durabletest.Ledger") {
		t.Fatalf("Restore of a changed function: %v (fingerprint %x)", err, fp)
	}
}
