//go:build linux

package stackless

import (
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

// The stackless side of the libco corners of issue 18 (items 1, 2, 4 and
// 6): the same programs as runtime/stackful's edges_test.go.

// TestSignalledTaskRunsBeforeStop: C waits on a cond; S, run by the loop
// after a 5 ms poll, signals and sets stop. Run returns only after C woke.
func TestSignalledTaskRunsBeforeStop(t *testing.T) {
	l := newLoop(t)
	var c Cond
	var log []string
	stop := false
	Spawn(l, newFn(func(t *Task, pc *int) Status {
		t.Wait(&c, -1)
		if t.Blocked() {
			return Suspend
		}
		log = append(log, "C: woke")
		return Done
	}))
	Spawn(l, newFn(func(t *Task, pc *int) Status {
		t.Sleep(5 * time.Millisecond)
		if t.Blocked() {
			return Suspend
		}
		c.Signal()
		log = append(log, "S: signalled")
		stop = true
		return Done
	}))
	if err := l.Run(func() bool { return stop }); err != nil {
		t.Fatal(err)
	}
	if want := "S: signalled, C: woke"; strings.Join(log, ", ") != want {
		t.Fatalf("Run returned after %q, want %q", strings.Join(log, ", "), want)
	}
}

// TestRunStoppedFromAnotherGoroutine: Run of a task that waits forever
// returns, with its error, when another goroutine calls the loop's StopRun.
func TestRunStoppedFromAnotherGoroutine(t *testing.T) {
	l := newLoop(t)
	var c Cond
	task := Spawn(l, newFn(func(t *Task, pc *int) Status {
		t.Wait(&c, -1)
		if t.Blocked() {
			return Suspend
		}
		return Done
	}))
	go func() {
		time.Sleep(20 * time.Millisecond)
		l.StopRun()
	}()
	done := make(chan error, 1)
	go func() { done <- Run(l, task) }()
	select {
	case err := <-done:
		if err == nil || task.Done() {
			t.Fatalf("Run: %v, task done %v", err, task.Done())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after StopRun")
	}
}

// TestZeroTimeoutDoesNotBlock: Wait(c, 0), Sleep(0) and Poll(fds, 0)
// return at once, in the step that called them.
func TestZeroTimeoutDoesNotBlock(t *testing.T) {
	l := newLoop(t)
	r, w := socketpair(t)
	defer unix.Close(w)
	defer unix.Close(r)
	var c Cond
	var log []string
	steps := 0
	task := Spawn(l, newFn(func(t *Task, pc *int) Status {
		steps++
		if t.Wait(&c, 0) || t.Blocked() {
			log = append(log, "Wait(0)")
		}
		t.Sleep(0)
		if t.Blocked() {
			log = append(log, "Sleep(0)")
		}
		t.Sleep(-time.Second)
		if t.Blocked() {
			log = append(log, "Sleep(-1s)")
		}
		if n, err := t.Poll([]loop.PollFd{{Fd: r, Events: loop.EventIn}}, 0); n != 0 || err != nil || t.Blocked() {
			log = append(log, "Poll(0)")
		}
		if t.Blocked() {
			return Suspend
		}
		return Done
	}))
	run(t, l, 5*time.Second, task)
	if len(log) != 0 || steps != 1 {
		t.Fatalf("blocked in %v, %d steps", log, steps)
	}
}

// TestPollReadyCannotStarveTasks: a task polling a ready fd in a loop lets
// a task waiting on a timer run, and a queued task runs within
// pollYieldEvery Polls.
func TestPollReadyCannotStarveTasks(t *testing.T) {
	l := newLoop(t)
	r, w := socketpair(t)
	defer unix.Close(w)
	defer unix.Close(r)
	if _, err := unix.Write(w, []byte("x")); err != nil {
		t.Fatal(err)
	}
	const limit = 1_000_000
	flag := false
	polls := 0
	spin := func() *Task {
		return Spawn(l, newFn(func(t *Task, pc *int) Status {
			fds := []loop.PollFd{{Fd: r, Events: loop.EventIn}}
			for !flag && polls < limit {
				n, err := t.Poll(fds, -1)
				if t.Blocked() {
					return Suspend
				}
				if n != 1 || err != nil {
					panic("poll of a ready fd failed")
				}
				polls++
			}
			return Done
		}))
	}
	timer := Spawn(l, newFn(func(t *Task, pc *int) Status {
		t.Sleep(time.Millisecond)
		if t.Blocked() {
			return Suspend
		}
		flag = true
		return Done
	}))
	run(t, l, 10*time.Second, spin(), timer)
	if polls >= limit {
		t.Fatalf("the timer's task never ran during %d Polls of a ready fd", polls)
	}

	flag, polls = false, 0
	queued := Spawn(l, newFn(func(t *Task, pc *int) Status {
		if *pc == 0 {
			*pc = 1
			t.Gosched()
			return Suspend
		}
		t.Gosched() // consumes the wake-up
		flag = true
		return Done
	}))
	run(t, l, 10*time.Second, spin(), queued)
	if polls > pollYieldEvery+1 {
		t.Fatalf("a queued task ran after %d Polls, want <= %d", polls, pollYieldEvery+1)
	}
}
