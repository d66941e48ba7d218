package durabletest

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/cotest"
	"github.com/cogen-go/cogen/internal/durabletest/enc"
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

func newLoop(t testing.TB) *loop.Loop {
	t.Helper()
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func run(t testing.TB, l *loop.Loop, tasks ...*stackless.Task) {
	t.Helper()
	var guard loop.Timer
	l.Reset(&guard, 20*time.Second, func() { l.Close() })
	if err := stackless.Run(l, tasks...); err != nil {
		t.Fatal(err)
	}
	l.CancelTimer(&guard)
}

// record makes Log append to a fresh trace and call onLine with the number
// of each line.
func record(t testing.TB, onLine func(n int)) *[]string {
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
func snapshotAt(t testing.TB, k int, frame stackless.Frame) (data []byte, prefix []string, ok bool) {
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

// everySuspension is the differential test: for every suspension point
// of the frames newFrame makes, the trace of a run snapshotted there and
// restored through bytes into a fresh loop equals the trace of an
// uninterrupted run, which it returns with the number of points and the
// sizes of their snapshots.
func everySuspension(t *testing.T, newFrame func() stackless.Frame) (want []string, points int, sizes []int) {
	t.Helper()
	l := newLoop(t)
	tr := record(t, func(int) {})
	run(t, l, stackless.Spawn(l, newFrame()))
	want = *tr
	for k := 1; k <= len(want); k++ {
		data, prefix, ok := snapshotAt(t, k, newFrame())
		if !ok {
			continue
		}
		points++
		if !slices.Contains(sizes, len(data)) {
			sizes = append(sizes, len(data))
		}
		l2 := newLoop(t)
		rest := record(t, func(int) {})
		task, err := stackless.Restore(l2, data)
		if err != nil {
			t.Fatalf("Restore after line %d: %v", k, err)
		}
		run(t, l2, task)
		if got := append(prefix, *rest...); !slices.Equal(got, want) {
			t.Fatalf("snapshot after line %d (%d bytes):\n got %q\nwant %q", k, len(data), got, want)
		}
	}
	slices.Sort(sizes)
	return want, points, sizes
}

// TestEverySuspension: the differential test of Ledger (three frames,
// shared and cyclic pointers, maps, a time.Time, sleeps).
func TestEverySuspension(t *testing.T) {
	want, points, sizes := everySuspension(t, func() stackless.Frame { return NewLedgerFrame(5) })
	if last := want[len(want)-1]; !strings.Contains(last, "ring=true same=true") {
		t.Fatalf("uninterrupted run: %s", last)
	}
	// The lines after the last suspension (ledger i=4, its nap of 0, which
	// does not suspend, and done) have none left to snapshot at.
	if points != len(want)-3 {
		t.Fatalf("%d snapshots for %d lines", points, len(want))
	}
	t.Logf("%d suspension points, snapshot sizes %v", points, sizes)
}

// TestTallyEverySuspension: the same differential test on a frame whose
// types are named like the generated encoding's locals, and whose counts a
// codec named like one of them carries.
func TestTallyEverySuspension(t *testing.T) {
	words := []string{"a", "b", "a", "c", "b", "a"}
	want, points, _ := everySuspension(t, func() stackless.Frame { return NewTallyFrame(words) })
	if last := want[len(want)-1]; last != "tally done a:3 b:2 c:1 " {
		t.Fatalf("uninterrupted run: %q", last)
	}
	if points != len(words) {
		t.Fatalf("%d snapshots, want one per word (%d)", points, len(words))
	}
}

var searchWords = []string{"good", "tree", "bead", "sky", "road"}

// TestSearchEverySuspension: the differential test of a frame whose values
// codecs carry: big.Int by value and behind pointers shared in a slice,
// *regexp.Regexp shared by two map entries, and an error through the
// package's own codec, which wins over the imported enc.Error.
func TestSearchEverySuspension(t *testing.T) {
	ErrorCodecUses = 0
	want, points, sizes := everySuspension(t, func() stackless.Frame { return NewSearchFrame(searchWords) })
	last := want[len(want)-1]
	if !strings.Contains(last, "sums=768011712071488218320333604204061,-10,768011712071488218320333604204061 shared=true same=true double:11 again:11 end:9 err=sky: no match for d$") {
		t.Fatalf("uninterrupted run: %q", last)
	}
	if points != len(searchWords) {
		t.Fatalf("%d snapshots, want one per word (%d)", points, len(searchWords))
	}
	if ErrorCodecUses < 2*points {
		t.Fatalf("the package's error codec was called %d times for %d snapshots and restores", ErrorCodecUses, points)
	}
	t.Logf("%d suspension points, snapshot sizes %v", points, sizes)
}

// TestCodecRestoreErrors: a codec whose Unmarshal fails or panics makes
// Restore fail with an error naming the frame and the type, not panic.
func TestCodecRestoreErrors(t *testing.T) {
	data, _, ok := snapshotAt(t, 2, NewSearchFrame(searchWords))
	if !ok {
		t.Fatal("no snapshot")
	}
	good := enc.Regexp.Unmarshal
	t.Cleanup(func() { enc.Regexp.Unmarshal = good })
	const frame = "stackless: Restore: frame of github.com/cogen-go/cogen/internal/durabletest.Search: "
	for _, tc := range []struct {
		unmarshal func([]byte, *regexp.Regexp) error
		want      string
	}{
		{func([]byte, *regexp.Regexp) error { return errors.New("no such pattern") }, frame + "Codec[regexp.Regexp].Unmarshal: no such pattern"},
		{func([]byte, *regexp.Regexp) error { panic("corrupt pattern") }, frame + "Codec[regexp.Regexp].Unmarshal: panic: corrupt pattern"},
	} {
		enc.Regexp.Unmarshal = tc.unmarshal
		if _, err := stackless.Restore(newLoop(t), data); err == nil || err.Error() != tc.want {
			t.Errorf("Restore: %v\nwant %s", err, tc.want)
		}
	}
}

// TestBothModels: the source of the durable functions, run as stackful
// coroutines, gives the trace the generated frames give.
func TestBothModels(t *testing.T) {
	l := newLoop(t)
	want := record(t, func(int) {})
	run(t, l, stackless.Spawn(l, NewLedgerFrame(5)), stackless.Spawn(l, NewTallyFrame([]string{"a", "b", "a"})), stackless.Spawn(l, NewSearchFrame(searchWords)))
	e := cotest.NewEnv(t)
	got := record(t, func(int) {})
	finished := 0
	cotest.Spawn(e, func(co *stackful.Co) { Ledger(co, 5); finished++ })
	cotest.Spawn(e, func(co *stackful.Co) { Tally(co, []string{"a", "b", "a"}); finished++ })
	cotest.Spawn(e, func(co *stackful.Co) { Search(co, searchWords); finished++ })
	cotest.RunUntil(t, e, 20*time.Second, func() bool { return finished == 3 })
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
