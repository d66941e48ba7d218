//go:build linux

package loop

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestReadyQueueFIFO(t *testing.T) {
	var q readyQueue
	ws := make([]Waiter, 1000)
	next, want := 0, 0
	push := func(k int) {
		for range k {
			q.push(&ws[next%len(ws)])
			next++
		}
	}
	pop := func(k int) {
		for range k {
			w := q.pop()
			if w != &ws[want%len(ws)] {
				t.Fatalf("pop %d: got waiter %p, want %p", want, w, &ws[want%len(ws)])
			}
			want++
		}
	}
	if q.pop() != nil || q.len() != 0 {
		t.Fatal("empty queue")
	}
	// Interleave pushes and pops so the ring wraps, then grow it while
	// wrapped: growth must keep the order.
	push(50)
	pop(30)
	push(40) // 60 queued in a ring of 64, wrapped
	pop(10)
	push(100) // grows from 64 to 256 with head in the middle
	if q.len() != 150 || len(q.buf) != 256 {
		t.Fatalf("len %d cap %d", q.len(), len(q.buf))
	}
	pop(150)
	for i := range 20 {
		push(i * 7 % 13)
		pop(q.len() / 2)
	}
	pop(q.len())
	if q.pop() != nil || q.len() != 0 {
		t.Fatal("not empty at the end")
	}
	for i, w := range q.buf {
		if w != nil {
			t.Fatalf("slot %d still references a waiter", i)
		}
	}
}

// TestWakeNoOps: waking a waiter that is queued, idle (never armed or
// already run) or killed does nothing.
func TestWakeNoOps(t *testing.T) {
	l := newLoop(t)
	var log []string
	a := newWakeLog(l, &log, "a")
	a.w.Wake(Ready) // idle, never armed
	a.w.Park(-1)
	a.w.Wake(Ready)
	a.w.Wake(Timeout) // already queued
	a.w.Cancel()
	if l.Pending() != 1 || !a.w.Queued() || a.w.Reason() != Ready {
		t.Fatalf("pending %d, reason %v", l.Pending(), a.w.Reason())
	}
	l.RunOnce()
	a.w.Wake(Ready) // idle after running
	l.RunOnce()
	a.w.Park(-1)
	a.w.Kill()
	a.w.Wake(Ready) // dead
	l.RunOnce()
	if !slices.Equal(log, []string{"a:ready"}) {
		t.Fatalf("log %v", log)
	}
	if s := l.Stats(); s.Runs != 1 || s.Armed != 0 {
		t.Fatalf("stats %+v", s)
	}
	// A killed waiter can be reused after Init.
	a.w.Init(l, a)
	a.w.Yield()
	l.RunOnce()
	if !slices.Equal(log, []string{"a:ready", "a:ready"}) {
		t.Fatalf("log after reuse %v", log)
	}
}

// TestReadyOrderAndDisarm: woken waiters run in wake order; one disarmed or
// killed while queued is skipped.
func TestReadyOrderAndDisarm(t *testing.T) {
	l := newLoop(t)
	c := useFakeClock(l)
	var log []string
	ws := make([]*wakeLog, 6)
	for i := range ws {
		ws[i] = newWakeLog(l, &log, fmt.Sprint(i))
		ws[i].w.Park(-1)
	}
	for _, i := range []int{3, 0, 5, 1, 4, 2} {
		ws[i].w.Wake(Ready)
	}
	ws[5].w.Disarm()
	ws[1].w.Kill()
	if l.Pending() != 6 {
		t.Fatalf("pending %d", l.Pending())
	}
	l.RunOnce()
	want := []string{"3:ready", "0:ready", "4:ready", "2:ready"}
	if !slices.Equal(log, want) {
		t.Fatalf("ran %v, want %v", log, want)
	}
	if s := l.Stats(); s.Skipped != 2 || s.Runs != 4 || l.Pending() != 0 {
		t.Fatalf("stats %+v pending %d", s, l.Pending())
	}
	// Disarm of an armed waiter ends the wait silently, timeout included.
	ws[0].w.Park(time.Millisecond)
	ws[0].w.Disarm()
	c.now += int64(time.Second)
	l.RunOnce()
	if len(log) != 4 || l.wheel.n != 0 {
		t.Fatalf("disarmed waiter ran: %v", log)
	}
}

