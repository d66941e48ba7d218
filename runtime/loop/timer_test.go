//go:build linux

package loop

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestTimersRealClock runs a few hundred timers and sleeping waiters with
// random short durations on the real clock: none fires before its deadline
// (the loop's Now at fire time is at or after it) and none is very late.
// Lateness includes the machine's scheduling delay, so a round whose worst
// is over the bound is repeated: a late wheel is late every round, a loaded
// machine rarely (one round saw 95 ms at a load average of 25 on 2 cores).
func TestTimersRealClock(t *testing.T) {
	const rounds = 5
	var worst time.Duration
	for round := range rounds {
		worst = timersRealClockRound(t, uint64(round))
		if worst <= 50*time.Millisecond || t.Failed() {
			return
		}
		t.Logf("round %d: worst lateness %v, over 50 ms; again", round, worst)
	}
	t.Errorf("worst lateness over 50 ms in all %d rounds (last %v)", rounds, worst)
}

// timersRealClockRound runs one round of TestTimersRealClock and returns
// the worst lateness.
func timersRealClockRound(t *testing.T, seed uint64) time.Duration {
	l := newLoop(t)
	rng := rand.New(rand.NewPCG(7, 8+seed))
	const n = 300
	timers := make([]Timer, n)
	sleepers := make([]Waiter, n)
	var worst time.Duration
	left := 2 * n
	// deadline is the timer's own: Now()+d as Reset (or Sleep) computed it.
	record := func(what string, i int, tm *Timer) {
		late := l.Now() - time.Duration(tm.when)
		if late < 0 {
			t.Errorf("%s %d fired %v early", what, i, -late)
		}
		worst = max(worst, late)
		left--
	}
	for i := range n {
		d := time.Duration(rng.Int64N(int64(60 * time.Millisecond)))
		deadline := l.Now() + d
		l.Reset(&timers[i], d, func() { record("timer", i, &timers[i]) })
		if time.Duration(timers[i].when) < deadline {
			t.Fatalf("timer %d: when %v before Now+d %v", i, timers[i].when, deadline)
		}

		d = time.Duration(rng.Int64N(int64(60 * time.Millisecond)))
		w := &sleepers[i]
		w.Init(l, fnRunner(func() {
			if w.Reason() != Timeout {
				t.Errorf("sleeper %d woke with %v", i, w.Reason())
			}
			record("sleeper", i, w.deadline)
		}))
		w.Sleep(d)
	}
	runUntil(t, l, 10*time.Second, func() bool { return left == 0 })
	t.Logf("worst lateness %v over %d timers and sleepers; %+v", worst, 2*n, l.Stats())
	return worst
}

// TestIdleNoWakeups runs a loop with nothing to do for about a second: it
// must block in epoll_wait, not tick. It is stopped from another goroutine
// through Submit.
func TestIdleNoWakeups(t *testing.T) {
	t.Parallel()
	l := newLoop(t)
	done := false
	go func() {
		time.Sleep(time.Second)
		l.Submit(func() { done = true })
	}()
	start := time.Now()
	if err := l.Run(func() bool { return done }); err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	polls := l.Stats().Polls
	if el < 900*time.Millisecond {
		t.Fatalf("Run returned after %v", el)
	}
	if polls > 3 {
		t.Errorf("idle loop returned from epoll_wait %d times in %v", polls, el)
	}
	t.Logf("%d polls in %v", polls, el)
}

// TestIdleOneTimer: with a single timer 300 ms away, the loop sleeps until
// it (and the cascade points on the way), then blocks again.
func TestIdleOneTimer(t *testing.T) {
	t.Parallel()
	l := newLoop(t)
	done := false
	var firedAt time.Duration
	l.AfterFunc(300*time.Millisecond, func() { firedAt = l.Now() })
	go func() {
		time.Sleep(time.Second)
		l.Submit(func() { done = true })
	}()
	if err := l.Run(func() bool { return done }); err != nil {
		t.Fatal(err)
	}
	s := l.Stats()
	if firedAt < 300*time.Millisecond || s.TimersFired != 1 {
		t.Fatalf("timer fired at %v, %d fired", firedAt, s.TimersFired)
	}
	if s.Polls > 8 {
		t.Errorf("%d polls for one timer in a second", s.Polls)
	}
	t.Logf("%d polls, timer fired at %v", s.Polls, firedAt)
}

// TestWaitTimeout checks the poller timeout: 0 with work queued, the exact
// time to the next timer's deadline, -1 with nothing.
func TestWaitTimeout(t *testing.T) {
	l := newLoop(t)
	c := useFakeClock(l)
	if got := l.waitTimeout(); got != -1 {
		t.Fatalf("empty loop: %v, want -1", got)
	}
	var tm Timer
	l.Reset(&tm, 2500*time.Microsecond, func() {})
	if got := l.waitTimeout(); got != 2500*time.Microsecond {
		t.Fatalf("timer in 2.5 ms: %v, want 2.5ms", got)
	}
	c.now = 2*ms + 1
	if got := l.waitTimeout(); got != 500*time.Microsecond-1 {
		t.Fatalf("timer in 0.499999 ms: %v", got)
	}
	c.now = 2500 * time.Microsecond.Nanoseconds()
	if got := l.waitTimeout(); got != 0 {
		t.Fatalf("timer due: %v, want 0", got)
	}
	l.CancelTimer(&tm)
	var w Waiter
	w.Init(l, fnRunner(func() {}))
	w.Yield()
	if got := l.waitTimeout(); got != 0 {
		t.Fatalf("ready queue non-empty: %d, want 0", got)
	}
	l.RunOnce()
	l.Submit(func() {})
	if got := l.waitTimeout(); got != 0 {
		t.Fatalf("submitted work: %d, want 0", got)
	}
	l.RunOnce()
	if got := l.waitTimeout(); got != -1 {
		t.Fatalf("drained: %d, want -1", got)
	}
}
