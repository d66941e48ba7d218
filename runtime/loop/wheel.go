package loop

import (
	"math"
	"math/bits"
)

// The timing wheel is hierarchical, with a look-ahead that spreads the
// cascades out over time, and a small heap in front of it that fires the
// timers of the current tick at their exact deadlines.
//
// Time is cut into ticks of tickNs and ticks into blocks: a level-l block
// is 64^l ticks (one tick on level 0, 64 on level 1, 4096 on level 2, ...).
// A timer's tick is its deadline rounded down to a tick. Level l has 128
// slots, one per level-l block, covering a window of two level-(l+1)
// blocks: the one cur is in and the next. A timer goes to the lowest level
// whose window holds its tick, in the slot of its level-l block (block mod
// 128). So, with b the level-l block cur is in:
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
//     an idle span is skipped in one step, never walked tick by tick;
//   - a timer whose tick is not after cur is in the near heap, ordered by
//     (deadline, insertion). Reaching a level-0 slot's tick moves its timers
//     there; advance then fires the heap's head while its deadline has
//     passed. So a timer fires at its deadline, not at its tick's end, and
//     the loop sleeps until the earliest deadline of the heap or of the next
//     level-0 slot (a scan of that slot's array), or until the next move.
//
// Add and cancel in the wheel are O(1): finding the level (at most
// wheelLevels shifts and compares), an append or a swap with the slot's
// last entry, and a bitmap update. Only a timer due within the current tick
// (or already due) goes to the heap, at O(log n) in the heap's size;
// cancelling it is O(1) amortized. Slots
// are arrays of (timer, deadline) entries rather than linked lists: moving
// a slot walks an array and stores each timer's new place without loading
// the timer, so the CPU overlaps the cache misses of many timers instead of
// chasing a chain of them one by one. The heap's entries hold their sort
// key for the same reason.
//
// A timer fires in the first advance whose now is at or after its deadline,
// never before. All timers due by then fire in that advance in (deadline,
// insertion) order, which makes equal deadlines fire in insertion order
// however they reached the heap, and timers that fell due while the loop
// was blocked fire together ordered by deadline. Deadlines are non-negative
// int64 nanoseconds, so ticks stay below 2^44 and the top level's window
// (2^49 ticks) holds every deadline directly: no timer is ever parked at the
// far edge and re-placed.
const (
	wheelBits   = 6
	wheelSlots  = 2 << wheelBits // two blocks of the level above
	wheelLevels = 8
	maxTicks    = int64(1)<<(wheelBits*wheelLevels) - 1

	// An emptied slot keeps its array for reuse up to slotKeep entries and
	// the near heap up to nearKeep; bigger ones go back to the garbage
	// collector, so that a burst of timers does not pin memory.
	slotKeep = 256
	nearKeep = 1 << 14

	// Moving moveBurst timers down takes some 10 to 25 µs: slots up to that
	// size move in one go, bigger ones a share per wake-up.
	moveBurst = 256
)

// Timer states.
const (
	timerIdle  uint8 = iota
	timerWheel       // in slots[level][slot] at idx
	timerNear        // in the near heap: its tick was not after cur
)

// A slotEntry is a timer in a slot with its deadline at hand: moving it
// re-places it without loading the timer, only storing its new place.
type slotEntry struct {
	t    *Timer
	when int64
}

// A nearEntry is a timer in the near heap with its sort key at hand, so
// that sifting compares without loading timers.
type nearEntry struct {
	when int64
	seq  uint64
	t    *Timer
}

type wheel struct {
	cur      int64 // last tick collected: every timer of a tick <= cur is in near
	seq      uint64
	n        int // timers in slots and near
	stale    int // entries in near whose timer was stopped since
	slots    [wheelLevels][wheelSlots][]slotEntry
	occupied [wheelLevels][2]uint64 // bit s%64 of word s/64 set: slots[l][s] is non-empty
	near     []nearEntry            // min-heap by (when, seq), with stale entries
}

// add schedules t, whose deadline is already set, with a fresh insertion
// number.
func (w *wheel) add(t *Timer) {
	w.seq++
	t.seq = w.seq
	w.n++
	w.place(t, t.when)
}

