package durabletest

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackless"
)

// TestPtrLocalEverySuspension: pointers into locals (an int, a struct, a
// field, an array element) restore pointing into the restored frame
// (issue 35: before the object table, x=5 after a restore, 7 without).
func TestPtrLocalEverySuspension(t *testing.T) {
	want, points, _ := everySuspension(t, func() stackless.Frame { return NewPtrLocalFrame() })
	if last := want[len(want)-1]; last != "ptrlocal 8 2 b 40 21 0" {
		t.Fatalf("uninterrupted run: %q", last)
	}
	if points == 0 {
		t.Fatal("no snapshot")
	}
}

// TestOutParamEverySuspension: locals passed by address to a durable
// callee that suspends (an out-parameter) are written through after a
// restore (issue 35: total=1 restored, 6 without).
func TestOutParamEverySuspension(t *testing.T) {
	want, points, _ := everySuspension(t, func() stackless.Frame { return NewOutParamFrame() })
	if last := want[len(want)-1]; last != "outparam 8 5 [0 0 2]" {
		t.Fatalf("uninterrupted run: %q", last)
	}
	if points < 4 {
		t.Fatalf("%d snapshots", points)
	}
}

// TestSharedRefsEverySuspension: one map held in three places, slices over
// one array at different offsets (and an append within its capacity),
// pointers into a slice's elements and a map that contains itself restore
// sharing what they shared (issue 35: two maps; a stack overflow in
// Snapshot for the map holding itself).
func TestSharedRefsEverySuspension(t *testing.T) {
	want, points, _ := everySuspension(t, func() stackless.Frame { return NewSharedRefsFrame() })
	if last := want[len(want)-1]; last != "shared 3 3 50 [10 20 3 30 50] 2 [44]" {
		t.Fatalf("uninterrupted run: %q", last)
	}
	if points != 3 {
		t.Fatalf("%d snapshots", points)
	}
}

// TestDeepEverySuspension: a list of 200,000 nodes and a ring of pointers
// through maps and slices snapshot and restore with the goroutine stacks
// limited to 1 MiB: neither Snapshot nor Restore recurses along pointers
// (issue 35: a 6-million-node list overflowed the stack in Snapshot; with
// the limit, so did this one).
func TestDeepEverySuspension(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(1 << 20))
	want, points, sizes := everySuspension(t, func() stackless.Frame { return NewDeepFrame(200_000) })
	if last := want[len(want)-1]; !strings.HasPrefix(last, "deep 200000 19999900000 A A true") {
		t.Fatalf("uninterrupted run: %q", last)
	}
	if points != 1 {
		t.Fatalf("%d snapshots", points)
	}
	t.Logf("snapshot of 200,000 nodes: %d bytes", sizes[len(sizes)-1])
}

// TestDeepMillions snapshots and restores Deep with COGEN_DURABLE_NODES
// nodes (skipped without it; issue 35's list had 6,000,000), at the
// default stack limit, and logs the snapshot's size, the times and the
// memory allocated.
func TestDeepMillions(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("COGEN_DURABLE_NODES"))
	if n == 0 {
		t.Skip("COGEN_DURABLE_NODES=6000000 snapshots a list of that many nodes")
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	alloc0 := ms.TotalAlloc
	start := time.Now()
	data, _, ok := snapshotAt(t, 1, NewDeepFrame(n))
	if !ok {
		t.Fatal("no snapshot")
	}
	snap := time.Since(start)
	runtime.ReadMemStats(&ms)
	alloc1 := ms.TotalAlloc
	l := newLoop(t)
	rest := record(t, func(int) {})
	start = time.Now()
	task, err := stackless.Restore(l, data)
	if err != nil {
		t.Fatal(err)
	}
	restore := time.Since(start)
	runtime.ReadMemStats(&ms)
	run(t, l, task)
	if len(*rest) != 1 || !strings.HasPrefix((*rest)[0], fmt.Sprintf("deep %d ", n)) {
		t.Fatalf("restored run: %q", *rest)
	}
	t.Logf("%d nodes: %d bytes; building and Snapshot %v (%d MB allocated), Restore %v (%d MB allocated); peak heap %d MB",
		n, len(data), snap, (alloc1-alloc0)>>20, restore, (ms.TotalAlloc-alloc1)>>20, ms.HeapSys>>20)
}
