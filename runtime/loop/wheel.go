package loop

import (
	"math"
	"math/bits"
	"slices"
)

// The timing wheel is hierarchical, with a look-ahead that spreads the
// cascades out over time.
//
// Time is cut into blocks: a level-l block is 64^l ticks (one tick on level
// 0, 64 on level 1, 4096 on level 2, ...). Level l has 128 slots, one per
// level-l block, covering a window of two level-(l+1) blocks: the one cur is
// in and the next. A timer goes to the lowest level whose window holds its
// tick, in the slot of its level-l block (block mod 128). So, with b the
// level-l block cur is in:
//
//   - a timer on level l is due in block b+1 or later, and before the end of
//     the window;
//   - block b+1's slot is the pending one: its timers are due within two
//     level-l blocks, inside level l-1's window, and are being moved down.
//     Each step of the wheel moves a share of them (what is left divided by
//     the ticks left before block b+1 begins), so that a slot of many
//     thousands of timers (a busy 64 ms on level 1) is re-placed a little
//     per tick instead of in one burst that would make the timers due at
//     that moment late. Whatever is still there when block b+1 begins is
//     moved then;
//   - every slot of level l >= 1 holding timers is an event at the start of
//     its block, and a slot too big to move in one go (moveBurst) adds
//     events from the start of the block before, paced so that each moves
//     about moveBurst timers; level-0 slots are events at their tick. The
//     next event is the earliest of them, found with a bit scan per level;
//     an idle span is skipped in one step, never walked tick by tick.
//
// Add and cancel are O(1): finding the level (at most wheelLevels shifts and
// compares), an append or a swap with the slot's last entry, and a bitmap
// update. Slots are arrays of (timer, tick) entries rather than linked
// lists: moving a slot walks an array and stores each timer's new place
// without loading the timer, so the CPU overlaps the cache misses of many
// timers instead of chasing a chain of them one by one. The order within a
// slot is irrelevant because each tick's batch is sorted before it fires.
//
// A timer due at tick t fires when cur reaches t, and t is its deadline
// rounded up to a whole tick, so a timer never fires early. Timers firing at
// the same tick fire in (deadline, insertion) order, which makes equal
// deadlines fire in insertion order however they reached the tick. Deadlines
// are non-negative int64 nanoseconds, so ticks stay below 2^44 and the top
// level's window (2^49 ticks) holds every deadline directly: no timer is
// ever parked at the far edge and re-placed.
const (
	wheelBits   = 6
	wheelSlots  = 2 << wheelBits // two blocks of the level above
	wheelLevels = 8
	maxTicks    = int64(1)<<(wheelBits*wheelLevels) - 1

	// An emptied slot keeps its array for reuse up to slotKeep entries and
	// the batch up to batchKeep; bigger ones go back to the garbage
	// collector, so that a burst of timers does not pin memory.
	slotKeep  = 256
	batchKeep = 1 << 14

	// Moving moveBurst timers down takes some 10 to 25 µs: slots up to that
	// size move in one go, bigger ones a share per wake-up.
	moveBurst = 256
)

// Timer states.
const (
	timerIdle  uint8 = iota
	timerWheel       // in slots[level][slot] at idx
	timerDue         // in the due list at idx: its tick was not after cur when placed
	timerBatch       // in the batch being fired
)

// A slotEntry is a timer in a slot or the due list, with its tick at hand:
// moving it re-places it without loading the timer, only storing its new
// place.
type slotEntry struct {
	t    *Timer
	tick int64
}

type wheel struct {
	cur      int64 // last tick processed
	seq      uint64
	n        int // timers in slots, due list and unfired batch
	slots    [wheelLevels][wheelSlots][]slotEntry
	occupied [wheelLevels][2]uint64 // bit s%64 of word s/64 set: slots[l][s] is non-empty
	due      []slotEntry
	batch    []*Timer
}

// add schedules t, whose tick is already set, with a fresh insertion number.
func (w *wheel) add(t *Timer) {
	w.seq++
	t.seq = w.seq
	w.n++
	w.place(t, t.tick)
}

