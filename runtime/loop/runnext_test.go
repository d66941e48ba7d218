//go:build linux

package loop

import (
	"slices"
	"testing"
	"time"
)

// A waiter woken with WakeNext runs right after the runner that woke it,
// ahead of the waiters queued before; a second WakeNext while the slot is
// taken queues at the back, as Wake does.
func TestWakeNextRunsNext(t *testing.T) {
	l := newLoop(t)
	var log []string
	a, b := newWakeLog(l, &log, "a"), newWakeLog(l, &log, "b")
	y, z := newWakeLog(l, &log, "y"), newWakeLog(l, &log, "z")
	for _, r := range []*wakeLog{a, b, y, z} {
		r.w.Park(-1)
	}
	x := newWakeLog(l, &log, "x")
	x.then = func() {
		b.w.Wake(Ready)
		y.w.WakeNext(Signaled)
		z.w.WakeNext(Signaled) // the slot is taken: z queues behind b
	}
	x.w.Park(-1)
	x.w.Wake(Ready)
	a.w.Wake(Ready)
	if got := l.Pending(); got != 2 {
		t.Fatalf("Pending = %d, want 2", got)
	}
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	want := []string{"x:ready", "y:signaled", "a:ready", "b:ready", "z:signaled"}
	if !slices.Equal(log, want) {
		t.Fatalf("runs %q, want %q", log, want)
	}
}

// A waiter disarmed while in the run-next slot does not run, and the slot
// is free again.
func TestWakeNextDisarmed(t *testing.T) {
	l := newLoop(t)
	var log []string
	y := newWakeLog(l, &log, "y")
	y.w.Park(-1)
	y.w.WakeNext(Signaled)
	if !y.w.Queued() || l.Pending() != 1 || l.PeekNext() != &y.w {
		t.Fatalf("queued %v, pending %d", y.w.Queued(), l.Pending())
	}
	y.w.Disarm()
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	if len(log) != 0 || l.Pending() != 0 {
		t.Fatalf("runs %q, pending %d", log, l.Pending())
	}
	if w := l.TakeNext(); w != nil {
		t.Fatalf("TakeNext = %p after the slot emptied", w)
	}
}

// The fairness bound: two waiters handing off to each other forever run
// at most maxRunNext times in a row from the run-next slot; then the chain
// queues at the back, and a waiter queued before runs. The chain goes on
// after it, again for at most maxRunNext hand-offs.
func TestWakeNextBound(t *testing.T) {
	l := newLoop(t)
	var log []string
	p, q := newWakeLog(l, &log, "p"), newWakeLog(l, &log, "q")
	z := newWakeLog(l, &log, "z")
	zRuns := 0
	handOff := func(self, other *wakeLog) func() {
		return func() {
			if zRuns < 3 && len(log) < 8*maxRunNext { // then the chain ends
				self.w.Park(-1)
				other.w.WakeNext(Signaled)
			}
		}
	}
	p.then, q.then = handOff(p, q), handOff(q, p)
	q.w.Park(-1)
	p.w.Yield()
	z.w.Yield() // queued behind p, before any hand-off
	z.then = func() {
		zRuns++
		if zRuns < 3 {
			z.w.Yield() // queue behind the chain again
		}
	}
	for len(log) < 8*maxRunNext && zRuns < 3 {
		if err := l.RunOnce(); err != nil {
			t.Fatal(err)
		}
	}
	// Between two runs of z, the chain makes at most maxRunNext+1 runs:
	// the one from the ring and the hand-offs that follow it.
	streak, longest, chain := 0, 0, 0
	for _, e := range log {
		if e == "z:ready" {
			chain += streak
			streak = 0
			continue
		}
		streak++
		longest = max(longest, streak)
	}
	if zRuns < 3 {
		t.Fatalf("z ran %d times in %d runs: starved by the hand-off chain", zRuns, len(log))
	}
	if longest > maxRunNext+1 {
		t.Fatalf("%d runs of the chain in a row, bound %d", longest, maxRunNext+1)
	}
	if longest < maxRunNext {
		t.Fatalf("the chain ran at most %d times in a row, want hand-offs up to the bound %d", longest, maxRunNext)
	}
	if chain < 2*maxRunNext {
		t.Fatalf("the chain ran %d times between z's runs, want it to go on after each", chain)
	}
}

// WakeNext detaches the waiter from what it was armed on: one parked with
// no timeout (WakeNext's fast path, a channel's waiter) leaves the armed
// list; one parked with a timeout also leaves the timing wheel, so its
// deadline never fires afterwards.
func TestWakeNextDetaches(t *testing.T) {
	l := newLoop(t)
	var log []string
	a, b := newWakeLog(l, &log, "a"), newWakeLog(l, &log, "b")
	a.w.Park(-1)
	b.w.Park(time.Millisecond)
	if n := l.Stats().Armed; n != 2 {
		t.Fatalf("Armed = %d, want 2", n)
	}
	a.w.WakeNext(Signaled)
	if n := l.Stats().Armed; n != 1 || !a.w.Queued() || l.PeekNext() != &a.w {
		t.Fatalf("after a's WakeNext: Armed = %d, queued %v", n, a.w.Queued())
	}
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	b.w.WakeNext(Signaled)
	if n := l.Stats().Armed; n != 0 || !b.w.Queued() {
		t.Fatalf("after b's WakeNext: Armed = %d, queued %v", n, b.w.Queued())
	}
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	if fired := l.Stats().TimersFired; fired != 0 {
		t.Fatalf("%d timers fired after b's WakeNext", fired)
	}
	if want := []string{"a:signaled", "b:signaled"}; !slices.Equal(log, want) {
		t.Fatalf("runs %q, want %q", log, want)
	}
}
