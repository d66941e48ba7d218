//go:build linux

package loop

import (
	"bytes"
	"errors"
	"net"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// goid returns the current goroutine's id, parsed from its stack header.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.ParseUint(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return id
}

// TestSubmitConcurrent submits from many goroutines while the loop runs:
// every func runs exactly once, on the loop goroutine, and a submitter's
// funcs run in its submission order. Run it with -race.
func TestSubmitConcurrent(t *testing.T) {
	l := newLoop(t)
	const senders, each = 8, 2000
	counts := make([][]int, senders)
	last := make([]int, senders)
	for i := range counts {
		counts[i] = make([]int, each)
		last[i] = -1
	}
	loopG := goid()
	wrongG, outOfOrder := 0, 0
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range each {
				err := l.Submit(func() {
					if goid() != loopG {
						wrongG++
					}
					if i <= last[s] {
						outOfOrder++
					}
					last[s] = i
					counts[s][i]++
				})
				if err != nil {
					t.Error(err)
					return
				}
				if i%500 == 0 {
					runtime.Gosched()
				}
			}
		})
	}
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	done := false
	go func() {
		<-finished
		l.Submit(func() { done = true })
	}()
	runUntil(t, l, 20*time.Second, func() bool { return done })
	for s := range counts {
		for i, n := range counts[s] {
			if n != 1 {
				t.Fatalf("func %d/%d ran %d times", s, i, n)
			}
		}
	}
	if wrongG != 0 || outOfOrder != 0 {
		t.Fatalf("%d funcs ran off the loop goroutine, %d out of order", wrongG, outOfOrder)
	}
	if got := l.Stats().Submitted; got != senders*each+1 {
		t.Fatalf("Submitted = %d", got)
	}
	t.Logf("%+v", l.Stats())
}

// TestSubmitWakesBlockedLoop: a loop blocked in epoll_wait with no timer
// wakes for a Submit from another goroutine.
func TestSubmitWakesBlockedLoop(t *testing.T) {
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ran := make(chan struct{})
	done := false
	result := make(chan error, 1)
	go func() {
		result <- l.Run(func() bool { return done })
	}()
	time.Sleep(50 * time.Millisecond) // let it block
	if err := l.Submit(func() { done = true; close(ran) }); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-result:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Submit did not wake the loop")
	}
	<-ran
	if p := l.Stats().Polls; p > 3 {
		t.Errorf("%d polls", p)
	}
}

// TestSubmitFromLoop: a func submitted by a submitted func runs in a later
// iteration, not in the same drain.
func TestSubmitFromLoop(t *testing.T) {
	l := newLoop(t)
	var log []string
	l.Submit(func() {
		log = append(log, "outer")
		l.Submit(func() { log = append(log, "inner") })
	})
	l.RunOnce()
	if !slices.Equal(log, []string{"outer"}) {
		t.Fatalf("after one iteration: %v", log)
	}
	l.RunOnce()
	if !slices.Equal(log, []string{"outer", "inner"}) {
		t.Fatalf("after two: %v", log)
	}
}

