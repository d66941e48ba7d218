package durabletest

import (
	"slices"
	"strings"
	"testing"

	"github.com/cogen-go/cogen/runtime/stackless"
)

// TestBytesEverySuspension: the differential test of a frame holding
// byte-sized slices and arrays of every kind; nil and empty slices keep
// their nil-ness and two pointers to one [4]byte stay one.
func TestBytesEverySuspension(t *testing.T) {
	const n = 5
	want, points, sizes := everySuspension(t, func() stackless.Frame { return NewBytesFrame(n) })
	for _, line := range want[:len(want)-1] {
		if strings.HasPrefix(line, "bytes i=") && !strings.Contains(line, "none=nil empty=[] ") || strings.Contains(line, "shared=false") {
			t.Fatalf("uninterrupted run: %s", line)
		}
	}
	if last := want[len(want)-1]; last != "bytes done none=[] buf=[0 127 128 255 200 237 18 55 92] named=[104 195 169 108 108 111 200 237 18 55 92] arr=[37 239 21 59] shared=true" {
		t.Fatalf("uninterrupted run: %q", last)
	}
	// Every step checkpoints, and odd ones also sleep.
	if points != n+n/2 {
		t.Fatalf("%d snapshots, want %d", points, n+n/2)
	}
	t.Logf("%d suspension points, snapshot sizes %v", points, sizes)
}

// TestBytesPointerIntoSlice: a pointer to an element of a byte slice
// restores to a byte of its own, holding the element's value, as a
// pointer into any slice does: a write through it after the restore does
// not reach the slice.
func TestBytesPointerIntoSlice(t *testing.T) {
	l := newLoop(t)
	tr := record(t, func(int) {})
	run(t, l, stackless.Spawn(l, NewAliasFrame()))
	if want := []string{"alias before [1 2 3] 2", "alias after [1 9 3] 9"}; !slices.Equal(*tr, want) {
		t.Fatalf("uninterrupted run: %q, want %q", *tr, want)
	}
	data, _, ok := snapshotAt(t, 1, NewAliasFrame())
	if !ok {
		t.Fatal("no snapshot")
	}
	l2 := newLoop(t)
	rest := record(t, func(int) {})
	task, err := stackless.Restore(l2, data)
	if err != nil {
		t.Fatal(err)
	}
	run(t, l2, task)
	if want := []string{"alias after [1 2 3] 9"}; !slices.Equal(*rest, want) {
		t.Fatalf("restored run: %q, want %q", *rest, want)
	}
}