// place puts t, due at when, in its slot, or in the near heap if its tick is
// not after cur. Placing in a slot stores to t but does not load from it.
func (w *wheel) place(t *Timer, when int64) {
	tick := when / tickNs
	if tick <= w.cur {
		w.push(t)
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
	*s = append(*s, slotEntry{t, when})
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
	case timerNear:
		t.state = timerIdle
		w.unlinkNear()
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

// unlinkAt removes t from the slot it is in by moving the last entry into
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

// next returns the next tick at which the wheel has a slot to handle, if
// any: a level-0 slot's tick, or the start of a level-l block whose slot
// must be moved down. A slot of more than moveBurst timers is moved a share
// at a time, from the start of the block before its own, so it adds events
// as well, spaced so that each moves about moveBurst timers. level0 reports
// that the event is a level-0 slot's tick and nothing has to move then.
func (w *wheel) next() (tick int64, level0, ok bool) {
	best := int64(math.MaxInt64)
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
		if e < best || (e == best && l > 0) {
			best, level0, ok = e, l == 0, true
		}
	}
	return best, level0, ok
}

// nextAt returns the loop time at which advance next has work, if any: the
// earliest deadline in the near heap or in the next level-0 slot, or the
// start of the tick at which a slot must be moved down. It is never after a
// timer's deadline.
func (w *wheel) nextAt() (int64, bool) {
	w.dropStale()
	best, ok := int64(math.MaxInt64), false
	if len(w.near) > 0 {
		best, ok = w.near[0].when, true
	}
	e, level0, found := w.next()
	if !found || e > math.MaxInt64/tickNs {
		return best, ok || found
	}
	at := e * tickNs
	if at >= best {
		return best, true
	}
	if level0 {
		for _, s := range w.slots[0][e&(wheelSlots-1)] {
			best = min(best, s.when) // every entry is of tick e: at or after at
		}
		return best, true
	}
	return at, true
}

// advance moves the wheel to loop time now, calling fire for every timer
// due by then in (deadline, insertion) order. fire may add and remove
// timers; one it adds that is due by now fires in this advance too.
func (w *wheel) advance(now int64, fire func(*Timer)) {
	w.collect(now / tickNs)
	for len(w.near) > 0 && w.near[0].when <= now {
		e := &w.near[0]
		t, live := e.t, e.live()
		w.pop()
		if !live {
			w.stale--
			continue
		}
		t.state = timerIdle
		w.n--
		fire(t)
	}
	if len(w.near) == 0 && cap(w.near) > nearKeep {
		w.near = nil
	}
}

// collect moves the wheel to tick now: every slot event up to it is
// handled, so every timer of a tick up to now is in the near heap.
func (w *wheel) collect(now int64) {
	for {
		e, _, ok := w.next()
		if !ok || e > now {
			// No slot begins in between, so no slot needs moving: every
			// timer stays valid where it is.
			if now > w.cur {
				w.cur = now
			}
			return
		}
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
		if s := &w.slots[0][slot]; len(*s) > 0 {
			for _, se := range *s {
				w.push(se.t)
			}
			w.emptied(0, slot)
		}
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
			if w.slots[l][slot][0].when/tickNs>>shift <= cur {
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

// move re-places up to k timers of slots[l][slot], from its end, lower down
// (or into the near heap, for a begun block's timers of tick cur).
func (w *wheel) move(l, slot, k int) {
	s := &w.slots[l][slot]
	a := *s
	for k > 0 && len(a) > 0 {
		e := a[len(a)-1]
		a[len(a)-1] = slotEntry{}
		a = a[:len(a)-1]
		w.place(e.t, e.when) // never back into this slot: its block is near
		k--
	}
	*s = a
	if len(a) == 0 {
		w.emptied(l, slot)
	}
}

// The near heap is a binary min-heap of nearEntry by (when, seq). Removal
// is lazy: a stopped timer only changes state, and its entry, now stale,
// is dropped when it reaches the top or when stale entries make up most of
// the heap. So sifting moves entries within the array and never touches a
// timer: a pop costs no cache miss but the one on the timer it fires.

func (a *nearEntry) less(b *nearEntry) bool {
	return a.when < b.when || (a.when == b.when && a.seq < b.seq)
}

// live reports whether e still stands for its timer: neither stopped nor
// scheduled anew (a new schedule has a new seq).
func (e *nearEntry) live() bool { return e.t.state == timerNear && e.t.seq == e.seq }

// push adds t, which is scheduled with its deadline and insertion number
// set, to the near heap.
func (w *wheel) push(t *Timer) {
	t.state = timerNear
	w.near = append(w.near, nearEntry{t.when, t.seq, t})
	w.siftUp(len(w.near) - 1)
}

// pop removes the heap's top.
func (w *wheel) pop() {
	h := w.near
	last := len(h) - 1
	h[0] = h[last]
	h[last] = nearEntry{}
	w.near = h[:last]
	if last > 0 {
		w.siftDown(0)
	}
}

// unlinkNear accounts for a stopped timer's stale entry and, when stale
// entries are all or most of the heap, drops them.
func (w *wheel) unlinkNear() {
	w.stale++
	if w.stale < len(w.near) && (w.stale < 64 || 2*w.stale < len(w.near)) {
		return
	}
	h := w.near[:0]
	for _, e := range w.near {
		if e.live() {
			h = append(h, e)
		}
	}
	clear(w.near[len(h):])
	w.near, w.stale = h, 0
	for i := len(h)/2 - 1; i >= 0; i-- {
		w.siftDown(i)
	}
}

// dropStale pops stale entries off the top, so that the top is live.
func (w *wheel) dropStale() {
	for len(w.near) > 0 && !w.near[0].live() {
		w.pop()
		w.stale--
	}
}

func (w *wheel) siftUp(i int) {
	h := w.near
	e := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !e.less(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func (w *wheel) siftDown(i int) {
	h := w.near
	n := len(h)
	e := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].less(&h[c]) {
			c++
		}
		if !h[c].less(&e) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = e
}
