//go:build linux

package stackless

import (
	"bytes"
	"encoding/hex"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
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
	EncodeByteElems(e, f.key[:])
	e.Len(len(f.s), f.s == nil)
	EncodeByteElems(e, f.s)
	e.Len(len(f.ok), f.ok == nil)
	EncodeBoolElems(e, f.ok)
}

func (f *blobFrame) DecodeState(d *Decoder) {
	d.CheckPC(f.PC, 0, 1)
	f.b = d.Bytes()
	f.none = d.Bytes()
	DecodeByteElems(d, f.key[:])
	if n := d.Len(); n >= 0 {
		f.s = make([]int8, n)
		DecodeByteElems(d, f.s)
	}
	if n := d.Len(); n >= 0 {
		f.ok = make([]bool, n)
		DecodeBoolElems(d, f.ok)
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
	e := &Encoder{buf: b}
	e.Len(n, false)
	return e.buf
}

// TestDecodeBytes: what Encoder.Bytes writes reads back with its nil-ness,
// into a copy that does not share the snapshot's buffer.
func TestDecodeBytes(t *testing.T) {
	e := &Encoder{}
	for _, b := range [][]byte{nil, {}, {0, 0x80, 0xff}} {
		e.Bytes(b)
	}
	if want := []byte{0, 1, 4, 0, 0x80, 0xff}; !bytes.Equal(e.buf, want) {
		t.Fatalf("wrote %x, want %x", e.buf, want)
	}
	d := testDecoder(e.buf)
	none, empty, full := d.Bytes(), d.Bytes(), d.Bytes()
	if d.Err() != nil || len(d.buf) != 0 {
		t.Fatalf("err %v, %d bytes left", d.Err(), len(d.buf))
	}
	if none != nil || empty == nil || len(empty) != 0 || !bytes.Equal(full, []byte{0, 0x80, 0xff}) {
		t.Fatalf("read %#v %#v %#v", none, empty, full)
	}
	clear(e.buf)
	if !bytes.Equal(full, []byte{0, 0x80, 0xff}) {
		t.Fatalf("the decoded slice shares the input: %x", full)
	}
}

type signedByte int8

// TestByteElems: integers of 8 bits travel as one byte each (an int8 as
// its two's complement), bools as 0 or 1, whatever the element type's
// name; a bool byte other than 0 and 1 is an error.
func TestByteElems(t *testing.T) {
	e := &Encoder{}
	EncodeByteElems(e, []signedByte{-128, -1, 0, 127})
	EncodeByteElems(e, []uint8{1, 0xfe})
	EncodeBoolElems(e, []bool{true, false})
	if want := []byte{0x80, 0xff, 0, 0x7f, 1, 0xfe, 1, 0}; !bytes.Equal(e.buf, want) {
		t.Fatalf("wrote %x, want %x", e.buf, want)
	}
	d := testDecoder(e.buf)
	var s [4]signedByte
	var u [2]uint8
	var ok [2]bool
	DecodeByteElems(d, s[:])
	DecodeByteElems(d, u[:])
	DecodeBoolElems(d, ok[:])
	if d.Err() != nil || s != [4]signedByte{-128, -1, 0, 127} || u != [2]uint8{1, 0xfe} || ok != [2]bool{true, false} {
		t.Fatalf("read %v %v %v, err %v", s, u, ok, d.Err())
	}

	// The []byte fast path and the element loops allocate nothing.
	if !raceEnabled {
		var a [64]byte
		s8 := make([]int8, 64)
		in := make([]byte, 256)
		e.buf = make([]byte, 0, 256)
		if n := testing.AllocsPerRun(100, func() {
			e.buf = e.buf[:0]
			EncodeByteElems(e, a[:])
			EncodeByteElems(e, s8)
			EncodeBoolElems(e, ok[:])
			d := *testDecoder(in)
			DecodeByteElems(&d, a[:])
			DecodeByteElems(&d, s8)
			DecodeBoolElems(&d, ok[:])
		}); n != 0 {
			t.Errorf("%v allocations per run", n)
		}
	}

	d = testDecoder([]byte{1, 2, 0})
	bs := []bool{false, false, true}
	DecodeBoolElems(d, bs)
	if d.Err() == nil || d.Err().Error() != "bad bool byte 2" || !slices.Equal(bs, []bool{false, false, true}) {
		t.Fatalf("err %v, bools %v: want bad bool byte 2 and the bools left as they were", d.Err(), bs)
	}
}

// TestDecodeBytesTruncated: a bulk payload cut short, or a length beyond
// the input, is an error, never a panic, a short read taken for a whole
// one, or an allocation of the claimed size.
func TestDecodeBytesTruncated(t *testing.T) {
	e := &Encoder{}
	e.Bytes([]byte("payload"))
	for i := range len(e.buf) {
		d := testDecoder(e.buf[:i])
		if b := d.Bytes(); b != nil || d.Err() == nil {
			t.Errorf("%d of %d bytes: read %q, err %v", i, len(e.buf), b, d.Err())
		}
	}
	for _, tc := range []struct {
		name string
		read func(d *Decoder)
	}{
		{"[4]byte", func(d *Decoder) { var a [4]byte; DecodeByteElems(d, a[:]) }},
		{"[4]int8", func(d *Decoder) { var a [4]int8; DecodeByteElems(d, a[:]) }},
		{"[4]bool", func(d *Decoder) { var a [4]bool; DecodeBoolElems(d, a[:]) }},
	} {
		for i := range 4 {
			d := testDecoder(make([]byte, i))
			if tc.read(d); !errors.Is(d.Err(), errTruncated) || len(d.buf) != i {
				t.Errorf("%s from %d bytes: err %v, %d bytes left", tc.name, i, d.Err(), len(d.buf))
			}
		}
	}

	// Lengths of 1 GiB and 2^62 bytes followed by 3 bytes: refused
	// before anything of that size is allocated.
	for _, n := range []uint64{1 << 30, 1 << 62} {
		e := &Encoder{}
		e.Len(int(n), false)
		in := append(e.buf, 1, 2, 3)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		d := testDecoder(in)
		b := d.Bytes()
		runtime.ReadMemStats(&after)
		if b != nil || d.Err() == nil || !strings.Contains(d.Err().Error(), "exceeds the 3 bytes left") {
			t.Errorf("length %d: read %d bytes, err %v", n, len(b), d.Err())
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("length %d: %d bytes allocated", n, grew)
		}
	}
}

// snapshotV1 is a version 1 snapshot of newJob("v1", 3) at its first
// suspension (taken before byte slices were written as bytes): its frame
// is still this program's, but the version is refused.
var snapshotV1, _ = hex.DecodeString("4347445301010212737461636b6c6573735f746573742e6a6f620b0100000000000002060002763101010001006a848937")

// TestDurableVersion1: a snapshot of format version 1 is refused with the
// version error, not read: version 2 changed how byte slices are written
// while the fingerprints stayed the same, version 3 how pointers, slices
// and maps are (regions, durablegraph.go).
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

// testDecoder reads buf with the memory budget Restore gives a snapshot
// of its length.
func testDecoder(buf []byte) *Decoder { return &Decoder{buf: buf, budget: budgetFor(len(buf))} }
