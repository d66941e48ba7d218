//go:build linux

package stackless

import (
	"bytes"
	"encoding/hex"
	"slices"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackless/cogenrt"
)

// blobFrame is written by hand in the shape cogen generates for a durable
// function whose frame holds byte-sized slices and arrays:
//
//	func blob(co *stackful.Co, b []byte) {
//		var none []byte
//		key := [4]byte{...}
//		s := []int8{...}
//		ok := []bool{...}
//		co.Gosched()
//		trace(...)
//	}
type blobFrame struct {
	Base
	b, none []byte
	key     [4]byte
	s       []int8
	ok      []bool
}

func newBlob(b []byte) *blobFrame {
	return &blobFrame{b: b, key: [4]byte{0, 0x7f, 0x80, 0xff}, s: []int8{-128, -1, 0, 127}, ok: []bool{true, false, true}}
}

func (f *blobFrame) Step(t *Task) Status {
	if f.PC == 0 {
		f.PC = 1
		suspending(t)
	}
	t.Gosched()
	if t.Blocked() {
		return Suspend
	}
	trace(t, "blob %d %x nil=%v %v %v %v %v", len(f.b), f.b[:min(len(f.b), 4)], f.none == nil, f.key, f.s, f.ok, f.b == nil)
	return Done
}

func (f *blobFrame) Durable() (string, uint64) { return "stackless_test.blob", 0xb10b }

func (f *blobFrame) EncodeState(e *Encoder) {
	e.Bytes(f.b)
	e.Bytes(f.none)
	cogenrt.EncodeByteElems(e, f.key[:])
	e.Len(len(f.s), f.s == nil)
	cogenrt.EncodeByteElems(e, f.s)
	e.Len(len(f.ok), f.ok == nil)
	cogenrt.EncodeBoolElems(e, f.ok)
}

func (f *blobFrame) DecodeState(d *Decoder) {
	d.CheckPC(f.PC, 0, 1)
	f.b = d.Bytes()
	f.none = d.Bytes()
	cogenrt.DecodeByteElems(d, f.key[:])
	if n := d.Len(); n >= 0 {
		f.s = make([]int8, n)
		cogenrt.DecodeByteElems(d, f.s)
	}
	if n := d.Len(); n >= 0 {
		f.ok = make([]bool, n)
		cogenrt.DecodeBoolElems(d, f.ok)
	}
}

func init() {
	RegisterDurable("stackless_test.blob", 0xb10b, func() DurableFrame { return new(blobFrame) })
}

// TestDurableBytes: a frame's byte slices travel as their bytes, one per
// element: the snapshot of a 1 KiB slice is 1 KiB and a few dozen bytes,
// holds the slice's bytes as they are, and restores to the trace of an
// uninterrupted run, nil-ness kept.
func TestDurableBytes(t *testing.T) {
	kib := make([]byte, 1024)
	for i := range kib {
		kib[i] = byte(200 + i)
	}
	for _, b := range [][]byte{kib, {}, nil} {
		l, want := tracedLoop(t)
		run(t, l, 10*time.Second, Spawn(l, newBlob(b)))
		data, _, ok := snapshotAt(t, 1, func() Frame { return newBlob(b) })
		if !ok {
			t.Fatal("no snapshot")
		}
		// magic, version, wait, frame count, name and fingerprint, PC,
		// then the fields, the padding (none: its length 0) and the
		// checksum.
		head := len("CGDS") + 3 + 1 + len("stackless_test.blob") + 8 + 1
		fields := []byte{0, 0x00, 0x7f, 0x80, 0xff, 5, 0x80, 0xff, 0x00, 0x7f, 4, 1, 0, 1, 0}
		if b != nil {
			fields = append(append(appendLen(nil, len(b)), b...), fields...)
		} else {
			fields = append([]byte{0}, fields...)
		}
		if got := data[head : len(data)-4]; !bytes.Equal(got, fields) {
			t.Fatalf("%d-byte slice: fields %x\nwant %x", len(b), got, fields)
		}
		l2, tr := tracedLoop(t)
		task, err := Restore(l2, data)
		if err != nil {
			t.Fatal(err)
		}
		run(t, l2, 10*time.Second, task)
		if !slices.Equal(*tr, *want) || len(*want) != 1 {
			t.Fatalf("%d-byte slice: restored trace %q, want %q", len(b), *tr, *want)
		}
	}
}

func appendLen(b []byte, n int) []byte {
	e := &Encoder{}
	e.Raw(b...)
	e.Len(n, false)
	return e.Output()
}

// snapshotV1 is a version 1 snapshot of newJob("v1", 3) at its first
// suspension (taken before byte slices were written as bytes): its frame
// is still this program's, but the version is refused.
var snapshotV1, _ = hex.DecodeString("4347445301010212737461636b6c6573735f746573742e6a6f620b0100000000000002060002763101010001006a848937")

// TestDurableVersion1: a snapshot of format version 1 is refused with the
// version error, not read: version 2 changed how byte slices are written
// while the fingerprints stayed the same, version 3 how pointers, slices
// and maps are (regions, cogenrt/graph.go).
func TestDurableVersion1(t *testing.T) {
	_, err := Restore(newLoop(t), snapshotV1)
	if want := "stackless: Restore: snapshot version 1, this program reads 3"; err == nil || err.Error() != want {
		t.Fatalf("Restore of a version 1 snapshot: %v, want %s", err, want)
	}
	// The same bytes marked version 3 are not read as version 3: the
	// pointer's region id, 1, is now the frame's.
	v3 := slices.Clone(snapshotV1[:len(snapshotV1)-4])
	v3[len("CGDS")] = 3
	if _, err := Restore(newLoop(t), appendCRC(v3)); err == nil {
		t.Fatalf("Restore of the version 1 snapshot marked version 3 succeeded")
	}
}
