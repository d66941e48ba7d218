//go:build linux

package loop

import "fmt"

// check verifies the wheel's invariants and returns the first violation:
// occupied bits match the slots; every entry's timer knows its place; every
// level-l timer is due in the block after cur's (pending) or later, within
// the level's window, in the slot of its block, and on the lowest level
// that can hold it unless pending; the count is right.
func (w *wheel) check() error {
	n := 0
	for l := range wheelLevels {
		shift := wheelBits * l
		b := w.cur >> shift
		start := w.cur >> (shift + wheelBits) << wheelBits
		for s := range wheelSlots {
			a := w.slots[l][s]
			bit := w.occupied[l][s>>6]>>(s&63)&1 == 1
			if bit != (len(a) > 0) {
				return fmt.Errorf("level %d slot %d: bit %v len %d", l, s, bit, len(a))
			}
			for i, e := range a {
				t := e.t
				if t.state != timerWheel || int(t.level) != l || int(t.slot) != s || int(t.idx) != i || t.tick != e.tick {
					return fmt.Errorf("level %d slot %d idx %d: timer says state %d level %d slot %d idx %d tick %d/%d", l, s, i, t.state, t.level, t.slot, t.idx, t.tick, e.tick)
				}
				blk := e.tick >> shift
				if blk < b+1 || blk >= start+wheelSlots || int(blk&(wheelSlots-1)) != s {
					return fmt.Errorf("level %d slot %d: tick %d block %d outside [%d, %d) cur %d", l, s, e.tick, blk, b+1, start+wheelSlots, w.cur)
				}
				if l > 0 {
					// must not belong lower, unless pending
					if blk != b+1 && e.tick>>shift-w.cur>>shift <= 1 {
						return fmt.Errorf("level %d: tick %d belongs lower", l, e.tick)
					}
				}
				n++
			}
		}
	}
	for i, e := range w.due {
		if e.t.state != timerDue || int(e.t.idx) != i {
			return fmt.Errorf("due %d: state %d idx %d", i, e.t.state, e.t.idx)
		}
		n++
	}
	for _, t := range w.batch {
		if t != nil && t.state == timerBatch {
			n++
		}
	}
	if n != w.n {
		return fmt.Errorf("n = %d, counted %d", w.n, n)
	}
	return nil
}
