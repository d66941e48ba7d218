//go:build linux

package loop

import (
	"sync/atomic"
	"testing"
	"time"
)

// lostWakeup is how long a round trip may take before the test calls the
// wake-up lost: a loop that missed it sleeps forever (no timer is armed),
// so any bound far above scheduling delay tells the two apart.
const lostWakeup = 10 * time.Second

// TestSubmitRacesSleep hands funcs to an idle loop from another goroutine,
// one at a time, so that each Submit lands while the loop is finishing the
// previous iteration and deciding to sleep; none is lost. Every 16th round
// trip is a StopRun instead, racing Run's decision to return or to sleep,
// and Run is started again. Run it under load (two CPU hogs) and with both
// pollers (-tags cogen_netpoll).
func TestSubmitRacesSleep(t *testing.T) {
	l := newLoop(t)
	rounds := 5000
	if testing.Short() {
		rounds = 500
	}
	ran := make(chan int, 1)
	returned := make(chan error, 1)
	run := func() { go func() { returned <- l.Run(nil) }() }
	run()
	for i := range rounds {
		if i%16 == 15 {
			if err := l.StopRun(); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-returned:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(lostWakeup):
				t.Fatalf("round %d: Run did not return after StopRun", i)
			}
			run()
			continue
		}
		if err := l.Submit(func() { ran <- i }); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-ran:
			if got != i {
				t.Fatalf("round %d: func of round %d ran", i, got)
			}
		case <-time.After(lostWakeup):
			t.Fatalf("round %d: the submitted func did not run (lost wake-up)", i)
		}
	}
	l.StopRun()
	if err := <-returned; err != nil {
		t.Fatal(err)
	}
}

// TestWakeRacesSleep: a stop flag set by another goroutine and followed by
// Wake is seen by Run's stop function, however the Wake lands against the
// loop's decision to sleep.
func TestWakeRacesSleep(t *testing.T) {
	l := newLoop(t)
	rounds := 2000
	if testing.Short() {
		rounds = 200
	}
	var quit atomic.Bool
	returned := make(chan error, 1)
	for i := range rounds {
		quit.Store(false)
		go func() { returned <- l.Run(quit.Load) }()
		quit.Store(true)
		if err := l.Wake(); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-returned:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(lostWakeup):
			t.Fatalf("round %d: Run did not see the flag set before Wake", i)
		}
	}
}