// place puts t, due at tick, in its slot (or on the due list). It stores to
// t but does not load from it.
func (w *wheel) place(t *Timer, tick int64) {
	if tick <= w.cur {
		t.state = timerDue
		t.idx = int32(len(w.due))
		w.due = append(w.due, slotEntry{t, tick})
		return
	}
	if tick > maxTicks {
		panic("loop: timer tick beyond the timing wheel's span")
	}
	// The lowest level whose window (the current and the next block of the
	// level above) holds tick.
	level := 0
	for shift := wheelBits; tick>>shift-w.cur>>shift > 1; shift += wheelBits {
		level++
	}
	slot := int(tick>>(wheelBits*level)) & (wheelSlots - 1)
	s := &w.slots[level][slot]
	t.level, t.slot, t.state, t.idx = uint8(level), uint8(slot), timerWheel, int32(len(*s))
	*s = append(*s, slotEntry{t, tick})
	w.occupied[level][slot>>6] |= 1 << (slot & 63)
}

// remove unschedules t; it reports whether t was scheduled.
func (w *wheel) remove(t *Timer) bool {
	switch t.state {
	case timerWheel:
		s := &w.slots[t.level][t.slot]
		unlinkAt(s, t)
		if len(*s) == 0 {
			w.emptied(int(t.level), int(t.slot))
		}
	case timerDue:
		unlinkAt(&w.due, t)
	case timerBatch:
		// Still referenced by the batch being fired; the state change makes
		// the batch skip it.
	default:
		return false
	}
	t.state = timerIdle
	w.n--
	return true
}

// emptied clears the occupied bit of a slot that has become empty.
func (w *wheel) emptied(level, slot int) {
	w.occupied[level][slot>>6] &^= 1 << (slot & 63)
	s := &w.slots[level][slot]
	*s = reuse(*s)
}

// unlinkAt removes t from the array it is in by moving the last entry into
// its place.
func unlinkAt(s *[]slotEntry, t *Timer) {
	a := *s
	i, last := int(t.idx), len(a)-1
	if i > last || a[i].t != t {
		panic("loop: timing wheel invariant broken: timer not where it was placed (copied while scheduled?)")
	}
	if i != last {
		a[i] = a[last]
		a[i].t.idx = int32(i)
	}
	a[last] = slotEntry{}
	*s = a[:last]
}

// reuse returns a's array emptied for reuse, or nil if it is too big to keep.
func reuse(a []slotEntry) []slotEntry {
	if cap(a) > slotKeep {
		return nil
	}
	clear(a)
	return a[:0]
}

// firstFrom returns the position, counted from slot start (0 or 64), of the
// first occupied slot of a level in window order.
func firstFrom(occ *[2]uint64, start int64) int64 {
	lo, hi := occ[0], occ[1]
	if start != 0 {
		lo, hi = hi, lo
	}
	if lo != 0 {
		return int64(bits.TrailingZeros64(lo))
	}
	return 64 + int64(bits.TrailingZeros64(hi))
}

// next returns the next tick at which advance has work, if any: a level-0
// slot's tick, or the start of a level-l block whose slot must be moved down.
// A slot of more than moveBurst timers is moved a share at a time, from the
// start of the block before its own, so it adds wake-ups as well, spaced so
// that each moves about moveBurst timers.
func (w *wheel) next() (int64, bool) {
	if len(w.due) != 0 {
		return w.cur, true
	}
	best, found := int64(math.MaxInt64), false
	for l := range wheelLevels {
		occ := &w.occupied[l]
		if occ[0]|occ[1] == 0 {
			continue
		}
		shift := wheelBits * l
		start := w.cur >> (shift + wheelBits) << wheelBits // first block of the window
		block := start + firstFrom(occ, start&(wheelSlots-1))
		e := block << shift
		if l > 0 {
			if m := int64(len(w.slots[l][block&(wheelSlots-1)])); m > moveBurst {
				if block == w.cur>>shift+1 {
					e = w.cur + max(1, (e-w.cur)*moveBurst/m) // pending: move a share
				} else {
					e = (block - 1) << shift // when it becomes pending
				}
			}
		}
		if e < best {
			best, found = e, true
		}
	}
	return best, found
}

