package cogenrt

import (
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
)

// An Encoder writes the state of durable frames (see [DurableFrame]) into a
// snapshot. Generated EncodeState methods call it field by field, in the
// order their DecodeState reads them back; the wire form of each value is
// documented on the method that writes it. An Encoder keeps the first error
// (an unencodable value, a pointer out of the frame chain) and ignores
// everything after it.
type Encoder struct {
	buf   []byte
	g     graph          // the regions reached (graph.go)
	frame int            // the frame being encoded, or that reached the content being encoded
	ptrs  map[any]uint64 // Ref's pointers (type and address) -> region id
	// callee is the frame the current frame's child field may point to:
	// the next frame inward on the task's chain.
	callee any
	// spent is what Restore will allocate for what was written so far
	// (alloc.go).
	spent uint64
	err   error
}

// Uint writes v as an unsigned varint.
func (e *Encoder) Uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }

// Int writes v as a zig-zag signed varint.
func (e *Encoder) Int(v int64) { e.buf = binary.AppendVarint(e.buf, v) }

// Bool writes v as one byte, 0 or 1.
func (e *Encoder) Bool(v bool) {
	b := byte(0)
	if v {
		b = 1
	}
	e.buf = append(e.buf, b)
}

// Float writes the IEEE 754 bits of v as 8 little-endian bytes.
func (e *Encoder) Float(v float64) {
	e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v))
}

