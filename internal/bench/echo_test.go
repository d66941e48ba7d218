//go:build unix

package bench

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// busyLoop makes a loaded machine inside the process: GOMAXPROCS 1 and
// spinning goroutines, so that a goroutine made runnable (the loop's, back
// from epoll_wait) waits about hogs×10 ms for the processor. It returns
// the function that undoes it.
func busyLoop(hogs int) func() {
	prev := runtime.GOMAXPROCS(1)
	var stop atomic.Bool
	for range hogs {
		go func() {
			for !stop.Load() {
			}
		}()
	}
	return func() { stop.Store(true); runtime.GOMAXPROCS(prev) }
}

// A loop whose goroutine waits long for a processor after the end of the
// load still observes the stop request: that is no missed wake-up. (The
// check runUntilDone replaced, "Run has not returned 100 ms after the end"
// at a 250 ms watchdog tick, reported one here in 7 of 18 runs; this test
// makes 3.)
func TestRunUntilDoneLateLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("a second of spinning goroutines")
	}
	for i := range 3 {
		l, err := loop.New()
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		undo := busyLoop(30)
		go func() { time.Sleep(50 * time.Millisecond); close(done) }()
		err = runUntilDone(l, done, (*loop.Loop).Submit, 250*time.Millisecond, 5*time.Second)
		undo()
		l.Close()
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
}

// A stop request that never reaches the loop (a lost wake-up, made here by
// a submit that drops the func) is reported, not waited for forever.
func TestRunUntilDoneLostWakeup(t *testing.T) {
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	done := make(chan struct{})
	close(done)
	lose := func(*loop.Loop, func()) error { return nil }
	err = runUntilDone(l, done, lose, 10*time.Millisecond, 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "missed the wake-up") {
		t.Fatalf("a lost wake-up gave %v", err)
	}
}
