package durabletest

import (
	"encoding/binary"
	"encoding/hex"
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
// restores pointing into the restored slice's array: a write through it
// after the restore reaches the slice, as in the uninterrupted run
// (format version 2 restored the pointer to a byte of its own and printed
// [1 2 3] 9).
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
	if want := []string{"alias after [1 9 3] 9"}; !slices.Equal(*rest, want) {
		t.Fatalf("restored run: %q, want %q", *rest, want)
	}
}

// bytesV1 is a snapshot of Bytes(2) after its first line, taken with
// format version 1, where each byte of a slice or an array was a varint
// (200 is c801 there). Its frame's fingerprint is this program's: only
// the version tells that its bytes are not read as version 2 writes them.
// (Generated code that changes without a change of Bytes's own source, such
// as locals renamed for the hygiene corpus's package-level names, changes
// the fingerprint: the 8 bytes after the name and the CRC-32C at the end
// are then stamped again, as TestBytesVersion1 asks.)
var bytesV1, _ = hex.DecodeString("43474453010102346769746875622e636f6d2f636f67656e2d676f2f636f67656e2f696e7465726e616c2f64757261626c65746573742e42797465738862591c05cb773a0c0400000106007f8001ff01c8010100c80100000000000868c301a9016c6c6fc8010006007f8001ff01c80106ff010100fe016f700000040100010001000002c90102030402036bc801c8010000000001618001df01ad01000003c8013702000400e4ec856b")

// TestBytesVersion1: a version 1 snapshot of a frame holding byte slices
// is refused with the version error, not misread.
func TestBytesVersion1(t *testing.T) {
	_, err := stackless.Restore(newLoop(t), bytesV1)
	if want := "stackless: Restore: snapshot version 1, this program reads 3"; err == nil || err.Error() != want {
		t.Fatalf("Restore: %v, want %s", err, want)
	}
	name, fp := NewBytesFrame(0).Durable()
	if !strings.Contains(string(bytesV1), name+string(binary.LittleEndian.AppendUint64(nil, fp))) {
		t.Fatalf("the version 1 snapshot is not of this program's %s (fingerprint %016x)", name, fp)
	}
}

// TestBlobSize: a 1 KiB []byte is written as its bytes: Blob's snapshot
// is 1 KiB and its header.
func TestBlobSize(t *testing.T) {
	l := newLoop(t)
	task := stackless.Spawn(l, NewBlobFrame(1))
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	defer task.Cancel()
	data, err := stackless.Snapshot(task)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 1024 || len(data) > 1024+100 {
		t.Fatalf("snapshot of a 1 KiB []byte: %d bytes", len(data))
	}
}
