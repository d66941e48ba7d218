package cosync_test

import (
	"errors"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	. "github.com/cogen-go/cogen/runtime/cosync/internal/costest"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Three receivers block in order; values sent later go to them in that
// order, each directly (a wrong wake-up order, a lost wake-up or a value
// delivered twice changes the log).
func TestChanReceiversFIFO(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		e := NewEnv(t)
		c := cosync.NewChan[int](0)
		log := &Log{}
		for _, name := range []string{"r0", "r1", "r2"} {
			receiver(e, m, c, 2, name, log)
			e.Settle()
		}
		for v := 1; v <= 6; v++ {
			if !c.TrySend(v) {
				t.Fatalf("TrySend(%d) found no receiver", v)
			}
			if v == 3 {
				e.Settle() // the receivers run and block again, in order
			}
		}
		if c.TrySend(7) {
			t.Fatal("TrySend(7) found a receiver: one was woken twice")
		}
		e.Settle()
		wantLog(t, log, "r0 got 1", "r1 got 2", "r2 got 3", "r0 got 4", "r1 got 5", "r2 got 6")
		if !e.Done() {
			t.Fatal("receivers not done")
		}
	})
}

// Blocked senders are served in arrival order, and a buffered channel
// keeps the order of values: buffer first, then the blocked senders'.
func TestChanSendersFIFO(t *testing.T) {
	for _, size := range []int{0, 1, 3} {
		forModels(t, func(t *testing.T, m Model) {
			e := NewEnv(t)
			c := cosync.NewChan[int](size)
			log := &Log{}
			sender(e, m, c, []int{10, 11, 12}, "a", log)
			e.Settle()
			sender(e, m, c, []int{20, 21}, "b", log)
			e.Settle()
			var got []int
			for {
				v, ok, ready := c.TryRecv()
				if !ready {
					e.Settle()
					if v, ok, ready = c.TryRecv(); !ready {
						break
					}
				}
				if !ok {
					t.Fatal("closed")
				}
				got = append(got, v)
			}
			var want []int
			switch size {
			case 0: // a blocks on 10, b on 20: served alternately as each comes back
				want = []int{10, 20, 11, 21, 12}
			case 1: // 10 buffered, a blocks on 11, b on 20
				want = []int{10, 11, 20, 12, 21}
			case 3: // 10 11 12 buffered, b blocks on 20
				want = []int{10, 11, 12, 20, 21}
			}
			if !equalInts(got, want) {
				t.Fatalf("size %d: received %v, want %v", size, got, want)
			}
			if !e.Done() {
				t.Fatal("senders not done")
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Close wakes every blocked receiver with false, and a receive after it
// drains the buffer first.
func TestChanCloseWakesReceivers(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		e := NewEnv(t)
		c := cosync.NewChan[int](0)
		log := &Log{}
		receiver(e, m, c, -1, "r0", log)
		receiver(e, m, c, -1, "r1", log)
		e.Settle()
		c.Close()
		e.Settle()
		wantLog(t, log, "r0 closed", "r1 closed")

		b := cosync.NewChan[int](2)
		b.TrySend(1)
		b.TrySend(2)
		b.Close()
		log2 := &Log{}
		receiver(e, m, b, -1, "d", log2)
		e.RunUntilDone(5 * time.Second)
		wantLog(t, log2, "d got 1", "d got 2", "d closed")
	})
}

// A sender blocked when the channel closes panics, as in Go.
func TestChanCloseBlockedSenderPanics(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		e := NewEnv(t)
		c := cosync.NewChan[int](0)
		log := &Log{}
		sender(e, m, c, []int{1}, "s", log)
		e.Settle()
		c.Close()
		msg := mustPanic(t, func() { e.Settle() })
		if msg != "cosync: send on closed channel" {
			t.Fatalf("panic %q", msg)
		}
	})
}

func TestChanMisusePanics(t *testing.T) {
	c := cosync.NewChan[int](1)
	c.Close()
	if msg := mustPanic(t, func() { c.Close() }); msg != "cosync: close of closed channel" {
		t.Fatalf("close twice: %q", msg)
	}
	if msg := mustPanic(t, func() { c.TrySend(1) }); msg != "cosync: send on closed channel" {
		t.Fatalf("send on closed: %q", msg)
	}
	var nilc *cosync.Chan[int]
	if msg := mustPanic(t, func() { nilc.Close() }); msg != "cosync: close of nil channel" {
		t.Fatalf("close of nil: %q", msg)
	}
	if nilc.TrySend(1) {
		t.Fatal("TrySend on nil channel succeeded")
	}
	if _, _, ready := nilc.TryRecv(); ready {
		t.Fatal("TryRecv on nil channel was ready")
	}
	mustPanic(t, func() { cosync.NewChan[int](-1) })
}

// Timeouts: 0 is an immediate try, a positive one gives up with
// ErrTimeout and leaves nothing behind (a later send is not taken by the
// receiver that gave up), and a nil channel waits until its timeout.
func TestChanTimeouts(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		e := NewEnv(t)
		c := cosync.NewChan[int](0)
		log := &Log{}
		timedRecv(e, m, c, 0, "now", log)
		timedRecv(e, m, c, 5*time.Millisecond, "later", log)
		timedSend(e, m, cosync.NewChan[int](0), 7, 0, "nosend", log)
		var nilc *cosync.Chan[int]
		timedRecv(e, m, nilc, 2*time.Millisecond, "nil", log)
		e.RunUntilDone(5 * time.Second)
		wantLog(t, log,
			"now recv 0 false loop: timed out",
			"nosend send 7 loop: timed out",
			"nil recv 0 false loop: timed out",
			"later recv 0 false loop: timed out")
		if c.TrySend(1) {
			t.Fatal("a receiver that timed out took a value")
		}
		log2 := &Log{}
		timedSend(e, m, c, 3, 5*time.Second, "s", log2)
		e.Settle()
		if v, ok, ready := c.TryRecv(); !ready || !ok || v != 3 {
			t.Fatalf("TryRecv = %d %v %v", v, ok, ready)
		}
		e.RunUntilDone(5 * time.Second)
		wantLog(t, log2, "s send 3 <nil>")
	})
}

// A canceled stackless task's receive returns at once with nothing, and
// its record is dead: the next send does not go to it. The send hands its
// value to b directly, so b runs next, ahead of a's wake-up, which was
// queued first.
func TestChanCancel(t *testing.T) {
	e := NewEnv(t)
	c := cosync.NewChan[int](0)
	log := &Log{}
	timedRecv(e, Stackless, c, -1, "a", log)
	timedRecv(e, Stackless, c, -1, "b", log)
	e.Settle()
	e.Task(0).Cancel()
	if !c.TrySend(5) {
		t.Fatal("no receiver")
	}
	e.RunUntilDone(5 * time.Second)
	wantLog(t, log, "b recv 5 true <nil>", "a recv 0 false loop: canceled")
	if !errors.Is(cosync.ErrCanceled, cosync.ErrCanceled) {
		t.Fatal()
	}
}

// Env.Close unwinds stackful coroutines blocked on a channel; the records
// they leave are dead, so later operations skip them.
func TestChanEnvClose(t *testing.T) {
	l := NewEnv(t).L
	env := stackful.NewEnvOn(l)
	c := cosync.NewChan[int](0)
	got := 0
	for range 3 {
		env.Create(func(co *stackful.Co) { v, _ := c.Recv(co); got += v }, nil).Resume()
	}
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	if c.TrySend(1) {
		t.Fatal("a send went to an unwound coroutine")
	}
	if got != 0 {
		t.Fatalf("got %d", got)
	}
}
