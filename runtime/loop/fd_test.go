//go:build linux

package loop

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fdWaiter is a waiter that records each wake-up: reason and events.
type fdWaiter struct {
	w      Waiter
	wakes  int
	reason Reason
	events Events
	at     time.Duration
}

func (f *fdWaiter) Run() {
	f.wakes++
	f.reason, f.events, f.at = f.w.Reason(), f.w.Events(), f.w.Loop().Now()
}

func newFDWaiter(l *Loop) *fdWaiter {
	f := &fdWaiter{}
	f.w.Init(l, f)
	return f
}

func register(t *testing.T, l *Loop, fd int) *FD {
	t.Helper()
	f, err := l.Register(fd)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// consumeEdges takes any remembered edge off f (the initial "writable" edge
// of a fresh registration, say), so that the next wait blocks.
func consumeEdges(t *testing.T, l *Loop, f *FD) {
	t.Helper()
	var rd, wr Waiter
	rd.Init(l, fnRunner(func() {}))
	wr.Init(l, fnRunner(func() {}))
	if err := f.WaitRead(&rd, -1); err != nil {
		t.Fatal(err)
	}
	if err := f.WaitWrite(&wr, -1); err != nil {
		t.Fatal(err)
	}
	l.RunOnce()
	rd.Disarm()
	wr.Disarm()
}

// fill writes until the kernel refuses more, returning the byte count.
func fill(t *testing.T, fd int) int {
	t.Helper()
	buf := make([]byte, 64<<10)
	total := 0
	for {
		n, err := unix.Write(fd, buf)
		if err == unix.EAGAIN {
			return total
		}
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
}

func drain(t *testing.T, fd int) int {
	t.Helper()
	buf := make([]byte, 64<<10)
	total := 0
	for {
		n, err := unix.Read(fd, buf)
		if err == unix.EAGAIN || n == 0 {
			return total
		}
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
}

// streams are the two kinds of descriptor pairs the readiness tests use.
var streams = []struct {
	name string
	open func(t testing.TB) (r, w int)
}{
	{"pipe", pipe},
	{"socketpair", socketpair},
}

func TestReadWakeup(t *testing.T) {
	for _, s := range streams {
		t.Run(s.name, func(t *testing.T) {
			l := newLoop(t)
			r, w := s.open(t)
			f := register(t, l, r)
			fw := newFDWaiter(l)
			if err := f.WaitRead(&fw.w, -1); err != nil {
				t.Fatal(err)
			}
			l.RunOnce()
			if fw.wakes != 0 {
				t.Fatalf("woke with nothing to read: %v", fw.reason)
			}
			go func() {
				time.Sleep(20 * time.Millisecond)
				unix.Write(w, []byte("hello"))
			}()
			start := l.Now()
			runUntil(t, l, 5*time.Second, func() bool { return fw.wakes > 0 })
			if fw.wakes != 1 || fw.reason != Ready || fw.events&EventIn == 0 {
				t.Fatalf("wakes %d reason %v events %#x", fw.wakes, fw.reason, fw.events)
			}
			if fw.at-start < 15*time.Millisecond {
				t.Fatalf("woke after %v, before the write", fw.at-start)
			}
			var buf [16]byte
			if n, _ := unix.Read(r, buf[:]); string(buf[:n]) != "hello" {
				t.Fatalf("read %q", buf[:n])
			}
			if s := l.Stats(); s.Armed != 0 || s.Events == 0 || s.Runs != 1 {
				t.Fatalf("stats %+v", s)
			}
		})
	}
}

func TestWriteWakeup(t *testing.T) {
	for _, s := range streams {
		t.Run(s.name, func(t *testing.T) {
			l := newLoop(t)
			r, w := s.open(t)
			f := register(t, l, w)
			l.RunOnce()
			n := fill(t, w)
			consumeEdges(t, l, f)
			fw := newFDWaiter(l)
			if err := f.WaitWrite(&fw.w, -1); err != nil {
				t.Fatal(err)
			}
			l.RunOnce()
			if fw.wakes != 0 {
				t.Fatalf("woke on a full %s: %v %#x", s.name, fw.reason, fw.events)
			}
			drained := make(chan int)
			go func() {
				time.Sleep(20 * time.Millisecond)
				total := 0
				var buf [64 << 10]byte
				for total < n {
					m, err := unix.Read(r, buf[:])
					if err == unix.EAGAIN {
						time.Sleep(time.Millisecond)
						continue
					}
					if err != nil {
						break
					}
					total += m
				}
				drained <- total
			}()
			runUntil(t, l, 5*time.Second, func() bool { return fw.wakes > 0 })
			if fw.reason != Ready || fw.events&EventOut == 0 {
				t.Fatalf("reason %v events %#x", fw.reason, fw.events)
			}
			if got := <-drained; got != n {
				t.Fatalf("drained %d of %d", got, n)
			}
			if _, err := unix.Write(w, []byte("x")); err != nil {
				t.Fatalf("write after wake: %v", err)
			}
		})
	}
}

// TestEdgeNotLost: with edge-triggered registration, readiness that arrived
// while nobody waited must wake the next wait at once.
func TestEdgeNotLost(t *testing.T) {
	for _, s := range streams {
		t.Run(s.name, func(t *testing.T) {
			l := newLoop(t)
			r, w := s.open(t)
			f := register(t, l, r)
			l.RunOnce()
			write(t, w, "a") // the edge arrives with no reader
			awaitSeen(t, l, f, EventIn)
			fw := newFDWaiter(l)
			if err := f.WaitRead(&fw.w, -1); err != nil {
				t.Fatal(err)
			}
			if !fw.w.Queued() || fw.w.Reason() != Ready || fw.w.Events()&EventIn == 0 {
				t.Fatalf("queued %v reason %v events %#x: the remembered edge did not wake the wait", fw.w.Queued(), fw.w.Reason(), fw.w.Events())
			}
			l.RunOnce()
			if fw.wakes != 1 {
				t.Fatalf("wakes %d", fw.wakes)
			}
			// The edge was consumed: after draining, a new wait blocks.
			drain(t, r)
			f.WaitRead(&fw.w, -1)
			l.RunOnce()
			if fw.wakes != 1 || !fw.w.Armed() {
				t.Fatalf("second wait did not block: wakes %d", fw.wakes)
			}
			fw.w.Disarm()
		})
	}
	t.Run("before-register", func(t *testing.T) {
		// Data already buffered when the fd is registered is reported by the
		// registration itself.
		l := newLoop(t)
		r, w := pipe(t)
		write(t, w, "early")
		f := register(t, l, r)
		fw := newFDWaiter(l)
		l.RunOnce()
		f.WaitRead(&fw.w, -1)
		runUntil(t, l, 5*time.Second, func() bool { return fw.wakes > 0 })
		if fw.reason != Ready {
			t.Fatalf("reason %v", fw.reason)
		}
	})
}

// TestHangup covers HUP (a pipe's writer closed) and RDHUP (a socketpair
// peer shut its write side): both wake a reader, also one that arrives
// after the event.
func TestHangup(t *testing.T) {
	t.Run("pipe-hup", func(t *testing.T) {
		l := newLoop(t)
		r, w := pipe(t)
		f := register(t, l, r)
		fw := newFDWaiter(l)
		f.WaitRead(&fw.w, -1)
		l.RunOnce()
		closeFD(t, w)
		runUntil(t, l, 5*time.Second, func() bool { return fw.wakes > 0 })
		if fw.reason != Ready || fw.events&EventHup == 0 {
			t.Fatalf("reason %v events %#x, want HUP", fw.reason, fw.events)
		}
		if n, err := unix.Read(r, make([]byte, 1)); n != 0 || err != nil {
			t.Fatalf("read after HUP: %d, %v; want EOF", n, err)
		}
		if f.Seen()&EventHup == 0 {
			t.Fatalf("Seen %#x", f.Seen())
		}
	})
	t.Run("socketpair-rdhup", func(t *testing.T) {
		l := newLoop(t)
		a, b := socketpair(t)
		f := register(t, l, a)
		fw := newFDWaiter(l)
		f.WaitRead(&fw.w, -1)
		l.RunOnce()
		if err := unix.Shutdown(b, unix.SHUT_WR); err != nil {
			t.Fatal(err)
		}
		runUntil(t, l, 5*time.Second, func() bool { return fw.wakes > 0 })
		if fw.reason != Ready || fw.events&EventRdHup == 0 {
			t.Fatalf("reason %v events %#x, want RDHUP", fw.reason, fw.events)
		}
		// The write side is still open: a's writes still go through.
		if _, err := unix.Write(a, []byte("x")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("hup-before-wait", func(t *testing.T) {
		l := newLoop(t)
		a, b := socketpair(t)
		f := register(t, l, a)
		l.RunOnce()
		closeFD(t, b)
		awaitSeen(t, l, f, EventHup|EventRdHup)
		fw := newFDWaiter(l)
		f.WaitRead(&fw.w, -1)
		if !fw.w.Queued() || fw.w.Events()&(EventHup|EventRdHup) == 0 {
			t.Fatalf("queued %v events %#x", fw.w.Queued(), fw.w.Events())
		}
		l.RunOnce()
	})
}

// TestCloseBeforeReadyWaiterRuns: a waiter woken Ready by its fd's edge
// whose fd is closed before it runs (a func submitted from another
// goroutine closes it in the same iteration: the poller delivered the
// edge, then the submitted funcs ran, then the ready queue) wakes with
// Closed, as one still armed would: the program's wait had not returned
// when the fd was closed. It woke Ready, and its retry reached the closed
// descriptor: ServeTCP's accept loop failed the group with "accept: bad
// file descriptor" under load (a late edge from the portable poller's
// watcher, then Shutdown's close of the listener), and the number could
// have been reused by then. With epoll the edge is delivered by the first
// poll, so the order is exact; the portable poller may deliver it later,
// after the close, when the waiter wakes Closed from its armed state.
func TestCloseBeforeReadyWaiterRuns(t *testing.T) {
	l := newLoop(t)
	r, w := pipe(t)
	f := register(t, l, r)
	consumeEdges(t, l, f)
	rd := newFDWaiter(l)
	if err := f.WaitRead(&rd.w, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := unix.Write(w, []byte{1}); err != nil {
		t.Fatal(err)
	}
	if err := l.Submit(func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
		closedFDs[r] = true
	}); err != nil {
		t.Fatal(err)
	}
	for rd.wakes == 0 {
		if err := l.RunOnce(); err != nil {
			t.Fatal(err)
		}
	}
	if rd.wakes != 1 || rd.reason != Closed {
		t.Fatalf("wakes %d reason %v, want one Closed", rd.wakes, rd.reason)
	}
	// The next wait of the same waiter, on another source, is not Closed.
	rd.w.Yield()
	l.RunOnce()
	if rd.wakes != 2 || rd.reason != Ready {
		t.Fatalf("after a Yield: wakes %d reason %v, want Ready", rd.wakes, rd.reason)
	}
}

// TestCloseWhileWaiting: FD.Close and FD.Unregister wake the waiters of
// both directions with Closed, and later waits fail.
func TestCloseWhileWaiting(t *testing.T) {
	for _, how := range []string{"Close", "Unregister"} {
		t.Run(how, func(t *testing.T) {
			l := newLoop(t)
			a, _ := socketpair(t)
			f := register(t, l, a)
			l.RunOnce()
			fill(t, a)
			consumeEdges(t, l, f)
			rd, wr := newFDWaiter(l), newFDWaiter(l)
			if err := f.WaitRead(&rd.w, -1); err != nil {
				t.Fatal(err)
			}
			if err := f.WaitWrite(&wr.w, time.Hour); err != nil {
				t.Fatal(err)
			}
			l.RunOnce()
			if rd.wakes+wr.wakes != 0 {
				t.Fatal("woke too soon")
			}
			fds := l.Stats().FDs
			var err error
			if how == "Close" {
				err = f.Close()
				closedFDs[a] = true
				if _, ferr := unix.FcntlInt(uintptr(a), unix.F_GETFD, 0); ferr != unix.EBADF {
					t.Errorf("fd still open after FD.Close: %v", ferr)
				}
			} else {
				err = f.Unregister()
				if _, ferr := unix.FcntlInt(uintptr(a), unix.F_GETFD, 0); ferr != nil {
					t.Errorf("Unregister closed the fd: %v", ferr)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			l.RunOnce()
			for _, fw := range []*fdWaiter{rd, wr} {
				if fw.wakes != 1 || fw.reason != Closed {
					t.Fatalf("wakes %d reason %v, want one Closed", fw.wakes, fw.reason)
				}
				if err := fw.reason.Err(); !errors.Is(err, ErrFDClosed) || !errors.Is(err, net.ErrClosed) {
					t.Fatalf("Closed.Err() = %v", err)
				}
			}
			if s := l.Stats(); s.FDs != fds-1 || s.Armed != 0 {
				t.Fatalf("stats after %s: %+v", how, s)
			}
			if l.Lookup(a) != nil {
				t.Fatal("Lookup finds an unregistered fd")
			}
			if err := f.WaitRead(&rd.w, -1); !errors.Is(err, ErrFDClosed) {
				t.Fatalf("WaitRead after %s: %v", how, err)
			}
			if err := f.Unregister(); err != nil {
				t.Fatalf("second Unregister: %v", err)
			}
			if err := f.Close(); !errors.Is(err, ErrFDClosed) {
				t.Fatalf("Close after %s: %v", how, err)
			}
			if how == "Unregister" {
				// The fd can be registered again.
				f2 := register(t, l, a)
				if l.Lookup(a) != f2 {
					t.Fatal("Lookup after re-register")
				}
			}
		})
	}
}

func TestRegisterInvalid(t *testing.T) {
	l := newLoop(t)
	r, _ := pipe(t)
	file, err := os.Create(filepath.Join(t.TempDir(), "regular"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	dead, _ := pipe(t)
	register(t, l, r)
	closeFD(t, dead) // after the Create and the registration (the portable poller dups), so nothing reuses the number
	cases := []struct {
		name string
		fd   int
		want error
	}{
		{"negative", -1, unix.EBADF},
		{"closed", dead, unix.EBADF},
		{"regular file", int(file.Fd()), unix.EPERM},
		{"huge", 1 << 30, unix.EBADF},
		{"twice", r, ErrRegistered},
	}
	for _, c := range cases {
		f, err := l.Register(c.fd)
		if err == nil || f != nil {
			t.Errorf("%s: Register(%d) = %v, %v; want an error", c.name, c.fd, f, err)
			continue
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if _, err := l.FD(c.fd); err == nil && c.name != "twice" {
			t.Errorf("%s: FD(%d) succeeded", c.name, c.fd)
		}
	}
	if l.Stats().FDs != 1 {
		t.Errorf("FDs = %d, want 1", l.Stats().FDs)
	}
	if len(l.fds) > 1<<16 {
		t.Errorf("fd table grew to %d for failed registrations", len(l.fds))
	}
	if l.Lookup(-1) != nil || l.Lookup(1<<30) != nil {
		t.Error("Lookup of an unregistered fd")
	}
}

func TestBusy(t *testing.T) {
	l := newLoop(t)
	a, _ := socketpair(t)
	f := register(t, l, a)
	l.RunOnce()
	fill(t, a)
	consumeEdges(t, l, f)
	w1, w2 := newFDWaiter(l), newFDWaiter(l)
	if err := f.WaitRead(&w1.w, -1); err != nil {
		t.Fatal(err)
	}
	if err := f.WaitRead(&w2.w, -1); !errors.Is(err, ErrBusy) {
		t.Fatalf("second reader: %v, want ErrBusy", err)
	}
	if w2.w.Armed() || w2.w.Queued() {
		t.Fatal("the refused waiter was armed")
	}
	// The other direction is free.
	if err := f.WaitWrite(&w2.w, -1); err != nil {
		t.Fatal(err)
	}
	w3 := newFDWaiter(l)
	if err := f.WaitWrite(&w3.w, -1); !errors.Is(err, ErrBusy) {
		t.Fatalf("second writer: %v, want ErrBusy", err)
	}
	// Once the reader leaves, its slot is free again.
	w1.w.Cancel()
	l.RunOnce()
	if w1.reason != Canceled || !errors.Is(w1.reason.Err(), ErrCanceled) {
		t.Fatalf("cancelled reader: %v", w1.reason)
	}
	if err := f.WaitRead(&w3.w, -1); err != nil {
		t.Fatalf("reader slot after cancel: %v", err)
	}
	w2.w.Disarm()
	w3.w.Disarm()
}

// TestWaitTimeoutFD: a read wait with a timeout wakes with Timeout, frees
// the slot, and is never early.
func TestFDWaitTimeout(t *testing.T) {
	l := newLoop(t)
	r, _ := pipe(t)
	f := register(t, l, r)
	fw := newFDWaiter(l)
	start := l.Now()
	f.WaitRead(&fw.w, 30*time.Millisecond)
	runUntil(t, l, 5*time.Second, func() bool { return fw.wakes > 0 })
	if fw.reason != Timeout || !errors.Is(fw.reason.Err(), ErrTimeout) {
		t.Fatalf("reason %v", fw.reason)
	}
	if fw.at-start < 30*time.Millisecond {
		t.Fatalf("timed out after %v", fw.at-start)
	}
	if f.reader != nil {
		t.Fatal("read slot still held")
	}
}

// TestReadyBeatsTimeout: when readiness comes first, the deadline is
// cancelled and does not fire later.
func TestReadyBeatsTimeout(t *testing.T) {
	l := newLoop(t)
	c := useFakeClock(l)
	r, w := pipe(t)
	f := register(t, l, r)
	l.RunOnce()
	fw := newFDWaiter(l)
	f.WaitRead(&fw.w, 10*time.Millisecond)
	write(t, w, "x")
	awaitSeen(t, l, f, EventIn)
	c.now += int64(time.Second)
	l.RunOnce()
	if fw.wakes != 1 || fw.reason != Ready {
		t.Fatalf("wakes %d reason %v", fw.wakes, fw.reason)
	}
	if l.wheel.n != 0 || l.Stats().TimersFired != 0 {
		t.Fatal("deadline still scheduled after the fd woke the waiter")
	}
}

func TestReasonStrings(t *testing.T) {
	var got []string
	for r := NotWoken; r <= LoopClosed+1; r++ {
		got = append(got, r.String())
	}
	want := []string{"not woken", "ready", "timeout", "signaled", "fd closed", "canceled", "loop closed", "Reason(?)"}
	if !slices.Equal(got, want) {
		t.Fatalf("%q", got)
	}
	for _, r := range []Reason{NotWoken, Ready, Signaled} {
		if r.Err() != nil {
			t.Errorf("%v.Err() = %v", r, r.Err())
		}
	}
	if !errors.Is(LoopClosed.Err(), ErrClosed) || !errors.Is(ErrClosed, net.ErrClosed) {
		t.Error("LoopClosed.Err()")
	}
}
