//go:build linux

package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// pooledEvery is the pause between two rounds of pooledTasks.
const pooledEvery = 5 * time.Millisecond

// pooledTasks churns generated sleeper tasks through a stackless.Pool until
// the deadline: each round spawns some on reused blocks, cancels some at
// random points, runs the loop until they finish and releases them in
// random order, and checks that the tasks slept exactly the rounds they
// were spawned with (a task stepping another's frame would not), that no
// uncanceled sleep woke early, that a released handle panics, and that the
// pool never holds more blocks than were live at once.
func (s *soak) pooledTasks() {
	rng := s.rng(5)
	l, err := loop.New()
	if err != nil {
		s.fail("pooled: %v", err)
		return
	}
	defer l.Close()
	ts := newTimerStats(5)
	p := stackless.NewPool[sleeperFrame](l)
	peak := 0
	for time.Now().Before(s.deadline) {
		n := 1 + rng.IntN(32)
		peak = max(peak, n)
		hs := make([]stackless.Pooled[sleeperFrame, *sleeperFrame], n)
		tasks := make([]*stackless.Task, n)
		sleeps, n0, early0 := 0, ts.n, ts.early
		for i := range hs {
			rounds := 1 + rng.IntN(3)
			sleeps += rounds
			hs[i] = p.Spawn(*newSleeperFrame(l, ts, rounds, 2*time.Millisecond))
			tasks[i] = hs[i].Task()
		}
		if err := l.RunOnce(); err != nil {
			s.fail("pooled: %v", err)
			return
		}
		canceled := false
		for _, t := range tasks {
			if rng.IntN(6) == 0 {
				t.Cancel() // its sleeps from now on return at once
				canceled = true
			}
		}
		if err := stackless.Run(l, tasks...); err != nil {
			s.fail("pooled: %v", err)
			return
		}
		if ts.n-n0 != sleeps {
			s.fail("pooled: %d tasks slept %d times, want %d", n, ts.n-n0, sleeps)
		}
		if !canceled && ts.early != early0 {
			s.fail("pooled: %d sleeps woke early (worst %v)", ts.early-early0, ts.worst)
		}
		rng.Shuffle(n, func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })
		for _, h := range hs {
			h.Release()
		}
		if msg := panicOf(func() { hs[0].Done() }); !strings.Contains(msg, "use of a released task") {
			s.fail("pooled: a released handle's use did not panic as such: %q", msg)
		}
		if p.Free() > peak {
			s.fail("pooled: the pool holds %d blocks, at most %d were live", p.Free(), peak)
		}
		time.Sleep(pooledEvery)
	}
}

// panicOf runs f and returns what it panicked with, as text ("" if it
// returned).
func panicOf(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}
