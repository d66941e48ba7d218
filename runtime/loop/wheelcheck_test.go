//go:build linux

package loop

import "fmt"

// check verifies the wheel's invariants and returns the first violation:
// occupied bits match the slots; every entry's timer knows its place; every
// level-l timer is due in the block after cur's (pending) or later, within
// the level's window, in the slot of its block, and on the lowest level
// that can hold it unless pending; the near heap is a heap of timers whose
// tick is not after cur; the count is right.
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
				if t.state != timerWheel || int(t.level) != l || int(t.slot) != s || int(t.idx) != i || t.when != e.when {
					return fmt.Errorf("level %d slot %d idx %d: timer says state %d level %d slot %d idx %d when %d/%d", l, s, i, t.state, t.level, t.slot, t.idx, t.when, e.when)
				}
				tick := e.when / tickNs
				blk := tick >> shift
				if blk < b+1 || blk >= start+wheelSlots || int(blk&(wheelSlots-1)) != s {
					return fmt.Errorf("level %d slot %d: tick %d block %d outside [%d, %d) cur %d", l, s, tick, blk, b+1, start+wheelSlots, w.cur)
				}
				if l > 0 {
					// must not belong lower, unless pending
					if blk != b+1 && tick>>shift-w.cur>>shift <= 1 {
						return fmt.Errorf("level %d: tick %d belongs lower", l, tick)
					}
				}
				n++
			}
		}
	}
	stale := 0
	for i, e := range w.near {
		if i > 0 && e.less(&w.near[(i-1)/2]) {
			return fmt.Errorf("near %d: heap order broken", i)
		}
		if !e.live() {
			stale++
			continue
		}
		if t := e.t; t.when != e.when || e.when/tickNs > w.cur {
			return fmt.Errorf("near %d: when %d/%d cur %d", i, t.when, e.when, w.cur)
		}
		n++
	}
	if stale != w.stale {
		return fmt.Errorf("%d stale entries in near, counted %d", stale, w.stale)
	}
	if n != w.n {
		return fmt.Errorf("n = %d, counted %d", w.n, n)
	}
	return nil
}