// TestYieldBoundedPerIteration: a waiter that keeps yielding runs after
// everything queued before it, at most 1+lateRounds times per iteration,
// and cannot starve timers.
func TestYieldBoundedPerIteration(t *testing.T) {
	l := newLoop(t)
	var log []string
	y := newWakeLog(l, &log, "y")
	b := newWakeLog(l, &log, "b")
	runs := 0
	fired := false
	t.Cleanup(func() { fired = true }) // before the loop's Close, which runs y until it stops
	y.then = func() {
		runs++
		if !fired {
			y.w.Yield()
		}
	}
	y.w.Yield()
	b.w.Yield()
	clock := l.clock
	useFakeClock(l) // keeps the time budget out of the first iteration's count
	l.RunOnce()
	l.clock = clock
	want := []string{"y:ready", "b:ready"}
	for range lateRounds {
		want = append(want, "y:ready")
	}
	if !slices.Equal(log, want) || runs != 1+lateRounds {
		t.Fatalf("first iteration %v", log)
	}
	polls := l.Stats().Polls
	l.AfterFunc(5*time.Millisecond, func() { fired = true })
	runUntil(t, l, 5*time.Second, func() bool { return fired })
	if s := l.Stats(); uint64(runs-1-lateRounds) > (1+lateRounds)*(s.Polls-polls) {
		t.Fatalf("%d runs in %d iterations", runs-1-lateRounds, s.Polls-polls)
	}
}

// condWaiters makes n waiters named 0..n-1 that log their wake-ups.
func condWaiters(l *Loop, log *[]string, n int) []*wakeLog {
	ws := make([]*wakeLog, n)
	for i := range ws {
		ws[i] = newWakeLog(l, log, fmt.Sprint(i))
	}
	return ws
}

func TestCondSignalFIFO(t *testing.T) {
	l := newLoop(t)
	var log []string
	var c Cond
	ws := condWaiters(l, &log, 5)
	for _, i := range []int{2, 0, 4, 1, 3} {
		c.Wait(&ws[i].w, -1)
	}
	if c.Len() != 5 {
		t.Fatalf("Len %d", c.Len())
	}
	for range 2 {
		if !c.Signal() {
			t.Fatal("Signal = false with waiters")
		}
	}
	if len(log) != 0 {
		t.Fatalf("Signal ran a waiter inline: %v", log)
	}
	if !ws[2].w.Queued() || !ws[0].w.Queued() || !ws[4].w.Armed() || c.Len() != 3 {
		t.Fatal("signalled waiters not queued")
	}
	l.RunOnce()
	if got := c.Broadcast(); got != 3 {
		t.Fatalf("Broadcast = %d, want 3", got)
	}
	if len(log) != 2 {
		t.Fatalf("Broadcast ran a waiter inline: %v", log)
	}
	l.RunOnce()
	want := []string{"2:signaled", "0:signaled", "4:signaled", "1:signaled", "3:signaled"}
	if !slices.Equal(log, want) {
		t.Fatalf("got %v, want %v", log, want)
	}
	if c.Signal() || c.Broadcast() != 0 || c.Len() != 0 {
		t.Fatal("empty cond")
	}
}

func TestCondTimeoutAndCancel(t *testing.T) {
	l := newLoop(t)
	fc := useFakeClock(l)
	var log []string
	var c Cond
	ws := condWaiters(l, &log, 3)
	c.Wait(&ws[0].w, 10*time.Millisecond)
	c.Wait(&ws[1].w, -1)
	c.Wait(&ws[2].w, 20*time.Millisecond)
	fc.now = 10*ms - 1
	l.RunOnce()
	if len(log) != 0 {
		t.Fatalf("early: %v", log)
	}
	fc.now = 10 * ms
	l.RunOnce()
	ws[1].w.Cancel()
	l.RunOnce()
	if c.Len() != 1 {
		t.Fatalf("Len %d after a timeout and a cancel", c.Len())
	}
	if !c.Signal() {
		t.Fatal("Signal found nobody")
	}
	fc.now = 30 * ms
	l.RunOnce()
	want := []string{"0:timeout", "1:canceled", "2:signaled"}
	if !slices.Equal(log, want) {
		t.Fatalf("got %v, want %v", log, want)
	}
	if l.wheel.n != 0 || l.Stats().Armed != 0 {
		t.Fatal("deadline left behind")
	}
}