// advance moves the wheel to tick now, calling fire for every timer due by
// then, in tick order and, within a tick, in (deadline, insertion) order.
// fire may add and remove timers, including ones in the current batch.
func (w *wheel) advance(now int64, fire func(*Timer)) {
	for {
		e, ok := w.next()
		if !ok || e > now {
			// No slot begins in between, so no slot needs moving: every
			// timer stays valid where it is.
			if now > w.cur {
				w.cur = now
			}
			return
		}
		if e > w.cur {
			old := w.cur
			w.cur = e
			// Bottom up: a level's slots are emptied of begun blocks before
			// the level above moves timers into them.
			for l := 1; l < wheelLevels; l++ {
				if old>>(wheelBits*l) == e>>(wheelBits*l) {
					break // no higher block boundary crossed either
				}
				w.moveBegun(l)
			}
			slot := int(e & (wheelSlots - 1))
			w.collect(&w.slots[0][slot])
			w.occupied[0][slot>>6] &^= 1 << (slot & 63)
		}
		w.collect(&w.due)
		w.fireBatch(fire)
		w.progress()
	}
}

// moveBegun moves down every level-l timer whose block has begun, now that
// cur has entered a new level-l block.
func (w *wheel) moveBegun(l int) {
	shift := wheelBits * l
	cur := w.cur >> shift
	for word := range 2 {
		for left := w.occupied[l][word]; left != 0; left &= left - 1 {
			slot := word*64 + bits.TrailingZeros64(left)
			if w.slots[l][slot][0].tick>>shift <= cur {
				w.move(l, slot, math.MaxInt)
			}
		}
	}
}

// progress moves a share of every pending slot (the slot of the block after
// cur's, on each level): what is left divided by the ticks left before that
// block begins, so the slot is empty when it does, and at least moveBurst
// (next spaces the wake-ups of a slot by that many timers).
func (w *wheel) progress() {
	for l := 1; l < wheelLevels; l++ {
		shift := wheelBits * l
		next := w.cur>>shift + 1
		slot := int(next & (wheelSlots - 1))
		m := int64(len(w.slots[l][slot]))
		if m == 0 {
			continue
		}
		left := next<<shift - w.cur // >= 1
		w.move(l, slot, int(max((m+left-1)/left, moveBurst)))
	}
}

// move re-places up to k timers of slots[l][slot], from its end, lower down.
func (w *wheel) move(l, slot, k int) {
	s := &w.slots[l][slot]
	a := *s
	for k > 0 && len(a) > 0 {
		e := a[len(a)-1]
		a[len(a)-1] = slotEntry{}
		a = a[:len(a)-1]
		w.place(e.t, e.tick) // never back into this slot: its block is near
		k--
	}
	*s = a
	if len(a) == 0 {
		w.emptied(l, slot)
	}
}

func (w *wheel) collect(s *[]slotEntry) {
	for _, e := range *s {
		e.t.state = timerBatch
		w.batch = append(w.batch, e.t)
	}
	*s = reuse(*s)
}

func timerOrder(a, b *Timer) int {
	if a.when != b.when {
		if a.when < b.when {
			return -1
		}
		return 1
	}
	if a.seq < b.seq {
		return -1
	}
	return 1
}

func (w *wheel) fireBatch(fire func(*Timer)) {
	batch := w.batch
	if !slices.IsSortedFunc(batch, timerOrder) {
		slices.SortFunc(batch, timerOrder) // no equal keys: seq is unique
	}
	for i, t := range batch {
		batch[i] = nil
		if t.state != timerBatch {
			continue // cancelled or re-added by an earlier callback
		}
		t.state = timerIdle
		w.n--
		fire(t)
	}
	if cap(batch) > batchKeep {
		batch = nil
	}
	w.batch = batch[:0]
}