// TestCloseWakesEveryWaiter arms a waiter of every kind, closes the loop and
// checks that each ran exactly as often as it was woken, that the poller's
// fds are released, and what the loop does after Close.
func TestCloseWakesEveryWaiter(t *testing.T) {
	before := openFDs(t)
	goroutines := runtime.NumGoroutine()
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if got := openFDs(t); got != before+pollerFDs {
		t.Fatalf("New opened %d fds, want %d", got-before, pollerFDs)
	}
	r, w := pipe(t)
	a, _ := socketpair(t)
	fr := register(t, l, r)
	fa := register(t, l, a)
	l.RunOnce()
	fill(t, a)
	consumeEdges(t, l, fa)

	var log []string
	var c Cond
	reader := newWakeLog(l, &log, "reader")
	writer := newWakeLog(l, &log, "writer")
	sleeper := newWakeLog(l, &log, "sleeper")
	parked := newWakeLog(l, &log, "parked")
	condw := newWakeLog(l, &log, "cond")
	queued := newWakeLog(l, &log, "queued")
	fr.WaitRead(&reader.w, -1)
	fa.WaitWrite(&writer.w, time.Hour)
	sleeper.w.Sleep(time.Hour)
	parked.w.Park(-1)
	c.Wait(&condw.w, -1)
	queued.w.Yield()
	// One waiter re-arms when woken by the close: it wakes again at once.
	again := newWakeLog(l, &log, "again")
	rearmed := false
	again.then = func() {
		if !rearmed {
			rearmed = true
			again.w.Sleep(time.Hour)
		}
	}
	again.w.Park(-1)
	var plain Timer
	l.Reset(&plain, time.Hour, func() { log = append(log, "timer") })
	submitted := false
	l.Submit(func() { submitted = true })
	if l.Stats().Armed != 6 {
		t.Fatalf("armed %d", l.Stats().Armed)
	}

	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(log)
	want := []string{"again:loop closed", "again:loop closed", "cond:loop closed", "parked:loop closed", "queued:ready", "reader:loop closed", "sleeper:loop closed", "writer:loop closed"}
	if !slices.Equal(log, want) {
		t.Fatalf("woken: %v\nwant   %v", log, want)
	}
	if !submitted {
		t.Error("func submitted before Close did not run")
	}
	if s := l.Stats(); s.Armed != 0 || s.FDs != 0 || l.Pending() != 0 || c.Len() != 0 {
		t.Fatalf("after Close: %+v pending %d cond %d", s, l.Pending(), c.Len())
	}
	if l.Lookup(r) != nil || l.Lookup(a) != nil {
		t.Fatal("registrations survive Close")
	}
	// The fds belong to their owners: still open.
	if _, err := unix.Write(w, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := unix.FcntlInt(uintptr(r), unix.F_GETFD, 0); err != nil {
		t.Fatal(err)
	}

	// After Close: waits wake at once with LoopClosed, Run and Submit fail.
	n := len(log)
	sleeper.w.Sleep(time.Hour)
	if !sleeper.w.Queued() || sleeper.w.Reason() != LoopClosed {
		t.Fatalf("Sleep after Close: queued %v reason %v", sleeper.w.Queued(), sleeper.w.Reason())
	}
	if err := fr.WaitRead(&reader.w, -1); err != nil || reader.w.Reason() != LoopClosed {
		t.Fatalf("WaitRead after Close: %v, %v", err, reader.w.Reason())
	}
	c.Wait(&condw.w, -1)
	if condw.w.Reason() != LoopClosed || c.Len() != 0 {
		t.Fatalf("Cond.Wait after Close: %v", condw.w.Reason())
	}
	if err := l.Run(nil); !errors.Is(err, ErrClosed) || !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Run after Close: %v", err)
	}
	if len(log) != n+3 || l.Pending() != 0 {
		t.Fatalf("Run after Close did not run the late waiters: %v", log[n:])
	}
	if err := l.RunOnce(); !errors.Is(err, ErrClosed) {
		t.Fatalf("RunOnce after Close: %v", err)
	}
	if err := l.Submit(func() {}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Submit after Close: %v", err)
	}
	if _, err := l.Register(w); !errors.Is(err, ErrClosed) {
		t.Fatalf("Register after Close: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if !l.Closed() {
		t.Fatal("Closed() = false")
	}
	if got := openFDs(t); got != before+4 { // the pipe and the socketpair remain
		t.Fatalf("fds: %d before, %d after Close (want +4 for the test's own)", before, got)
	}
	checkGoroutines(t, goroutines)
}

// TestCloseFromInsideRun: Close called by a waiter during Run ends Run after
// that iteration, and waiters armed after the Close (by the rest of the
// iteration) still run.
func TestCloseFromInsideRun(t *testing.T) {
	before := openFDs(t)
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var log []string
	closer := newWakeLog(l, &log, "closer")
	late := newWakeLog(l, &log, "late")
	other := newWakeLog(l, &log, "other")
	closer.then = func() {
		if err := l.Close(); err != nil {
			t.Error(err)
		}
		late.w.Sleep(time.Hour) // armed after Close: wakes at once
	}
	other.w.Park(-1)
	closer.w.Sleep(10 * time.Millisecond)
	done := make(chan error, 1)
	go func() { done <- l.Run(nil) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after Close")
	}
	slices.Sort(log)
	want := []string{"closer:timeout", "late:loop closed", "other:loop closed"}
	if !slices.Equal(log, want) {
		t.Fatalf("got %v, want %v", log, want)
	}
	if l.Pending() != 0 || l.Stats().Armed != 0 {
		t.Fatal("waiters left behind")
	}
	if got := openFDs(t); got != before {
		t.Fatalf("fds: %d before, %d after", before, got)
	}
}

// TestSubmitCloseRace: Submit racing with Close either runs the func or
// returns ErrClosed, never both, never neither; nothing writes to a closed
// eventfd.
func TestSubmitCloseRace(t *testing.T) {
	for range 20 {
		l, err := New()
		if err != nil {
			t.Fatal(err)
		}
		var ran [4][200]int
		var refused [4]int
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := range 200 {
					if err := l.Submit(func() { ran[g][i]++ }); err != nil {
						if !errors.Is(err, ErrClosed) {
							t.Error(err)
						}
						refused[g]++
						ran[g][i]-- // mark: refused
					}
				}
			})
		}
		time.Sleep(time.Duration(len(ran)) * time.Microsecond)
		l.RunOnce()
		l.Close()
		wg.Wait()
		for g := range ran {
			for i, n := range ran[g] {
				if n != 1 && n != -1 {
					t.Fatalf("func %d/%d: %d", g, i, n)
				}
			}
		}
	}
}

// TestRunStopAlreadyHolds: a stop condition met before Run (work done
// before it, such as coroutines whose calls all completed without a wait)
// returns at once. Run used to ask stop only after an iteration, and the
// first iteration of an idle loop blocks in the poller for good: two of
// the repository's own callers hung so under load (issue 29's campaign).
func TestRunStopAlreadyHolds(t *testing.T) {
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// An fd the loop watches with nobody writing to it: an idle loop with
	// something registered, as a conn pool leaves it.
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[1])
	f, err := l.Register(p[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	calls := 0
	result := make(chan error, 1)
	go func() { result <- l.Run(func() bool { calls++; return true }) }()
	select {
	case err := <-result:
		if err != nil || calls != 1 || l.Stats().Polls != 0 {
			t.Fatalf("Run: %v after %d stop calls and %d polls; want nil after 1 call and no poll", err, calls, l.Stats().Polls)
		}
	case <-time.After(10 * time.Second):
		l.StopRun()
		<-result
		t.Fatal("Run blocked in the poller although its stop condition held when it was called")
	}
	// One iteration: false before it, true after it.
	n := 0
	if err := l.Submit(func() {}); err != nil {
		t.Fatal(err)
	}
	if err := l.Run(func() bool { n++; return n > 1 }); err != nil || n != 2 || l.Stats().Polls != 1 {
		t.Fatalf("one iteration: %v, %d stop calls, %d polls", err, n, l.Stats().Polls)
	}
}
