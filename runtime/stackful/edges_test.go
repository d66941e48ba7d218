//go:build linux

package stackful

import (
	"errors"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

// The corners where a program ported from libco trips (issue 18), one test
// per corner.

// TestSignalledWaiterRunsBeforeStop is the repro: C waits on a
// cond; S, run by the loop after a 5 ms poll, signals and sets stop. Run
// returns only after C has woken.
func TestSignalledWaiterRunsBeforeStop(t *testing.T) {
	e := newEnv(t)
	var c Cond
	var log []string
	stop := false
	start(e, func(co *Co) {
		co.Wait(&c, -1)
		log = append(log, "C: woke")
	})
	start(e, func(co *Co) {
		co.Sleep(5 * time.Millisecond)
		c.Signal()
		log = append(log, "S: signalled")
		stop = true
	})
	if err := e.Run(func() bool { return stop }); err != nil {
		t.Fatal(err)
	}
	if want := "S: signalled, C: woke"; strings.Join(log, ", ") != want {
		t.Fatalf("Run returned after %q, want %q", strings.Join(log, ", "), want)
	}
}

// TestEnvStopFromAnotherGoroutine: an idle env's Run(nil) returns when
// another goroutine calls Stop; a Stop that arrives while the main
// coroutine waits in Sleep (whose loop run sees it first) still ends the
// next Run.
func TestEnvStopFromAnotherGoroutine(t *testing.T) {
	e := newEnv(t)
	go func() {
		time.Sleep(20 * time.Millisecond)
		e.Stop()
	}()
	var guard loop.Timer
	expired := false
	e.Loop().Reset(&guard, 5*time.Second, func() { expired = true })
	if err := e.Run(func() bool { return expired }); err != nil || expired {
		t.Fatalf("Run: %v, guard expired %v", err, expired)
	}

	go func() {
		time.Sleep(5 * time.Millisecond)
		e.Stop()
	}()
	t0 := time.Now()
	e.Main().Sleep(30 * time.Millisecond)
	if took := time.Since(t0); took < 30*time.Millisecond {
		t.Fatalf("Stop cut main's Sleep short: %v", took)
	}
	if err := e.Run(func() bool { return expired }); err != nil || expired {
		t.Fatalf("Run after a Stop during main's Sleep: %v, guard expired %v", err, expired)
	}
	e.Loop().CancelTimer(&guard)
}

// TestEnvWakeAndIdleTick: a quit flag set by another goroutine ends Run
// when that goroutine calls Wake, or, without Wake, with an idle tick.
func TestEnvWakeAndIdleTick(t *testing.T) {
	e := newEnv(t)
	var quit atomic.Bool
	go func() {
		time.Sleep(10 * time.Millisecond)
		quit.Store(true)
		e.Wake()
	}()
	var guard loop.Timer
	expired := false
	e.Loop().Reset(&guard, 5*time.Second, func() { expired = true })
	if err := e.Run(func() bool { return quit.Load() || expired }); err != nil || expired {
		t.Fatalf("Run with Wake: %v, guard expired %v", err, expired)
	}
	quit.Store(false)
	e.Loop().SetIdleTick(time.Millisecond)
	go func() {
		time.Sleep(10 * time.Millisecond)
		quit.Store(true)
	}()
	if err := e.Run(func() bool { return quit.Load() || expired }); err != nil || expired {
		t.Fatalf("Run with an idle tick: %v, guard expired %v", err, expired)
	}
	e.Loop().CancelTimer(&guard)
}

// TestZeroTimeoutDoesNotSuspend: a zero timeout tries once and gives up at
// once, without suspending: the coroutine, resumed directly by main, has
// finished when Resume returns.
func TestZeroTimeoutDoesNotSuspend(t *testing.T) {
	e := newEnv(t)
	r, _ := socketpair(t)
	_, full := socketpair(t)
	lfd, addr := listenTCP(t)
	defer unix.Close(lfd)
	var c Cond
	var log []string
	co := start(e, func(co *Co) {
		if co.Wait(&c, 0) {
			log = append(log, "Wait(0) signalled")
		}
		buf := make([]byte, 8)
		if _, err := co.ReadTimeout(r, buf, 0); !errors.Is(err, loop.ErrTimeout) {
			log = append(log, "ReadTimeout(0): "+errString(err))
		}
		big := make([]byte, 1<<22)
		if n, err := co.WriteTimeout(full, big, 0); !errors.Is(err, loop.ErrTimeout) || n == 0 {
			log = append(log, "WriteTimeout(0): "+errString(err))
		}
		if _, _, err := co.AcceptTimeout(lfd, 0); !errors.Is(err, loop.ErrTimeout) {
			log = append(log, "AcceptTimeout(0): "+errString(err))
		}
		s := tcpSocket(t)
		defer unix.Close(s)
		if err := co.ConnectTimeout(s, addr, 0); err != nil && !errors.Is(err, loop.ErrTimeout) {
			log = append(log, "ConnectTimeout(0): "+errString(err))
		}
		if n, err := co.Poll([]loop.PollFd{{Fd: r, Events: loop.EventIn}}, 0); n != 0 || err != nil {
			log = append(log, "Poll(0): "+errString(err))
		}
		co.Sleep(0)
		co.Sleep(-time.Second)
		log = append(log, "done")
	})
	if co.Status() != Dead || strings.Join(log, "; ") != "done" {
		t.Fatalf("status %v after Resume, log %q", co.Status(), log)
	}
	// The main coroutine does not run the loop for them either.
	polls := e.Loop().Stats().Polls
	if e.Main().Wait(&c, 0) {
		t.Fatal("main's Wait(0) signalled")
	}
	e.Main().Sleep(0)
	if p := e.Loop().Stats().Polls; p != polls {
		t.Fatalf("main's zero waits ran the loop %d times", p-polls)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestNilCoPanics: before any env exists Self is nil; every method called
// on it, and every Key access with it, panics with a "stackful: " message
// rather than a nil dereference.
func TestNilCoPanics(t *testing.T) {
	go func() {}() // a goroutine of its own would do too; this test's is none
	if Self() != nil {
		t.Fatal("the test goroutine is a coroutine")
	}
	var co *Co
	typ := reflect.TypeOf(co)
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		args := []reflect.Value{reflect.ValueOf(co)}
		for j := 1; j < m.Type.NumIn(); j++ {
			args = append(args, reflect.Zero(m.Type.In(j)))
		}
		p := mustPanic(t, func() { m.Func.Call(args) })
		if msg := panicText(p); !strings.HasPrefix(msg, "stackful: ") {
			t.Errorf("(*Co)(nil).%s panicked with %q", m.Name, msg)
		}
	}
	k := NewKey[int]()
	for name, f := range map[string]func(){
		"Get":    func() { k.Get(Self()) },
		"Lookup": func() { k.Lookup(Self()) },
		"Set":    func() { k.Set(Self(), 1) },
		"Delete": func() { k.Delete(Self()) },
	} {
		if msg := panicText(mustPanic(t, f)); !strings.HasPrefix(msg, "stackful: ") {
			t.Errorf("Key.%s(nil) panicked with %q", name, msg)
		}
	}
}

// TestPollReadyCannotStarve: a coroutine that polls a ready fd in a loop
// lets a coroutine waiting on a timer run: it yields every pollYieldEvery
// Polls that return at once.
func TestPollReadyCannotStarve(t *testing.T) {
	e := newEnv(t)
	r, w := socketpair(t)
	if _, err := unix.Write(w, []byte("x")); err != nil {
		t.Fatal(err)
	}
	const limit = 1_000_000
	flag := false
	polls := 0
	spinner := start(e, func(co *Co) {
		fds := []loop.PollFd{{Fd: r, Events: loop.EventIn}}
		for !flag && polls < limit {
			if n, err := co.Poll(fds, -1); n != 1 || err != nil {
				t.Errorf("Poll: %d %v", n, err)
				return
			}
			polls++
		}
	})
	timer := start(e, func(co *Co) {
		co.Sleep(time.Millisecond)
		flag = true
	})
	runUntilDone(t, e, spinner, timer)
	if polls >= limit {
		t.Fatalf("the timer's coroutine never ran during %d Polls of a ready fd", polls)
	}

	// A coroutine already on the ready queue runs within pollYieldEvery Polls.
	flag, polls = false, 0
	queued := start(e, func(co *Co) {
		co.Gosched()
		flag = true
	})
	var at int
	spinner = start(e, func(co *Co) {
		fds := []loop.PollFd{{Fd: r, Events: loop.EventIn}}
		for !flag && polls < limit {
			co.Poll(fds, -1)
			polls++
		}
		at = polls
	})
	runUntilDone(t, e, spinner, queued)
	if at > pollYieldEvery+1 {
		t.Fatalf("a queued coroutine ran after %d Polls, want <= %d", at, pollYieldEvery+1)
	}
}

//go:noinline
func panicInCoroutine() { panic(errors.New("boom in a coroutine")) }

//go:noinline
func resumeAndDoNotRecover(co *Co) { co.Resume() }

// TestPanicKeepsCoroutineStack: a coroutine's panic reaches its resumer
// with the original value, and the coroutine's stack stays available: from
// PanicStack, through a coroutine that did not recover it, and in the crash
// output when nothing recovers it.
func TestPanicKeepsCoroutineStack(t *testing.T) {
	if os.Getenv("STACKFUL_UNRECOVERED") == "1" {
		e, _ := NewEnv()
		e.Create(func(co *Co) { panicInCoroutine() }, nil).Resume()
		return
	}
	e := newEnv(t)
	inner := e.Create(func(co *Co) { panicInCoroutine() }, nil)
	outer := e.Create(func(co *Co) { resumeAndDoNotRecover(inner) }, nil)
	p := mustPanic(t, outer.Resume)
	if err, ok := p.(error); !ok || err.Error() != "boom in a coroutine" {
		t.Fatalf("recovered %#v, want the original error", p)
	}
	if s := inner.PanicStack(); !strings.Contains(s, "panicInCoroutine") {
		t.Fatalf("inner's PanicStack lacks the panicking function:\n%s", s)
	}
	if s := outer.PanicStack(); !strings.Contains(s, "resumeAndDoNotRecover") || !strings.Contains(s, "panicInCoroutine") {
		t.Fatalf("outer's PanicStack lacks a coroutine's frames:\n%s", s)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestPanicKeepsCoroutineStack$")
	cmd.Env = append(os.Environ(), "STACKFUL_UNRECOVERED=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("an unrecovered panic did not crash:\n%s", out)
	}
	for _, want := range []string{"stackful: coroutine panicked", "panicInCoroutine", "panic: boom in a coroutine"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("crash output lacks %q:\n%s", want, out)
		}
	}
}
