//go:build linux

package loop

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestWakeupsRunBeforeStop is libco's active list: a waiter signalled by a
// waiter the loop is running (here one woken by a timer, after a poll that
// blocked) runs in the same iteration, before stop is asked, so a stop
// condition set by the signaller does not strand it.
func TestWakeupsRunBeforeStop(t *testing.T) {
	l := newLoop(t)
	var log []string
	var c Cond
	waiter := newWakeLog(l, &log, "C")
	signaller := newWakeLog(l, &log, "S")
	stop := false
	signaller.then = func() {
		c.Signal()
		stop = true
	}
	c.Wait(&waiter.w, -1)
	signaller.w.Sleep(5 * time.Millisecond)
	if err := l.Run(func() bool { return stop }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"S:timeout", "C:signaled"}; !slices.Equal(log, want) {
		t.Fatalf("Run returned after %v, want %v", log, want)
	}
}

// TestWakeupChainBounded: two waiters that keep waking each other run a
// bounded number of times per iteration, so a timer still fires and stop is
// still called.
func TestWakeupChainBounded(t *testing.T) {
	l := newLoop(t)
	var a, b Cond
	runs := 0
	done := false
	t.Cleanup(func() { done = true })
	var x, y *wakeLog
	var log []string
	x = newWakeLog(l, &log, "x")
	y = newWakeLog(l, &log, "y")
	x.then = func() {
		runs++
		if !done {
			b.Signal()
			a.Wait(&x.w, -1)
		}
	}
	y.then = func() {
		runs++
		if !done {
			a.Signal()
			b.Wait(&y.w, -1)
		}
	}
	b.Wait(&y.w, -1)
	x.w.Yield()
	l.AfterFunc(5*time.Millisecond, func() { done = true })
	iterations := 0
	runUntil(t, l, 5*time.Second, func() bool { iterations++; return done })
	if runs > (1+lateRounds)*iterations+2 {
		t.Fatalf("%d runs in %d iterations", runs, iterations)
	}
	if runs < 2*iterations {
		t.Fatalf("%d runs in %d iterations: the chain did not progress", runs, iterations)
	}
}

// TestStopRunFromAnotherGoroutine: an idle Run(nil) returns after StopRun
// from another goroutine, and a StopRun made while no Run runs ends the
// next Run after one iteration.
func TestStopRunFromAnotherGoroutine(t *testing.T) {
	l := newLoop(t)
	go func() {
		time.Sleep(20 * time.Millisecond)
		l.StopRun()
	}()
	done := make(chan error, 1)
	go func() { done <- l.Run(nil) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run(nil) did not return after StopRun")
	}
	if l.StopRequested() {
		t.Fatal("StopRun still pending after Run returned")
	}
	if err := l.StopRun(); err != nil {
		t.Fatal(err)
	}
	polls := l.Stats().Polls
	if err := l.Run(nil); err != nil {
		t.Fatal(err)
	}
	if n := l.Stats().Polls - polls; n != 1 {
		t.Fatalf("a pending StopRun ended Run after %d iterations, want 1", n)
	}
	l.Close()
	if err := l.StopRun(); !errors.Is(err, ErrClosed) {
		t.Fatalf("StopRun after Close: %v", err)
	}
	if err := l.Wake(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Wake after Close: %v", err)
	}
}

// TestWakeCallsStop: a quit flag set by another goroutine is seen by an
// idle loop's stop function once the goroutine calls Wake.
func TestWakeCallsStop(t *testing.T) {
	l := newLoop(t)
	var quit atomic.Bool
	go func() {
		time.Sleep(20 * time.Millisecond)
		quit.Store(true)
		l.Wake()
	}()
	var guard Timer
	expired := false
	l.Reset(&guard, 5*time.Second, func() { expired = true })
	if err := l.Run(func() bool { return quit.Load() || expired }); err != nil {
		t.Fatal(err)
	}
	if expired {
		t.Fatal("Wake did not make the loop call stop")
	}
}

// TestIdleTick: with SetIdleTick an idle loop calls stop at the cadence,
// and without it, not at all.
func TestIdleTick(t *testing.T) {
	l := newLoop(t)
	var calls atomic.Int32
	var quit atomic.Bool
	var quitAt atomic.Int64
	l.SetIdleTick(2 * time.Millisecond)
	// The flag is set once the tick has called stop 5 times (within 5 s:
	// a loaded machine may run the loop late, but an idle loop without the
	// tick would call it once); only the tick can notice it, as nothing
	// wakes the loop. If it does not within 5 s more, StopRun ends the test.
	ticked := make(chan bool, 1)
	returned := make(chan struct{})
	defer close(returned)
	go func() {
		deadline := time.Now().Add(5 * time.Second)
		for calls.Load() < 5 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		ticked <- calls.Load() >= 5
		quitAt.Store(time.Now().UnixNano())
		quit.Store(true) // no Wake: only the tick notices
		select {
		case <-returned:
		case <-time.After(5 * time.Second):
			l.StopRun()
		}
	}()
	if err := l.Run(func() bool { calls.Add(1); return quit.Load() }); err != nil {
		t.Fatal(err)
	}
	noticed := time.Since(time.Unix(0, quitAt.Load()))
	if !<-ticked {
		t.Fatalf("stop called %d times in 5 s with a 2 ms tick", calls.Load())
	}
	if noticed > 4*time.Second {
		t.Fatalf("the tick did not notice the flag: Run ended %v after it was set", noticed)
	}
	l.SetIdleTick(0)
	calls.Store(0)
	go func() {
		time.Sleep(50 * time.Millisecond)
		l.StopRun()
	}()
	if err := l.Run(func() bool { calls.Add(1); return false }); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n > 2 {
		t.Fatalf("idle loop without a tick called stop %d times", n)
	}
}

