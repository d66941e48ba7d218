//go:build linux

package loop

import (
	"os"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fnRunner adapts a func to Runner.
type fnRunner func()

func (f fnRunner) Run() { f() }

// newLoop returns a loop that is closed when the test ends.
func newLoop(t testing.TB) *Loop {
	t.Helper()
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// awaitSeen runs l until the poller has delivered one of the event bits ev
// for f. One iteration suffices with epoll; the portable poller delivers
// edges from its watcher goroutines a moment later, each direction's on
// its own: waiting for any event at all (as this did) could return on a
// socket's writability edge before the read edge the test waits for,
// under load (TestEdgeNotLost, -tags cogen_netpoll -count=20 beside two
// CPU hogs).
func awaitSeen(t testing.TB, l *Loop, f *FD, ev Events) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := l.RunOnce(); err != nil {
			t.Fatal(err)
		}
		if f.Seen()&ev != 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no event %#x delivered for fd %d in 5s", ev, f.Fd())
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// fakeClock replaces l's clock with one the test moves by hand.
type fakeClock struct{ now int64 }

func useFakeClock(l *Loop) *fakeClock {
	c := &fakeClock{}
	l.clock = func() int64 { return c.now }
	return c
}

// runUntil runs l until done reports true, failing the test if that takes
// longer than limit. The deadline check rides on a loop timer so that a loop
// blocked in the poller still notices.
func runUntil(t testing.TB, l *Loop, limit time.Duration, done func() bool) {
	t.Helper()
	expired := false
	var guard Timer
	l.Reset(&guard, limit, func() { expired = true })
	if err := l.Run(func() bool { return expired || done() }); err != nil {
		t.Fatal(err)
	}
	l.CancelTimer(&guard)
	if expired && !done() {
		t.Fatalf("not done after %v", limit)
	}
}

// pipe returns a non-blocking pipe closed when the test ends (unless the
// test closed an end itself: the cleanup ignores EBADF).
func pipe(t testing.TB) (r, w int) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeQuiet(p[0]); closeQuiet(p[1]) })
	return p[0], p[1]
}

// socketpair returns a connected non-blocking AF_UNIX stream pair.
func socketpair(t testing.TB) (a, b int) {
	t.Helper()
	p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeQuiet(p[0]); closeQuiet(p[1]) })
	return p[0], p[1]
}

// closed records fds that a test closed on purpose so the cleanups do not
// close a recycled number that belongs to someone else.
var closedFDs = map[int]bool{}

func closeFD(t testing.TB, fd int) {
	t.Helper()
	if err := unix.Close(fd); err != nil {
		t.Fatal(err)
	}
	closedFDs[fd] = true
}

func closeQuiet(fd int) {
	if closedFDs[fd] {
		delete(closedFDs, fd)
		return
	}
	unix.Close(fd)
}

func write(t testing.TB, fd int, s string) {
	t.Helper()
	if n, err := unix.Write(fd, []byte(s)); err != nil || n != len(s) {
		t.Fatalf("write %q: %d, %v", s, n, err)
	}
}

// openFDs counts this process's open descriptors.
func openFDs(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// checkGoroutines fails the test if the goroutine count does not come back
// to n within a second.
func checkGoroutines(t testing.TB, n int) {
	t.Helper()
	for range 100 {
		if runtime.NumGoroutine() <= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("goroutines: %d, want <= %d", runtime.NumGoroutine(), n)
}

// wakeLog is a Runner that records every wake-up of a named waiter.
type wakeLog struct {
	log  *[]string
	name string
	w    Waiter
	then func()
}

func (r *wakeLog) Run() {
	*r.log = append(*r.log, r.name+":"+r.w.Reason().String())
	if r.then != nil {
		r.then()
	}
}

func newWakeLog(l *Loop, log *[]string, name string) *wakeLog {
	r := &wakeLog{log: log, name: name}
	r.w.Init(l, r)
	return r
}