// String writes len(s) as a varint, then the bytes of s.
func (e *Encoder) String(s string) {
	e.charge(cost(uint64(len(s))))
	e.Uint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// prefixed writes b as String writes a string: length first, no
// nil-ness.
func (e *Encoder) prefixed(b []byte) {
	e.charge(cost(uint64(len(b))))
	e.Uint(uint64(len(b)))
	e.buf = append(e.buf, b...)
}

// Bytes writes a byte slice: its length as [Encoder.Len] writes it (nil
// and empty stay distinct), then its bytes as they are. Generated
// EncodeState methods call it for every slice type whose elements are
// byte (uint8): []byte and named types such as a type Payload []byte.
func (e *Encoder) Bytes(b []byte) {
	e.Len(len(b), b == nil)
	e.charge(cost(uint64(len(b))))
	e.buf = append(e.buf, b...)
}

// Len writes the length of a slice or map: 0 for nil, n+1 otherwise, so
// that nil and empty stay distinct.
func (e *Encoder) Len(n int, isNil bool) {
	if isNil {
		e.Uint(0)
		return
	}
	e.Uint(uint64(n) + 1)
}

// Ref writes a pointer p (of any pointer type) as the id of a region of
// its own (the mention format of graph.go, without a path), 0 for
// nil. It reports true the first time p is seen: the caller must then
// write the pointee, at once. Later occurrences of p write the id only, so
// that pointers that shared a value restore to one value. Unlike
// [EncodePtr], which generated code uses, Ref knows nothing of pointers
// into p's value, and writes the value where it is first met (recursion
// along the pointers): it serves hand-written frames.
func (e *Encoder) Ref(p any) bool {
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer {
		panic(fmt.Sprintf("cogenrt: Encoder.Ref of a %T", p))
	}
	if v.IsNil() {
		e.Uint(0)
		return false
	}
	if id, ok := e.ptrs[p]; ok {
		e.Uint(id)
		return false
	}
	if e.ptrs == nil {
		e.ptrs = map[any]uint64{}
	}
	e.g.nextID++
	id := e.g.nextID
	e.ptrs[p] = id
	e.Uint(id)
	e.buf = append(e.buf, 1)
	return true
}

// Binary writes a value implementing encoding.BinaryMarshaler as its
// marshalled bytes, length first.
func (e *Encoder) Binary(m encoding.BinaryMarshaler) {
	b, err := m.MarshalBinary()
	if err != nil {
		e.Fail(fmt.Errorf("MarshalBinary of %T: %w", m, err))
		return
	}
	e.prefixed(b)
}

// Callee writes a frame field that holds a child frame: 1 if it is the
// frame the current one has called (the next one inward on the chain), 0
// for nil. Any other frame there is an error: a generated frame clears the
// field when the call returns.
func (e *Encoder) Callee(f any) {
	if f == nil || reflect.ValueOf(f).IsNil() {
		e.Uint(0)
		return
	}
	if f != e.callee {
		e.Fail(fmt.Errorf("a child frame %T that is not the frame's callee on the task's chain", f))
		return
	}
	e.Uint(1)
}

// Fail records err (the first one wins) and makes the snapshot fail.
func (e *Encoder) Fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// A Decoder reads what an [Encoder] wrote. It never panics on malformed
// input: the first inconsistency (truncation, an impossible length, a
// pointer id of the wrong type, an unknown tag) is recorded in Err, and
// every read after it returns zero values.
type Decoder struct {
	buf     []byte
	regions []*dregion // by id-1 (graph.go)
	queue   []queued   // contents to decode, in the order they were written
	frame   int        // the frame being decoded, or that reached the content being decoded
	later   []func()   // map insertions waiting for pointers
	pending int        // regions referenced but not yet allocated
	nfix    int        // references made before their region, ever
	// defining is the region Ref reported new, until Define.
	defining *dregion
	callee   any // the frame decoded just before, the current one's callee
	// inner is set while the innermost frame is decoded; carry is the
	// snapshot's wait kind, one of the Wait constants ([Decoder.CheckResume]).
	inner bool
	carry uint8
	// spent is what Restore has allocated or is about to, charged against
	// budget (alloc.go).
	spent, budget uint64
	err           error
}

// Err returns the first error the decoder met.
func (d *Decoder) Err() error { return d.err }

// Fail records err (the first one wins).
func (d *Decoder) Fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

var errTruncated = errors.New("truncated data")

// Uint reads an unsigned varint.
func (d *Decoder) Uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.Fail(errTruncated)
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

// Int reads a zig-zag signed varint.
func (d *Decoder) Int() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.buf)
	if n <= 0 {
		d.Fail(errTruncated)
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

// IntN reads a signed varint that must fit in bits bits (8, 16, 32, 64).
func (d *Decoder) IntN(bits int) int64 {
	v := d.Int()
	if bits < 64 && (v < -1<<(bits-1) || v >= 1<<(bits-1)) {
		d.Fail(fmt.Errorf("integer %d out of range for %d bits", v, bits))
		return 0
	}
	return v
}

// UintN reads an unsigned varint that must fit in bits bits.
func (d *Decoder) UintN(bits int) uint64 {
	v := d.Uint()
	if bits < 64 && v >= 1<<bits {
		d.Fail(fmt.Errorf("integer %d out of range for %d bits", v, bits))
		return 0
	}
	return v
}

// Bool reads one byte that must be 0 or 1.
func (d *Decoder) Bool() bool {
	if d.err != nil {
		return false
	}
	if len(d.buf) == 0 {
		d.Fail(errTruncated)
		return false
	}
	b := d.buf[0]
	d.buf = d.buf[1:]
	if b > 1 {
		d.Fail(fmt.Errorf("bad bool byte %d", b))
	}
	return b == 1
}

// Float reads 8 little-endian bytes of IEEE 754 bits.
func (d *Decoder) Float() float64 {
	if d.err != nil {
		return 0
	}
	if len(d.buf) < 8 {
		d.Fail(errTruncated)
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.buf))
	d.buf = d.buf[8:]
	return v
}

// String reads a length and that many bytes.
func (d *Decoder) String() string {
	b := d.prefixed()
	if !d.charge(cost(uint64(len(b)))) {
		return ""
	}
	return string(b)
}

// prefixed reads a length and returns that many bytes of the input, not
// copied.
func (d *Decoder) prefixed() []byte {
	n := d.Uint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.buf)) {
		d.Fail(errTruncated)
		return nil
	}
	return d.take(int(n))
}

// take returns the next n bytes of the input, not copied; if fewer are
// left it records a truncation. After an error of d it returns nil.
func (d *Decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.buf) {
		d.Fail(errTruncated)
		return nil
	}
	b := d.buf[:n:n]
	d.buf = d.buf[n:]
	return b
}

// Bytes reads what [Encoder.Bytes] wrote: nil for a nil slice, a non-nil
// empty slice for an empty one. The bytes are copied into a new array
// (the caller of stackless.Restore may reuse the snapshot's), and the length is
// checked against the bytes left before anything is allocated, so a
// corrupt length is an error, never a large allocation.
func (d *Decoder) Bytes() []byte {
	n := d.Len()
	if n < 0 {
		return nil
	}
	src := d.take(n)
	if d.err != nil || !d.charge(cost(uint64(n))) {
		return nil
	}
	b := make([]byte, n)
	copy(b, src)
	return b
}

