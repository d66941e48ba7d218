package cogenrt

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
)

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
	d := NewDecoder(e.buf)
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
	d := NewDecoder(e.buf)
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
			d := *NewDecoder(in)
			DecodeByteElems(&d, a[:])
			DecodeByteElems(&d, s8)
			DecodeBoolElems(&d, ok[:])
		}); n != 0 {
			t.Errorf("%v allocations per run", n)
		}
	}

	d = NewDecoder([]byte{1, 2, 0})
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
		d := NewDecoder(e.buf[:i])
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
			d := NewDecoder(make([]byte, i))
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
		d := NewDecoder(in)
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

// TestCheckResume: a frame's resume point must be one a Snapshot leaves
// it at, given the snapshot's wait kind and whether the frame has a
// callee.
func TestCheckResume(t *testing.T) {
	points := []ResumePoint{
		{PC: 0, Kind: ResumeEntry},
		{PC: 1, Kind: ResumeGosched},
		{PC: 2, Kind: ResumeCall, Callee: true},
		{PC: 3, Kind: ResumeCall, Callee: false}, // its callee field is nil
		{PC: 4, Kind: ResumeYield},
		{PC: 5, Kind: ResumeSleep},
		{PC: 6, Kind: ResumeWait},
	}
	for _, tc := range []struct {
		carry uint8
		inner bool
		pc    int
		want  string // "" if accepted
	}{
		{WaitNone, true, 0, ""},
		{WaitNone, true, 1, "had not started"},
		{WaitGosched, true, 1, ""},
		{WaitGosched, true, 4, ""}, // a Yield resumed before the snapshot
		{WaitYield, true, 1, "not a wait of the snapshot's kind"},
		{WaitYield, true, 4, ""},
		{WaitSleep, true, 5, ""},
		{WaitSleep, true, 2, "not a wait"},
		{WaitGosched, true, 6, "not a wait"},
		{WaitGosched, false, 2, ""},
		{WaitGosched, false, 3, "not where that call returns"},
		{WaitGosched, false, 1, "not where that call returns"},
		{WaitGosched, true, 7, "not one of the frame's"},
	} {
		d := &Decoder{carry: tc.carry, inner: tc.inner}
		d.CheckResume(tc.pc, points...)
		got := ""
		if d.err != nil {
			got = d.err.Error()
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("carry %d inner %v pc %d: %q, want %q", tc.carry, tc.inner, tc.pc, got, tc.want)
		}
	}
}
