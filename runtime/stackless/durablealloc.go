package stackless

import (
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"unsafe"
)

// Bounded decoding. Restore allocates at most allocPerByte bytes per byte
// of the snapshot, plus allocSlack, whatever the bytes say (besides what
// UnmarshalBinary methods and codecs allocate, which is their own): every
// allocation the decoder and generated DecodeState methods make is first
// charged, at a cost that bounds from above what the Go runtime allocates
// for it (size classes, a map's groups), against that budget, and a
// charge over it is an error before anything is allocated. A length or a
// count is also checked against the bytes left, times the least number of
// bytes one element takes, so a corrupt length is an error at once.
//
// Snapshot charges the same costs in the same places: a legitimate state
// whose values take much more memory than bytes (many small maps, empty
// structs) is padded with zero bytes up to the length its cost needs, so
// that Restore never refuses what Snapshot wrote. The padding is exact:
// Restore refuses a snapshot padded more or less than Snapshot would pad
// it.
const (
	allocPerByte = 64
	allocSlack   = 64 << 10
)

// cost is what an allocation of n bytes may take from the heap: its size
// class (at most a quarter more above 16 bytes) and a header's worth.
func cost(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	if n > math.MaxUint64/2 {
		return math.MaxUint64 / 2
	}
	return n + n/4 + 16
}

// mulCap multiplies without overflowing: products past 2^62 are 2^62.
func mulCap(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 || lo > 1<<62 {
		return 1 << 62
	}
	return lo
}

// mapCost bounds what make(map[K]V, n) and n insertions take: the map's
// header, and twice the groups of 8 slots that n entries need at a load
// of 7/8, plus each entry's key and value stored apart when they are
// larger than 128 bytes.
func mapCost(n, ksize, vsize uint64) uint64 {
	if n == 0 {
		return 64
	}
	slot, apart := uint64(0), uint64(0)
	for _, s := range []uint64{ksize, vsize} {
		if s > 128 {
			slot += 8
			apart += cost(s)
		} else {
			slot += s
		}
	}
	groups := mulCap(n, 8)/7/8 + 2
	return 64 + 2*mulCap(groups, 8+8*slot) + mulCap(n, apart)
}

// charge records that the decoder or the encoder is about to allocate
// (or, encoding, that Restore will allocate) c bytes. A decoder over its
// budget fails.
func (d *Decoder) charge(c uint64) bool {
	if d.err != nil {
		return false
	}
	d.spent += c
	if d.spent > d.budget || d.spent < c {
		d.Fail(fmt.Errorf("the snapshot's values need more than %d bytes of memory (%d per byte of snapshot, and %d)", d.budget, allocPerByte, allocSlack))
		return false
	}
	return true
}

func (e *Encoder) charge(c uint64) {
	e.spent += c
	if e.spent < c {
		e.spent = math.MaxUint64
	}
}

// budgetFor is what the decoder may charge for a snapshot of n bytes: the
// bound less half the slack, which covers what is not charged (the task,
// the decoder, an error).
func budgetFor(n int) uint64 { return allocPerByte*uint64(n) + allocSlack/2 }

// paddedLen is the length a snapshot of n bytes whose decoding costs
// spent must have: n, or more if its cost needs more.
func paddedLen(n int, spent uint64) int {
	if spent <= budgetFor(n) {
		return n
	}
	need := (spent - allocSlack/2 + allocPerByte - 1) / allocPerByte
	if need > math.MaxInt32 {
		return math.MaxInt32 // Snapshot fails: more than 2 GiB of padding
	}
	return int(need)
}

// sizeOf is the size of a T in memory.
func sizeOf[T any]() uint64 {
	var x T
	return uint64(unsafe.Sizeof(x))
}

// sliceCost is the charge of a slice of n elements of size elem: at least
// one byte per element, so that the loop over them is bounded too.
func sliceCost(n int, elem uint64) uint64 { return cost(mulCap(uint64(n), max(elem, 1))) }

// EncodeLen writes the length of a slice of E as [Encoder.Len] does and
// charges what [DecodeLen] will allocate for it. Generated EncodeState
// methods call it for every slice that is not a []byte.
func EncodeLen[E any](e *Encoder, n int, isNil bool) {
	e.Len(n, isNil)
	if !isNil {
		e.charge(sliceCost(n, sizeOf[E]()))
	}
}

// DecodeLen reads the length [EncodeLen] wrote (-1 for nil) for a slice
// of E whose elements each take at least minEnc bytes in the snapshot:
// a length that the bytes left cannot hold, or whose slice would take
// Restore over its memory budget, is an error (and -1), before the caller
// allocates. Generated DecodeState methods call it, then make the slice.
func DecodeLen[E any](d *Decoder, minEnc int) int {
	n := d.count(minEnc)
	if n < 0 || !d.charge(sliceCost(n, sizeOf[E]())) {
		return -1
	}
	return n
}

// EncodeMapLen writes the length of a map[K]V as [Encoder.Len] does and
// charges what [DecodeMapLen] will allocate for it.
func EncodeMapLen[K comparable, V any](e *Encoder, n int, isNil bool) {
	e.Len(n, isNil)
	if !isNil {
		e.charge(mapCost(uint64(n), sizeOf[K](), sizeOf[V]()))
	}
}

// DecodeMapLen is [DecodeLen] for a map[K]V whose entries each take at
// least minEnc bytes: the caller makes the map with the length as its
// size hint.
func DecodeMapLen[K comparable, V any](d *Decoder, minEnc int) int {
	n := d.count(minEnc)
	if n < 0 || !d.charge(mapCost(uint64(n), sizeOf[K](), sizeOf[V]())) {
		return -1
	}
	return n
}

// New returns a new T for a pointer [Decoder.Ref] has reported fresh, or
// nil, with the error recorded, if it would take Restore over its memory
// budget. [Encoder.Ref] charges the same the first time it sees a pointer.
func New[T any](d *Decoder) *T {
	if !d.charge(pointerCost(sizeOf[T]())) {
		return nil
	}
	return new(T)
}

// pointerCost is the charge of a pointee of size s: its allocation and
// its entry in the decoder's pointer table (which grows by doubling).
func pointerCost(s uint64) uint64 { return cost(s) + 48 }

// refCost is pointerCost for the pointee of the pointer p.
func refCost(p any) uint64 { return pointerCost(uint64(reflect.TypeOf(p).Elem().Size())) }

// count reads a length written by [Encoder.Len] (-1 for nil) and checks
// that the bytes left can hold that many elements of at least minEnc
// bytes each.
func (d *Decoder) count(minEnc int) int {
	v := d.Uint()
	if d.err != nil || v == 0 {
		return -1
	}
	n := v - 1
	if minEnc > 0 && n > uint64(len(d.buf))/uint64(minEnc) {
		d.Fail(fmt.Errorf("length %d exceeds the %d bytes left (%d per element at least)", n, len(d.buf), minEnc))
		return -1
	}
	if n > math.MaxInt32 {
		d.Fail(fmt.Errorf("length %d is too large", n)) // 2^31 elements: more than the budget of any snapshot Restore reads
		return -1
	}
	return int(n)
}