// EncodeByteElems writes the elements of s, byte-sized integers, one byte
// each (an int8 as its two's complement) and nothing else: the reader
// knows their number, an array's length or one written before with
// [Encoder.Len]. Generated EncodeState methods call it for arrays of
// uint8 and int8 kinds and for slices of them that do not convert to
// []byte ([]int8, a slice of a named byte type).
func EncodeByteElems[T ~uint8 | ~int8](e *Encoder, s []T) {
	// A []byte (the slice of a [N]byte is one) is one append, a memmove; a
	// []T converts to []byte only through unsafe, so the other element
	// types take the loop. The interface does not escape: no allocation.
	if b, ok := any(s).([]byte); ok {
		e.buf = append(e.buf, b...)
		return
	}
	e.buf = slices.Grow(e.buf, len(s))
	for _, v := range s {
		e.buf = append(e.buf, byte(v))
	}
}

// DecodeByteElems fills s with the next len(s) bytes of the input, as
// [EncodeByteElems] wrote them. If fewer are left, it records a
// truncation and leaves s as it was.
func DecodeByteElems[T ~uint8 | ~int8](d *Decoder, s []T) {
	src := d.take(len(s))
	if d.err != nil {
		return
	}
	if b, ok := any(s).([]byte); ok {
		copy(b, src)
		return
	}
	for i, v := range src {
		s[i] = T(v)
	}
}

// EncodeBoolElems writes the elements of s one byte each, 0 or 1, as
// [Encoder.Bool] writes one, and nothing else (see [EncodeByteElems]).
func EncodeBoolElems[T ~bool](e *Encoder, s []T) {
	e.buf = slices.Grow(e.buf, len(s))
	for _, v := range s {
		b := byte(0)
		if v {
			b = 1
		}
		e.buf = append(e.buf, b)
	}
}

// DecodeBoolElems fills s with the next len(s) bytes of the input, each of
// which must be 0 or 1. On a truncation or any other byte it records an
// error and leaves s as it was.
func DecodeBoolElems[T ~bool](d *Decoder, s []T) {
	src := d.take(len(s))
	if d.err != nil {
		return
	}
	for _, b := range src {
		if b > 1 {
			d.Fail(fmt.Errorf("bad bool byte %d", b))
			return
		}
	}
	for i, b := range src {
		s[i] = b == 1
	}
}

// Len reads what [Encoder.Len] wrote. A length is bounded by the bytes
// left (every element takes at least one), so a corrupt length cannot make
// the caller allocate more than the input's size; it reports -1 for nil.
func (d *Decoder) Len() int {
	v := d.Uint()
	if d.err != nil || v == 0 {
		return -1
	}
	if v-1 > uint64(len(d.buf)) {
		d.Fail(fmt.Errorf("length %d exceeds the %d bytes left", v-1, len(d.buf)))
		return -1
	}
	return int(v - 1)
}

// Ref reads a pointer written by [Encoder.Ref]. For id 0 it returns (nil,
// false). For an id seen before it returns the value registered with
// [Decoder.Define] and false; the caller type-asserts it and calls Fail if
// the type is wrong. For a new id, which must be the next one, it returns
// (nil, true): the caller allocates the pointee, calls Define, then
// decodes the pointee into it.
func (d *Decoder) Ref() (any, bool) {
	r, root := d.mention()
	switch {
	case d.err != nil || r == nil:
		return nil, false
	case root:
		d.defining = r
		return nil, true
	case r.ptr == nil:
		d.Fail(errors.New("a pointer to a value written later"))
		return nil, false
	}
	return r.ptr, false
}

// Define registers p as the value of the pointer id [Decoder.Ref] has just
// reported new.
func (d *Decoder) Define(p any) {
	if r := d.defining; r != nil && p != nil {
		d.defining = nil
		d.allocate(r, reflect.ValueOf(p), p)
	}
}

