//go:build linux

package stackless

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// funcObserver is an Observer made of two funcs.
type funcObserver struct {
	suspended, finished func(t *Task)
}

func (o *funcObserver) Suspended(t *Task) { o.suspended(t) }
func (o *funcObserver) Finished(t *Task)  { o.finished(t) }

// TestObserveSuspensions: an observer is told of each carriable suspension
// (a snapshot can be taken there) and of the end, once; the task's run is
// unchanged.
func TestObserveSuspensions(t *testing.T) {
	job := func() Frame { return newJob("a", 7) }
	l, want := tracedLoop(t)
	run(t, l, 10*time.Second, Spawn(l, job()))

	l, tr := tracedLoop(t)
	task := Spawn(l, job())
	var kinds []uint8
	finished := 0
	Observe(task, &funcObserver{
		suspended: func(tk *Task) {
			if _, err := Snapshot(tk); err != nil {
				t.Errorf("Snapshot at a suspension the observer was told of: %v", err)
			}
			kinds = append(kinds, tk.carry)
		},
		finished: func(tk *Task) {
			if !tk.Done() || Ended(tk) {
				t.Errorf("Finished: done %v ended %v", tk.Done(), Ended(tk))
			}
			finished++
		},
	})
	run(t, l, 10*time.Second, task)
	if !slices.Equal(*tr, *want) {
		t.Errorf("observed trace %q, want %q", *tr, *want)
	}
	// i=0..6: Gosched, Sleep, a step (2 Gosched), Gosched, Sleep, a step, Gosched.
	g, s := carryGosched, carrySleep
	wantKinds := []uint8{g, s, g, g, g, s, g, g, g}
	if !slices.Equal(kinds, wantKinds) || finished != 1 {
		t.Errorf("told of suspensions %v (want %v) and of the end %d times", kinds, wantKinds, finished)
	}
}

// TestHold: a held task does not run, though its Gosched's turn comes or
// its sleep's deadline passes, until Unhold; a held sleeper then sleeps
// until its original deadline, not longer.
func TestHold(t *testing.T) {
	l, tr := tracedLoop(t)
	var heldAt []int
	var target *Task
	releaser := Spawn(l, newFn(func(tk *Task, pc *int) Status {
		for {
			switch *pc {
			case 0:
				*pc = 1
			case 1:
				tk.Yield()
				if tk.Blocked() {
					return Suspend
				}
				*pc = 2
			case 2:
				// Several iterations of the loop and 5 ms: the held task
				// stays put.
				tk.Sleep(5 * time.Millisecond)
				if tk.Blocked() {
					return Suspend
				}
				*pc = 3
			case 3:
				if got := len(*tr); got != heldAt[len(heldAt)-1] {
					t.Errorf("the held task traced %d lines, was %d", got, heldAt[len(heldAt)-1])
				}
				Unhold(target)
				*pc = 1
			}
		}
	}))
	task := Spawn(l, newJob("a", 3)) // Gosched, Sleep 1ms, call
	target = task
	Observe(task, &funcObserver{
		suspended: func(tk *Task) {
			Hold(tk)
			heldAt = append(heldAt, len(*tr))
			releaser.Resume()
		},
		finished: func(tk *Task) {},
	})
	run(t, l, 10*time.Second, task)
	if len(heldAt) != 4 {
		t.Errorf("held %d times, want 4", len(heldAt))
	}
	if n := len(*tr); n != 4 || !strings.Contains((*tr)[3], "a done") {
		t.Errorf("trace %q", *tr)
	}
}

