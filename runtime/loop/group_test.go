//go:build linux

package loop

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestGroupStartShutdown starts a group: each loop runs Init, then Run, on
// a goroutine of its own locked to a thread of its own; Shutdown runs the
// OnShutdown funcs, Exit and Close on each, and leaves no goroutine or fd
// behind.
func TestGroupStartShutdown(t *testing.T) {
	gs, fds := runtime.NumGoroutine(), openFDs(t)
	const n = 3
	var mu sync.Mutex
	var log []string
	tids := map[int]int{}
	gids := map[uint64]bool{}
	g, err := StartGroup(GroupConfig{
		Loops: n,
		Init: func(i int, l *Loop) error {
			mu.Lock()
			defer mu.Unlock()
			tids[unix.Gettid()]++
			gids[goid()] = true
			return nil
		},
		Exit: func(i int, l *Loop) error {
			if l.Closed() {
				t.Errorf("loop %d closed before Exit", i)
			}
			mu.Lock()
			defer mu.Unlock()
			log = append(log, "exit")
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != n || len(tids) != n || len(gids) != n {
		t.Fatalf("Len %d, %d threads, %d goroutines; want %d of each", g.Len(), len(tids), len(gids), n)
	}
	for i := range n {
		if err := g.OnShutdown(i, func() {
			mu.Lock()
			defer mu.Unlock()
			log = append(log, "stop")
		}); err != nil {
			t.Fatal(err)
		}
	}
	// Submit reaches each loop on the goroutine (and thread) Init ran on.
	for i := range n {
		got := make(chan int, 1)
		if err := g.Submit(i, func() { got <- unix.Gettid() }); err != nil {
			t.Fatal(err)
		}
		if tid := <-got; tids[tid] != 1 {
			t.Errorf("loop %d ran a submitted func on thread %d, not one of its Init threads %v", i, tid, tids)
		}
	}
	if err := g.Shutdown(time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.Done():
	default:
		t.Fatal("Done not closed after Shutdown")
	}
	slices.Sort(log)
	if want := []string{"exit", "exit", "exit", "stop", "stop", "stop"}; !slices.Equal(log, want) {
		t.Errorf("hooks ran %v, want %v", log, want)
	}
	for i := range n {
		if !g.Loop(i).Closed() {
			t.Errorf("loop %d not closed", i)
		}
		if err := g.Submit(i, func() {}); !errors.Is(err, ErrClosed) {
			t.Errorf("Submit after Shutdown: %v, want ErrClosed", err)
		}
		if err := g.OnShutdown(i, func() {}); !errors.Is(err, ErrGroupClosed) {
			t.Errorf("OnShutdown after Shutdown: %v, want ErrGroupClosed", err)
		}
	}
	if err := g.Shutdown(time.Second); err != nil {
		t.Errorf("second Shutdown: %v", err)
	}
	checkGoroutines(t, gs)
	if got := openFDs(t); got != fds {
		t.Errorf("open fds: %d, want %d", got, fds)
	}
}

// TestGroupDefaultSize: Loops 0 means one loop per GOMAXPROCS.
func TestGroupDefaultSize(t *testing.T) {
	g, err := StartGroup(GroupConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Shutdown(0)
	if g.Len() != runtime.GOMAXPROCS(0) {
		t.Errorf("Len %d, want GOMAXPROCS %d", g.Len(), runtime.GOMAXPROCS(0))
	}
}

// TestGroupRoundRobin: Next takes the loops in turn, from any goroutine.
func TestGroupRoundRobin(t *testing.T) {
	const n, per = 3, 200
	g, err := StartGroup(GroupConfig{Loops: n})
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, n) // counts[i] is touched only by loop i
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range n * per / 4 {
				i := g.Next()
				if err := g.Submit(i, func() { counts[i]++ }); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := g.Shutdown(time.Second); err != nil {
		t.Fatal(err)
	}
	if want := []int{per, per, per}; !slices.Equal(counts, want) {
		t.Errorf("submitted funcs per loop %v, want %v", counts, want)
	}
	if first, second := g.Next(), g.Next(); (first+1)%n != second {
		t.Errorf("Next gave %d then %d", first, second)
	}
}

// TestGroupCrossLoopOrder: funcs that one loop submits to another run
// there in the order submitted, and a value handed back and forth between
// two loops arrives every time.
func TestGroupCrossLoopOrder(t *testing.T) {
	const n = 1000
	g, err := StartGroup(GroupConfig{Loops: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []int // touched only by loop 1
	done := make(chan struct{})
	g.Submit(0, func() {
		for i := range n {
			g.Submit(1, func() { got = append(got, i) })
		}
		g.Submit(1, func() { close(done) })
	})
	<-done
	// Ping-pong: each hop is a submit to the other loop.
	hops := make(chan int, 1)
	var hop func(from, k int)
	hop = func(from, k int) {
		if k == n {
			hops <- k
			return
		}
		to := 1 - from
		if err := g.Submit(to, func() { hop(to, k+1) }); err != nil {
			t.Error(err)
			hops <- k
		}
	}
	g.Submit(0, func() { hop(0, 0) })
	k := <-hops
	if err := g.Shutdown(time.Second); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("loop 1 ran func %d at position %d", v, i)
		}
	}
	if len(got) != n || k != n {
		t.Errorf("%d funcs ran, %d hops; want %d of each", len(got), k, n)
	}
}

// TestGroupShutdownInFlight: Shutdown runs the OnShutdown funcs first, then
// waits for in-flight work (here, timers counted by Idle) until it ends or
// the deadline passes; Exit then sees what is left.
func TestGroupShutdownInFlight(t *testing.T) {
	for _, tc := range []struct {
		name      string
		work      time.Duration // each loop's in-flight work
		timeout   time.Duration
		wantLeft  int
		maxElapse time.Duration
	}{
		{"finishes", 100 * time.Millisecond, 10 * time.Second, 0, 5 * time.Second},
		{"deadline", time.Hour, 100 * time.Millisecond, 1, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 2
			pending := make([]int, n) // pending[i] is touched only by loop i
			timers := make([]Timer, n)
			events := make([][]string, n)
			left := make([]int, n)
			g, err := StartGroup(GroupConfig{
				Loops: n,
				Init: func(i int, l *Loop) error {
					pending[i] = 1
					l.Reset(&timers[i], tc.work, func() {
						pending[i]--
						events[i] = append(events[i], "work done")
					})
					return nil
				},
				Idle: func(i int, l *Loop) bool { return pending[i] == 0 },
				Exit: func(i int, l *Loop) error {
					left[i] = pending[i]
					events[i] = append(events[i], "exit")
					return nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				g.OnShutdown(i, func() { events[i] = append(events[i], "stop") })
			}
			start := time.Now()
			if err := g.Shutdown(tc.timeout); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > tc.maxElapse {
				t.Errorf("Shutdown took %v", d)
			}
			want := []string{"stop", "work done", "exit"}
			if tc.wantLeft > 0 {
				want = []string{"stop", "exit"}
			}
			for i := range n {
				if left[i] != tc.wantLeft || !slices.Equal(events[i], want) {
					t.Errorf("loop %d: %d left at Exit, events %v; want %d, %v", i, left[i], events[i], tc.wantLeft, want)
				}
			}
		})
	}
}

// TestGroupFailure: a panic on one loop becomes the group's error, with its
// value and stack, and shuts every loop down, OnShutdown funcs included.
func TestGroupFailure(t *testing.T) {
	gs := runtime.NumGoroutine()
	const n = 3
	stopped := make([]bool, n)
	g, err := StartGroup(GroupConfig{Loops: n})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		g.OnShutdown(i, func() { stopped[i] = true })
	}
	g.Submit(1, func() { panic("boom") })
	select {
	case <-g.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the group did not shut down after a loop panicked")
	}
	err = g.Wait()
	if err == nil || !strings.Contains(err.Error(), "loop 1 panicked in run: boom") || !strings.Contains(err.Error(), "group_test.go") {
		t.Errorf("Wait: %v; want loop 1's panic with its stack", err)
	}
	if !slices.Equal(stopped, []bool{true, true, true}) {
		t.Errorf("OnShutdown funcs ran: %v", stopped)
	}
	checkGoroutines(t, gs)

	g, err = StartGroup(GroupConfig{Loops: n})
	if err != nil {
		t.Fatal(err)
	}
	mine := errors.New("mine")
	g.Fail(mine)
	if err := g.Wait(); !errors.Is(err, mine) {
		t.Errorf("Wait after Fail: %v", err)
	}
}

// TestGroupInitError: a failing Init fails StartGroup, and the loops that
// started are shut down.
func TestGroupInitError(t *testing.T) {
	gs, fds := runtime.NumGoroutine(), openFDs(t)
	bad := errors.New("bad init")
	var mu sync.Mutex
	exits := 0
	_, err := StartGroup(GroupConfig{
		Loops: 3,
		Init: func(i int, l *Loop) error {
			if i == 1 {
				return bad
			}
			return nil
		},
		Exit: func(i int, l *Loop) error {
			mu.Lock()
			exits++
			mu.Unlock()
			return nil
		},
	})
	if !errors.Is(err, bad) {
		t.Fatalf("StartGroup: %v, want %v", err, bad)
	}
	if exits != 2 {
		t.Errorf("Exit ran %d times, want 2 (not for the loop whose Init failed)", exits)
	}
	checkGoroutines(t, gs)
	if got := openFDs(t); got != fds {
		t.Errorf("open fds: %d, want %d", got, fds)
	}
}

// TestGroupReusePort: one ListenTCP listener per loop on the same port; the
// kernel spreads connections over them, so every loop accepts some, and
// closing the listeners through OnShutdown ends the accept loops.
func TestGroupReusePort(t *testing.T) {
	gs, fds := runtime.NumGoroutine(), openFDs(t)
	const n, conns = 2, 64
	lfds := make([]int, n)
	addr := "127.0.0.1:0"
	for i := range n {
		fd, a, err := ListenTCP("tcp4", addr, true)
		if err != nil {
			t.Fatal(err)
		}
		lfds[i], addr = fd, a.String()
	}
	if _, _, err := ListenTCP("tcp4", addr, false); err == nil {
		t.Error("a listener without SO_REUSEPORT bound the port in use")
	}
	accepted := make([][]int, n) // accepted[i]: fds accepted by loop i, touched only by it
	acceptErr := make([]error, n)
	waiters := make([]Waiter, n)
	g, err := StartGroup(GroupConfig{
		Loops: n,
		Init: func(i int, l *Loop) error {
			accept := func() {
				for {
					fd, _, wait, err := l.TryAccept(&waiters[i], lfds[i], -1)
					if wait {
						return
					}
					if err != nil {
						acceptErr[i] = err
						return
					}
					accepted[i] = append(accepted[i], fd)
				}
			}
			waiters[i].Init(l, fnRunner(func() {
				if r := waiters[i].Reason(); r != Ready {
					acceptErr[i] = r.Err()
					return
				}
				accept()
			}))
			accept()
			return nil
		},
		Exit: func(i int, l *Loop) error {
			for _, fd := range accepted[i] {
				unix.Close(fd)
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		g.OnShutdown(i, func() { g.Loop(i).Lookup(lfds[i]).Close() })
	}
	for range conns {
		c, err := net.Dial("tcp4", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	total := func() (sum int) {
		got := make(chan int)
		for i := range n {
			g.Submit(i, func() { got <- len(accepted[i]) })
		}
		for range n {
			sum += <-got
		}
		return sum
	}
	for deadline := time.Now().Add(5 * time.Second); total() < conns && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if err := g.Shutdown(time.Second); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if len(accepted[i]) == 0 || len(accepted[i]) == conns {
			t.Errorf("loop %d accepted %d of %d connections", i, len(accepted[i]), conns)
		}
		if !errors.Is(acceptErr[i], ErrFDClosed) {
			t.Errorf("loop %d's accept ended with %v, want ErrFDClosed", i, acceptErr[i])
		}
	}
	checkGoroutines(t, gs)
	if got := openFDs(t); got != fds {
		t.Errorf("open fds: %d, want %d", got, fds)
	}
}

// TestGroupShutdownFromLoop: Shutdown on one of the group's loops would
// wait for itself, so it panics; StartShutdown works there.
func TestGroupShutdownFromLoop(t *testing.T) {
	g, err := StartGroup(GroupConfig{Loops: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan any, 1)
	g.Submit(1, func() {
		defer func() { got <- recover() }()
		g.Shutdown(time.Second)
	})
	if v := <-got; v == nil || !strings.Contains(fmt.Sprint(v), "loop: Group.Shutdown or Wait called on one of the group's loops") {
		t.Errorf("Shutdown on a loop: panic %v", v)
	}
	g.Submit(0, func() { g.StartShutdown(time.Second) })
	select {
	case <-g.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("StartShutdown on a loop did not shut the group down")
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestGroupStopRunOutside: a loop of the group stopped with StopRun (or
// closed) outside the group's shutdown fails the group with an error that
// says so, instead of leaving the loop dead while the others run.
func TestGroupStopRunOutside(t *testing.T) {
	for _, how := range []string{"StopRun", "Close"} {
		g, err := StartGroup(GroupConfig{Loops: 2})
		if err != nil {
			t.Fatal(err)
		}
		g.Submit(1, func() {
			if how == "StopRun" {
				g.Loop(1).StopRun()
			} else {
				g.Loop(1).Close()
			}
		})
		select {
		case <-g.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the group did not shut down", how)
		}
		if err := g.Wait(); err == nil || !strings.Contains(err.Error(), "loop 1 stopped outside the group's shutdown") {
			t.Errorf("%s: Wait: %v", how, err)
		}
	}
}