// Binary reads bytes written by [Encoder.Binary] into u. As its contract
// says, UnmarshalBinary must copy the bytes it keeps: they are the
// snapshot's. An error or a panic of UnmarshalBinary is recorded in d.
func (d *Decoder) Binary(u encoding.BinaryUnmarshaler) {
	b := d.prefixed()
	if d.err != nil || !d.charge(cost(uint64(len(b)))) {
		return
	}
	if err := recovering(func() error { return u.UnmarshalBinary(b) }); err != nil {
		d.Fail(fmt.Errorf("UnmarshalBinary of %T: %w", u, err))
	}
}

// Callee reads a child frame field written by [Encoder.Callee]: nil, or
// the frame the current one called, decoded just before it. The caller
// type-asserts it to its frame type and calls Fail on a mismatch.
func (d *Decoder) Callee() any {
	switch v := d.Uint(); {
	case d.err != nil || v == 0:
		return nil
	case v > 1 || d.callee == nil:
		d.Fail(errors.New("a child frame field with no callee to point to"))
		return nil
	}
	c := d.callee
	d.callee = nil // one field holds the callee
	return c
}

// WrongType records that a pointer or a callee read back has a type other
// than the field's, and returns nil for the caller's convenience.
func (d *Decoder) WrongType(want string, got any) {
	d.Fail(fmt.Errorf("a %T where the frame holds a %s", got, want))
}

// A ResumeKind is what a frame does at one of its resume points.
type ResumeKind uint8

// The kinds of resume points, as generated DecodeState methods declare
// them to [Decoder.CheckResume].
const (
	ResumeEntry   ResumeKind = iota + 1 // the function's entry: a task not started
	ResumeCall                          // a durable callee's call returns here: the callee is the next frame inward
	ResumeGosched                       // a Gosched is made again here
	ResumeYield                         // a Yield is made again here
	ResumeSleep                         // a Sleep is made again here
	ResumeWait                          // another wait (fd, Cond, task, protocol), which no snapshot holds
)

// A ResumePoint is one of a frame's resume points: its PC, what the frame
// does there and, for a [ResumeCall], whether the field of that call's
// callee holds a frame once the state is decoded.
type ResumePoint struct {
	PC     int
	Kind   ResumeKind
	Callee bool
}

// CheckResume records an error unless the frame's pc is one of points
// that a real stackless.Snapshot can leave it at: the entry of a task not started;
// for the innermost frame, a wait of the snapshot's kind (a Yield point
// also when the snapshot records a runnable task: a Yield resumed before
// the snapshot); for a frame with a callee, a call whose callee field
// holds the callee. Generated DecodeState methods call it after reading
// the fields, so that Step never resumes at a point whose state it would
// not find (a call's result with no callee frame, a wait the task is not
// in).
func (d *Decoder) CheckResume(pc int, points ...ResumePoint) {
	if d.err != nil {
		return
	}
	var want ResumeKind
	switch {
	case d.carry == WaitNone:
		want = ResumeEntry
	case !d.inner:
		want = ResumeCall
	case d.carry == WaitGosched:
		want = ResumeGosched
	case d.carry == WaitYield:
		want = ResumeYield
	case d.carry == WaitSleep:
		want = ResumeSleep
	}
	known := false
	for _, p := range points {
		if p.PC != pc {
			continue
		}
		known = true
		switch {
		case p.Kind == want && (want != ResumeCall || p.Callee):
			return
		case p.Kind == ResumeYield && want == ResumeGosched:
			return
		}
	}
	if !known {
		d.Fail(fmt.Errorf("resume point %d is not one of the frame's", pc))
		return
	}
	switch want {
	case ResumeEntry:
		d.Fail(fmt.Errorf("a task that had not started stands at resume point %d, not at its entry", pc))
	case ResumeCall:
		d.Fail(fmt.Errorf("a frame with a callee stands at resume point %d, which is not where that call returns", pc))
	default:
		d.Fail(fmt.Errorf("the innermost frame stands at resume point %d, which is not a wait of the snapshot's kind %d (a call's return with no callee frame, or another wait)", pc, d.carry))
	}
}

// CheckPC records an error unless pc is one of valid: a frame's resume
// point must be one its Step knows. [Decoder.CheckResume] checks more.
func (d *Decoder) CheckPC(pc int, valid ...int) {
	for _, v := range valid {
		if pc == v {
			return
		}
	}
	d.Fail(fmt.Errorf("resume point %d is not one of the frame's", pc))
}

