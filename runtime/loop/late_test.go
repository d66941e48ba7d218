//go:build linux && !cogen_netpoll

package loop

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// These tests count runs between a write and its fd event, which is exact
// with epoll only: the portable poller (cogen_netpoll) delivers an edge a
// moment after the write.

// TestFDEventWithinLateRounds: while a waiter keeps requeueing itself, an
// fd that becomes readable wakes its waiter after at most 1+lateRounds runs
// of the requeueing one: the iteration that saw the write ends, the next
// poll delivers the event, and the fd waiter runs in that iteration's first
// round, and not sooner: the iteration does not poll in between. The fake
// clock keeps the time budget out of it, so the count is exact.
func TestFDEventWithinLateRounds(t *testing.T) {
	l := newLoop(t)
	useFakeClock(l)
	r, w := pipe(t)
	f := register(t, l, r)
	fw := newFDWaiter(l)
	if err := f.WaitRead(&fw.w, -1); err != nil {
		t.Fatal(err)
	}
	var log []string
	y := newWakeLog(l, &log, "y")
	runs, after := 0, -1
	y.then = func() {
		runs++
		if runs == 3 {
			if _, err := unix.Write(w, []byte{1}); err != nil {
				t.Error(err)
			}
			after = 0
		} else if after >= 0 && fw.wakes == 0 {
			after++
		}
		if fw.wakes == 0 {
			y.w.Yield()
		}
	}
	y.w.Yield()
	for i := 0; fw.wakes == 0; i++ {
		if i == 10 {
			t.Fatalf("no fd event after %d iterations (%d runs)", i, runs)
		}
		if err := l.RunOnce(); err != nil {
			t.Fatal(err)
		}
	}
	// Runs 4..1+lateRounds finish the iteration of the write; the next
	// iteration's first round runs y once more, then the fd waiter.
	if want := 1 + lateRounds - 3 + 1; after != want {
		t.Fatalf("the fd waiter ran after %d more runs of a requeueing waiter, want %d", after, want)
	}
	if p := l.Stats().Polls; p != 2 {
		t.Fatalf("%d polls, want 2", p)
	}
}

// TestLateRoundsTimeBudget: rounds that take long end the iteration after
// lateCheckEvery rounds once lateBudget has passed since the poll, well
// before lateRounds.
func TestLateRoundsTimeBudget(t *testing.T) {
	l := newLoop(t)
	c := useFakeClock(l)
	var log []string
	y := newWakeLog(l, &log, "y")
	runs := 0
	stop := false
	t.Cleanup(func() { stop = true })
	y.then = func() {
		runs++
		c.now += int64(lateBudget / 4)
		if !stop {
			y.w.Yield()
		}
	}
	y.w.Yield()
	l.RunOnce()
	if runs != lateCheckEvery {
		t.Fatalf("%d runs in an iteration of %v rounds, want %d", runs, lateBudget/4, lateCheckEvery)
	}
	runs = 0
	c.now += int64(time.Second) // rounds that take no time
	y.then = func() {
		runs++
		if !stop {
			y.w.Yield()
		}
	}
	l.RunOnce()
	if runs != 1+lateRounds {
		t.Fatalf("%d runs in an iteration of instant rounds, want %d", runs, 1+lateRounds)
	}
}