// TestHoldSleepDeadline: a sleeper held past its deadline goes on at once
// when released; one released before it sleeps until the deadline.
func TestHoldSleepDeadline(t *testing.T) {
	for _, c := range []struct {
		name        string
		sleep, hold time.Duration
	}{{"released after the deadline", 20 * time.Millisecond, 60 * time.Millisecond}, {"released before", 60 * time.Millisecond, 10 * time.Millisecond}} {
		t.Run(c.name, func(t *testing.T) {
			l := newLoop(t)
			sleeperRuns = 0
			start := time.Now()
			task := Spawn(l, &sleeperFrame{d: c.sleep})
			var released time.Time
			Observe(task, &funcObserver{
				suspended: func(tk *Task) {
					Hold(tk)
					var timer loop.Timer
					l.Reset(&timer, c.hold, func() { released = time.Now(); Unhold(tk) })
				},
				finished: func(tk *Task) {},
			})
			run(t, l, 10*time.Second, task)
			end := time.Since(start)
			if sleeperRuns != 1 {
				t.Fatalf("sleeper ran %d times", sleeperRuns)
			}
			if released.IsZero() {
				t.Fatal("finished before Unhold")
			}
			wantMin := max(c.sleep, c.hold)
			if end < wantMin || end > wantMin+2*time.Second {
				t.Errorf("finished after %v, want about %v (sleep %v, held %v)", end, wantMin, c.sleep, c.hold)
			}
		})
	}
}

// TestDiscard: a discarded task ends without running further and without
// telling its observer; a task in Await on it returns loop.ErrClosed.
func TestDiscard(t *testing.T) {
	l, tr := tracedLoop(t)
	task := Spawn(l, newJob("a", 7))
	suspensions, finished := 0, 0
	Observe(task, &funcObserver{
		suspended: func(tk *Task) {
			if suspensions++; suspensions == 2 {
				Discard(tk)
			}
		},
		finished: func(tk *Task) { finished++ },
	})
	var awaitErr error
	awaiter := Spawn(l, newFn(func(tk *Task, pc *int) Status {
		*pc = 1
		err := tk.Await(task)
		if tk.Blocked() {
			return Suspend
		}
		awaitErr = err
		return Done
	}))
	run(t, l, 10*time.Second, task, awaiter)
	if !task.Done() || !Ended(task) || finished != 0 || suspensions != 2 {
		t.Errorf("done %v ended %v finished %d suspensions %d", task.Done(), Ended(task), finished, suspensions)
	}
	if len(*tr) != 2 {
		t.Errorf("trace after the discard: %q", *tr)
	}
	if !errors.Is(awaitErr, loop.ErrClosed) {
		t.Errorf("Await of a discarded task: %v", awaitErr)
	}
	// A task that has not started, and one sleeping, are discarded as well.
	fresh := Spawn(l, newJob("b", 3))
	Discard(fresh)
	sleeper := Spawn(l, &sleeperFrame{d: time.Hour})
	if err := l.RunOnce(); err != nil {
		t.Fatal(err)
	}
	Discard(sleeper)
	if !fresh.Done() || !sleeper.Done() || len(*tr) != 2 {
		t.Errorf("fresh done %v, sleeper done %v, trace %q", fresh.Done(), sleeper.Done(), *tr)
	}
	if l.Pending() != 0 {
		t.Errorf("the discarded tasks left %d waiters on the loop", l.Pending())
	}
}

// TestSnapshotFrame: a frame encoded before any task runs it restores as a
// task that runs it from its entry.
func TestSnapshotFrame(t *testing.T) {
	l, want := tracedLoop(t)
	run(t, l, 10*time.Second, Spawn(l, newJob("a", 7)))
	data, err := SnapshotFrame(newJob("a", 7))
	if err != nil {
		t.Fatal(err)
	}
	l2, got := tracedLoop(t)
	task, err := Restore(l2, data)
	if err != nil {
		t.Fatal(err)
	}
	run(t, l2, 10*time.Second, task)
	if !slices.Equal(*got, *want) {
		t.Errorf("trace %q, want %q", *got, *want)
	}
	if n := DurableName(newJob("a", 1)); n != "stackless_test.job" {
		t.Errorf("DurableName %q", n)
	}
	if n := DurableName(newFn(nil)); n != "" {
		t.Errorf("DurableName of a frame that is not durable: %q", n)
	}
	if _, err := SnapshotFrame(newFn(nil)); !errors.Is(err, ErrNotCarriable) {
		t.Errorf("SnapshotFrame of a frame that is not durable: %v", err)
	}
}