// EncodeWith writes *x with marshal, the Marshal function of the
// stackless.Codec that serves T: the length of its bytes as a varint, then
// the bytes. Generated EncodeState methods call it; after an earlier error
// of e it does nothing.
func EncodeWith[T any](e *Encoder, marshal func(x *T) ([]byte, error), x *T) {
	if e.err != nil {
		return
	}
	if marshal == nil {
		e.Fail(fmt.Errorf("the Codec[%s] has no Marshal", reflect.TypeFor[T]()))
		return
	}
	b, err := marshal(x)
	if err != nil {
		e.Fail(fmt.Errorf("Codec[%s].Marshal: %w", reflect.TypeFor[T](), err))
		return
	}
	e.prefixed(b)
}

// DecodeWith reads what [EncodeWith] wrote into *x with unmarshal, the
// Unmarshal function of the stackless.Codec that serves T. An error or a
// panic of unmarshal is recorded in d; after an earlier error of d it does
// nothing.
func DecodeWith[T any](d *Decoder, unmarshal func(b []byte, x *T) error, x *T) {
	b := d.prefixed()
	if d.err != nil || !d.charge(cost(uint64(len(b)))) {
		return
	}
	if unmarshal == nil {
		d.Fail(fmt.Errorf("the Codec[%s] has no Unmarshal", reflect.TypeFor[T]()))
		return
	}
	if err := recovering(func() error { return unmarshal(b, x) }); err != nil {
		d.Fail(fmt.Errorf("Codec[%s].Unmarshal: %w", reflect.TypeFor[T](), err))
	}
}

// recovering calls f and returns its error, or an error holding the value
// of its panic: user code that reads snapshot bytes must not make Restore
// panic.
func recovering(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

// The methods below frame a snapshot around the frames' states; the
// stackless runtime calls them from Snapshot and Restore.

// Raw appends b as it is: the snapshot's fixed-width fields.
func (e *Encoder) Raw(b ...byte) { e.buf = append(e.buf, b...) }

// SetCallee sets the frame that the next frame's child field may hold
// (see [Encoder.Callee]): the next frame inward on the task's chain, or nil.
func (e *Encoder) SetCallee(f any) { e.callee = f }

// Err returns the first error the encoder met.
func (e *Encoder) Err() error { return e.err }

// Output returns what e has written.
func (e *Encoder) Output() []byte { return e.buf }

// NewDecoder returns a decoder reading b, which it does not copy, with
// the memory budget of a snapshot of len(b) bytes (alloc.go; see
// [Decoder.SetBudget]).
func NewDecoder(b []byte) *Decoder { return &Decoder{buf: b, budget: budgetFor(len(b))} }

// SetBudget sets d's memory budget to that of a snapshot of n bytes: the
// whole snapshot's length, of which d may read only a part.
func (d *Decoder) SetBudget(n int) { d.budget = budgetFor(n) }

// Raw reads n bytes as they are (not copied), recording a truncation if
// fewer are left; after an error of d it returns nil.
func (d *Decoder) Raw(n int) []byte { return d.take(n) }

// SetCallee sets the frame that the next frame's child field must hold
// (see [Decoder.Callee]): the frame decoded just before, or nil.
func (d *Decoder) SetCallee(f any) { d.callee = f }

// CalleeHeld reports whether the callee set by [Decoder.SetCallee] was
// read by a child field: a caller frame must hold its callee.
func (d *Decoder) CalleeHeld() bool { return d.callee == nil }

// Left returns the number of bytes not read yet.
func (d *Decoder) Left() int { return len(d.buf) }

// What a snapshot's task waits in, as the snapshot records it in one byte
// (stackless.Snapshot's format): the wait its innermost frame makes again.
const (
	WaitNone    uint8 = iota // not started: a frame at its entry
	WaitGosched              // Gosched, or a Yield resumed before the snapshot
	WaitYield                // Yield, until Task.Resume
	WaitSleep                // Sleep, until its deadline
)

// SetWait records the snapshot's wait kind (WaitNone to WaitSleep) for
// [Decoder.CheckResume].
func (d *Decoder) SetWait(carry uint8) { d.carry = carry }

// SetInner records whether the frame decoded next is the task's innermost
// one, for [Decoder.CheckResume].
func (d *Decoder) SetInner(inner bool) { d.inner = inner }
