package loop

import (
	"math/bits"
	"slices"
)

// The timing wheel is hierarchical: wheelLevels levels of 64 slots, level l
// covering ticks in units of 64^l. A timer is placed by the highest 6-bit
// group in which its tick differs from the current tick, so:
//
//   - a timer on level l shares every group above l with cur, and its group-l
//     digit is strictly greater than cur's;
//   - therefore the lowest occupied level holds the next event, and that event
//     is the first occupied slot above cur's digit (found with one bit scan);
//   - when cur reaches a tick whose low 6l bits are zero, the level-l slot of
//     that tick is cascaded: its timers are placed again, lower down.
//
// Add and cancel are O(1) (an append or unlink plus a bitmap update). Finding
// the next event is O(wheelLevels). An idle span with no timers is skipped in
// one step, never walked tick by tick.
//
// A timer due at tick t fires when cur reaches t, and t is its deadline
// rounded up to a whole tick, so a timer never fires early. Deadlines are
// non-negative int64 nanoseconds, so ticks stay below 2^44 and the wheel's
// 2^48-tick span holds every deadline directly: no timer is ever parked at
// the far edge and re-placed. Timers firing at
// the same tick fire in (deadline, insertion) order, which makes equal
// deadlines fire in insertion order even when one of them was cascaded.
const (
	wheelBits   = 6
	wheelSlots  = 1 << wheelBits
	wheelLevels = 8 // 2^48 ticks: about 8900 years of 1 ms ticks
	maxTicks    = int64(1)<<(wheelBits*wheelLevels) - 1
)

// Timer states.
const (
	timerIdle  uint8 = iota
	timerWheel       // linked into a slot
	timerDue         // linked into the due list: its tick was not after cur when added
	timerBatch       // detached into the batch being fired
)

type timerList struct{ head, tail *Timer }

func (l *timerList) push(t *Timer) {
	t.prev, t.next = l.tail, nil
	if l.tail == nil {
		l.head = t
	} else {
		l.tail.next = t
	}
	l.tail = t
}

func (l *timerList) unlink(t *Timer) {
	if t.prev == nil {
		l.head = t.next
	} else {
		t.prev.next = t.next
	}
	if t.next == nil {
		l.tail = t.prev
	} else {
		t.next.prev = t.prev
	}
	t.prev, t.next = nil, nil
}

type wheel struct {
	cur      int64 // last tick processed
	seq      uint64
	n        int // timers in slots, due list and unfired batch
	slots    [wheelLevels][wheelSlots]timerList
	occupied [wheelLevels]uint64 // bit d set: slots[l][d] is non-empty
	due      timerList
	batch    []*Timer
}

// add schedules t, whose tick is already set, with a fresh insertion number.
func (w *wheel) add(t *Timer) {
	w.seq++
	t.seq = w.seq
	w.n++
	w.place(t)
}

func (w *wheel) place(t *Timer) {
	if t.tick <= w.cur {
		t.state = timerDue
		w.due.push(t)
		return
	}
	if t.tick > maxTicks {
		panic("loop: timer tick beyond the timing wheel's span")
	}
	level := (bits.Len64(uint64(t.tick^w.cur)) - 1) / wheelBits
	slot := int(t.tick>>(wheelBits*level)) & (wheelSlots - 1)
	t.level, t.slot, t.state = uint8(level), uint8(slot), timerWheel
	w.slots[level][slot].push(t)
	w.occupied[level] |= 1 << slot
}

// remove unschedules t; it reports whether t was scheduled.
func (w *wheel) remove(t *Timer) bool {
	switch t.state {
	case timerWheel:
		l := &w.slots[t.level][t.slot]
		l.unlink(t)
		if l.head == nil {
			w.occupied[t.level] &^= 1 << t.slot
		}
	case timerDue:
		w.due.unlink(t)
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

// next returns the next tick at which advance has work, if any.
func (w *wheel) next() (int64, bool) {
	if w.due.head != nil {
		return w.cur, true
	}
	for l := range wheelLevels {
		occ := w.occupied[l]
		if occ == 0 {
			continue
		}
		shift := uint(wheelBits * l)
		d := uint(w.cur>>shift) & (wheelSlots - 1)
		above := occ &^ (uint64(2)<<d - 1) // digits strictly greater than d
		if above == 0 {
			panic("loop: timing wheel invariant broken: occupied slot not after the current tick")
		}
		base := w.cur >> (shift + wheelBits) << (shift + wheelBits)
		return base | int64(bits.TrailingZeros64(above))<<shift, true
	}
	return 0, false
}

// advance moves the wheel to tick now, calling fire for every timer due by
// then, in tick order and, within a tick, in (deadline, insertion) order.
// fire may add and remove timers, including ones in the current batch.
func (w *wheel) advance(now int64, fire func(*Timer)) {
	for {
		e, ok := w.next()
		if !ok || e > now {
			if now > w.cur {
				w.cur = now
			}
			return
		}
		if e > w.cur {
			w.cur = e
			for l := wheelLevels - 1; l >= 1; l-- {
				if e&(int64(1)<<(wheelBits*l)-1) == 0 {
					w.cascade(l, int(e>>(wheelBits*l))&(wheelSlots-1))
				}
			}
			w.collect(&w.slots[0][e&(wheelSlots-1)])
			w.occupied[0] &^= 1 << (e & (wheelSlots - 1))
		}
		w.collect(&w.due)
		w.fireBatch(fire)
	}
}

func (w *wheel) cascade(level, slot int) {
	l := &w.slots[level][slot]
	t := l.head
	*l = timerList{}
	w.occupied[level] &^= 1 << slot
	for t != nil {
		next := t.next
		t.prev, t.next = nil, nil
		w.place(t)
		t = next
	}
}

func (w *wheel) collect(l *timerList) {
	for t := l.head; t != nil; {
		next := t.next
		t.prev, t.next = nil, nil
		t.state = timerBatch
		w.batch = append(w.batch, t)
		t = next
	}
	*l = timerList{}
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
		slices.SortStableFunc(batch, timerOrder)
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
	w.batch = batch[:0]
}
