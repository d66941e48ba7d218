//go:build linux

package stackless

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

// TestLoopCloseWakesTasks: closing the loop wakes every suspended task with
// an error from its current wait (Read, Poll and Await fail with the loop's
// error, Wait returns false, Sleep returns), so each unwinds through its own
// error path. A task that then blocks again is ended instead of being woken
// forever: Close returns, and Await of it reports loop.ErrClosed.
func TestLoopCloseWakesTasks(t *testing.T) {
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	r, w := pipe(t)
	defer unix.Close(r)
	defer unix.Close(w)
	var c Cond
	var readErr, pollErr, awaitErr error
	waitGot, slept := true, false
	forever := Spawn(l, newFn(func(t *Task, pc *int) Status {
		for { // ignores every wake-up: only Close can end it
			t.Sleep(time.Hour)
			if t.Blocked() {
				return Suspend
			}
		}
	}))
	tasks := []*Task{
		Spawn(l, newFn(func(t *Task, pc *int) Status {
			var b [8]byte
			_, readErr = t.Read(r, b[:])
			if t.Blocked() {
				return Suspend
			}
			return Done
		})),
		Spawn(l, newFn(func(t *Task, pc *int) Status {
			waitGot = t.Wait(&c, -1)
			if t.Blocked() {
				return Suspend
			}
			return Done
		})),
		Spawn(l, newFn(func(t *Task, pc *int) Status {
			t.Sleep(time.Hour)
			if t.Blocked() {
				return Suspend
			}
			slept = true
			return Done
		})),
		Spawn(l, newFn(func(t *Task, pc *int) Status {
			_, pollErr = t.Poll([]loop.PollFd{{Fd: w, Events: loop.EventIn}}, -1)
			if t.Blocked() {
				return Suspend
			}
			return Done
		})),
		Spawn(l, newFn(func(t *Task, pc *int) Status {
			awaitErr = t.Await(forever)
			if t.Blocked() {
				return Suspend
			}
			return Done
		})),
	}
	for range 3 {
		l.RunOnce() // every task reaches its wait
	}
	for i, task := range tasks {
		if task.Done() {
			t.Fatalf("task %d finished before Close", i)
		}
	}
	closed := make(chan error, 1)
	go func() { closed <- l.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
	for i, task := range append(tasks, forever) {
		if !task.Done() {
			t.Fatalf("task %d not finished after Close", i)
		}
		if _, ok := task.Panicked(); ok {
			t.Fatalf("task %d panicked", i)
		}
	}
	if !errors.Is(readErr, loop.ErrClosed) || !errors.Is(readErr, net.ErrClosed) {
		t.Errorf("Read: %v", readErr)
	}
	if !errors.Is(pollErr, loop.ErrClosed) {
		t.Errorf("Poll: %v", pollErr)
	}
	if !errors.Is(awaitErr, loop.ErrClosed) {
		t.Errorf("Await: %v", awaitErr)
	}
	if waitGot {
		t.Error("Wait reported a signal")
	}
	if !slept {
		t.Error("Sleep did not return")
	}
	if c.Len() != 0 {
		t.Errorf("%d tasks left on the Cond", c.Len())
	}
}

// TestCloseFromTask: a task may close the loop; the other tasks are woken
// with the loop's error and finish, and Run returns. Run on a closed loop
// reports the loop's error.
func TestCloseFromTask(t *testing.T) {
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	var c Cond
	signalled := true
	waiter := Spawn(l, newFn(func(t *Task, pc *int) Status {
		signalled = t.Wait(&c, -1)
		if t.Blocked() {
			return Suspend
		}
		return Done
	}))
	closer := Spawn(l, newFn(func(t *Task, pc *int) Status {
		t.Sleep(time.Millisecond)
		if t.Blocked() {
			return Suspend
		}
		l.Close()
		return Done
	}))
	if err := Run(l, closer, waiter); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !closer.Done() || !waiter.Done() || signalled {
		t.Fatalf("closer done %v, waiter done %v, signalled %v", closer.Done(), waiter.Done(), signalled)
	}
	// A loop closed before Run: Run reports the loop's error.
	late := Spawn(l, newFn(func(t *Task, pc *int) Status { return Done }))
	if err := Run(l, late); !errors.Is(err, loop.ErrClosed) {
		t.Fatalf("Run on a closed loop: %v", err)
	}
}
