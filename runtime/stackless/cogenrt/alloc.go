package cogenrt

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"unsafe"
)

// Bounded decoding. Restore allocates at most allocPerByte bytes per byte
// of the snapshot, plus allocSlack, whatever the bytes say (besides what
// UnmarshalBinary methods and codecs allocate, which is their own): every
// allocation the decoder makes is first charged, at a cost that bounds
// from above what the Go runtime allocates for it (size classes, a map's
// groups and its growth, the decoder's own tables and closures), against
// that budget, and a charge over it is an error before anything is
// allocated: a length that would take Restore over it is refused before
// the make, whatever element type it is of. Every element charges at
// least one byte, so that no loop is longer than the budget either.
//
// Snapshot charges the same costs at the same points (a region's
// allocation where its root is mentioned, a path, a pending reference,
// a map's entries, a string's bytes), so its total bounds what Restore
// will charge; a legitimate state whose values take much more memory than
// bytes (many small maps, a long slice of empty structs) is padded: the
// format ends with a padding length and that many zero bytes, which
// raise the budget to what the state needs. Restore therefore never
// refuses what Snapshot wrote.
const (
	allocPerByte = 64
	allocSlack   = 64 << 10
)

// Costs of the decoder's bookkeeping (graph.go): a region's entry
// in its table, a queued content's closure and slot, a pending
// reference's closure, a map entry decoded apart (its key, value and
// insertion closure, besides their sizes).
const (
	regionCost = 128
	queueCost  = 128
	fixCost    = 96
	entryCost  = 96
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

// ErrTooLarge is wrapped by the error of an encoding whose values would
// need more memory to decode than any snapshot's budget allows.
var ErrTooLarge = errors.New("snapshot too large")

// pad appends the padding, its length and that many zero bytes, that
// makes the snapshot long enough for what its decoding is charged: 0,
// one byte, for the usual state.
func (e *Encoder) pad() error {
	base := len(e.buf) + 1 + 4 // the length's byte and the checksum
	n := paddedLen(base, e.spent)
	if n == math.MaxInt32 {
		return fmt.Errorf("%w: its values would need more than %d bytes of memory to restore", ErrTooLarge, budgetFor(math.MaxInt32))
	}
	p := n - base
	e.Uint(uint64(p))
	e.buf = append(e.buf, make([]byte, p)...)
	return nil
}

// sizeOf is the size of a T in memory.
func sizeOf[T any]() uint64 {
	var x T
	return uint64(unsafe.Sizeof(x))
}

// sliceCost is the charge of an array of n elements of size elem: at
// least one byte per element, so that the loop over them is bounded too.
func sliceCost(n int, elem uint64) uint64 { return cost(mulCap(uint64(n), max(elem, 1))) }