// TestZeroTimeoutDoesNotWait: 0 means "do not wait" for every operation
// with a timeout: the Try* functions fail with ErrTimeout without arming,
// the waiter-level arms wake with Timeout at once unless the source is
// ready already.
func TestZeroTimeoutDoesNotWait(t *testing.T) {
	l := newLoop(t)
	var log []string
	r := newWakeLog(l, &log, "r")
	rfd, wfd := socketpair(t)

	buf := make([]byte, 8)
	if n, wait, err := l.TryRead(&r.w, rfd, buf, 0); wait || !errors.Is(err, ErrTimeout) || n != 0 {
		t.Fatalf("TryRead(0) on an empty socket: %d %v %v", n, wait, err)
	}
	if r.w.Armed() || r.w.Queued() || l.Stats().Armed != 0 {
		t.Fatal("TryRead(0) armed the waiter")
	}
	// TryReadStream after a short read would wait without reading; with 0
	// it reads.
	write(t, wfd, "ab")
	if n, _, err := l.TryReadStream(&r.w, rfd, buf, -1); n != 2 || err != nil {
		t.Fatalf("TryReadStream: %d %v", n, err)
	}
	write(t, wfd, "cd")
	if n, wait, err := l.TryReadStream(&r.w, rfd, buf, 0); n != 2 || wait || err != nil {
		t.Fatalf("TryReadStream(0) after a short read: %d %v %v", n, wait, err)
	}
	// A full socket buffer: TryWrite(0) writes what fits and times out.
	_, full := socketpair(t)
	big := make([]byte, 1<<22)
	if n, wait, err := l.TryWrite(&r.w, full, big, 0); wait || !errors.Is(err, ErrTimeout) || n == 0 || n == len(big) {
		t.Fatalf("TryWrite(0) into a full socket: %d %v %v", n, wait, err)
	}
	lfd := listenTCP(t)
	if _, _, wait, err := l.TryAccept(&r.w, lfd, 0); wait || !errors.Is(err, ErrTimeout) {
		t.Fatalf("TryAccept(0) with nothing pending: %v %v", wait, err)
	}

	var c Cond
	c.Wait(&r.w, 0)
	if c.Len() != 0 || !r.w.Queued() || r.w.Reason() != Timeout {
		t.Fatalf("Cond.Wait(0): len %d queued %v reason %v", c.Len(), r.w.Queued(), r.w.Reason())
	}
	l.RunOnce()
	r.w.Park(0)
	if !r.w.Queued() || r.w.Reason() != Timeout {
		t.Fatalf("Park(0): queued %v reason %v", r.w.Queued(), r.w.Reason())
	}
	l.RunOnce()
	r.w.Sleep(0)
	if !r.w.Queued() || r.w.Reason() != Timeout {
		t.Fatalf("Sleep(0): queued %v reason %v", r.w.Queued(), r.w.Reason())
	}
	l.RunOnce()
	// WaitRead(0): Timeout at once, or Ready if an edge is pending.
	f, err := l.FD(rfd)
	if err != nil {
		t.Fatal(err)
	}
	l.RunOnce() // consume the edges so far
	f.readEdge = false
	if err := f.WaitRead(&r.w, 0); err != nil || !r.w.Queued() || r.w.Reason() != Timeout {
		t.Fatalf("WaitRead(0) with nothing pending: %v queued %v reason %v", err, r.w.Queued(), r.w.Reason())
	}
	l.RunOnce()
	write(t, wfd, "x")
	// The edge arrives with no reader and is remembered (a poller may take
	// more than one iteration to report it).
	for t0 := time.Now(); !f.readEdge && time.Since(t0) < 5*time.Second; {
		l.RunOnce()
		time.Sleep(time.Millisecond)
	}
	if err := f.WaitRead(&r.w, 0); err != nil || r.w.Reason() != Ready {
		t.Fatalf("WaitRead(0) with an edge pending: %v reason %v", err, r.w.Reason())
	}
	l.RunOnce()
	if l.Stats().TimersFired != 0 {
		t.Fatalf("zero timeouts used the timing wheel: %d timers fired", l.Stats().TimersFired)
	}
}

// listenTCP returns a non-blocking TCP socket listening on 127.0.0.1.
func listenTCP(t testing.TB) int {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeQuiet(fd) })
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 16); err != nil {
		t.Fatal(err)
	}
	return fd
}
