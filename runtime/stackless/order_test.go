//go:build linux

package stackless

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// schedFrame: for i := 0; i < n; i++ { log(name, i); t.Gosched() }
type schedFrame struct {
	Base
	name string
	n, i int
	log  *[]string
}

func (f *schedFrame) Step(t *Task) Status {
	for {
		switch f.PC {
		case 0:
			if f.i == f.n {
				return Done
			}
			*f.log = append(*f.log, fmt.Sprint(f.name, f.i))
			f.PC = 1
			fallthrough
		case 1:
			t.Gosched()
			if t.Blocked() {
				return Suspend
			}
			f.i++
			f.PC = 0
		}
	}
}

// TestGoschedRoundRobin: tasks that Gosched take turns in spawn order, like
// goroutines on one P with runtime.Gosched.
func TestGoschedRoundRobin(t *testing.T) {
	l := newLoop(t)
	var log []string
	var tasks []*Task
	for _, name := range []string{"a", "b", "c"} {
		tasks = append(tasks, Spawn(l, &schedFrame{name: name, n: 3, log: &log}))
	}
	run(t, l, 5*time.Second, tasks...)
	want := strings.Fields("a0 b0 c0 a1 b1 c1 a2 b2 c2")
	if !slices.Equal(log, want) {
		t.Fatalf("order %v, want %v", log, want)
	}
}

// TestGoschedLetsTimersRun: a task that keeps calling Gosched does not starve
// a timer: the loop polls and fires timers between rounds of the ready queue.
func TestGoschedLetsTimersRun(t *testing.T) {
	l := newLoop(t)
	rounds := 0
	fired := false
	spinner := Spawn(l, newFn(func(t *Task, pc *int) Status {
		if *pc == 0 {
			// Armed by the spinner's first step, so that a loaded machine
			// cannot let the timer fire before the spinner ever runs.
			*pc = 1
			l.AfterFunc(time.Millisecond, func() { fired = true })
		}
		for !fired {
			t.Gosched()
			if t.Blocked() {
				return Suspend
			}
			rounds++
		}
		return Done
	}))
	run(t, l, 5*time.Second, spinner)
	if rounds == 0 {
		t.Fatal("the spinner never ran")
	}
}

// condWaiter: log(name+" waits"); for !t.Wait(c, -1) {}; log(name+" woke")
type condWaiter struct {
	Base
	name string
	c    *Cond
	log  *[]string
}

func (f *condWaiter) Step(t *Task) Status {
	for {
		switch f.PC {
		case 0:
			*f.log = append(*f.log, f.name+" waits")
			f.PC = 1
			fallthrough
		case 1:
			ok := t.Wait(f.c, -1)
			if t.Blocked() {
				return Suspend
			}
			if !ok {
				panic("Wait without timeout returned false")
			}
			*f.log = append(*f.log, f.name+" woke")
			return Done
		}
	}
}

// TestCondSignalFIFO: Signal wakes the longest waiter first, and never runs
// it inline: the signaller continues to its next suspension first.
func TestCondSignalFIFO(t *testing.T) {
	l := newLoop(t)
	var c Cond
	var log []string
	var tasks []*Task
	for _, name := range []string{"a", "b", "c"} {
		tasks = append(tasks, Spawn(l, &condWaiter{name: name, c: &c, log: &log}))
	}
	signals := 0
	tasks = append(tasks, Spawn(l, newFn(func(t *Task, pc *int) Status {
		for {
			switch *pc {
			case 0: // let the waiters queue up first
				t.Gosched()
				if t.Blocked() {
					return Suspend
				}
				*pc = 1
			case 1:
				if signals == 3 {
					return Done
				}
				if !c.Signal() {
					panic("nobody waiting")
				}
				signals++
				log = append(log, fmt.Sprint("signal ", signals))
				*pc = 2
			case 2:
				t.Gosched()
				if t.Blocked() {
					return Suspend
				}
				*pc = 1
			}
		}
	})))
	run(t, l, 5*time.Second, tasks...)
	want := []string{
		"a waits", "b waits", "c waits",
		"signal 1", "a woke",
		"signal 2", "b woke",
		"signal 3", "c woke",
	}
	if !slices.Equal(log, want) {
		t.Fatalf("order\n%v\nwant\n%v", log, want)
	}
}

// TestCondBroadcast: Broadcast wakes every waiter, in arrival order, after
// the broadcaster reaches its next suspension.
func TestCondBroadcast(t *testing.T) {
	l := newLoop(t)
	var c Cond
	var log []string
	var tasks []*Task
	for _, name := range []string{"a", "b", "c", "d"} {
		tasks = append(tasks, Spawn(l, &condWaiter{name: name, c: &c, log: &log}))
	}
	tasks = append(tasks, Spawn(l, newFn(func(t *Task, pc *int) Status {
		switch *pc {
		case 0:
			t.Gosched()
			if t.Blocked() {
				return Suspend
			}
			n := c.Broadcast()
			log = append(log, fmt.Sprint("broadcast ", n))
			*pc = 1
			fallthrough
		case 1:
			t.Gosched()
			if t.Blocked() {
				return Suspend
			}
			log = append(log, "broadcaster done")
			return Done
		}
		panic("bad pc")
	})))
	run(t, l, 5*time.Second, tasks...)
	want := []string{
		"a waits", "b waits", "c waits", "d waits",
		"broadcast 4", "a woke", "b woke", "c woke", "d woke",
		"broadcaster done",
	}
	if !slices.Equal(log, want) {
		t.Fatalf("order\n%v\nwant\n%v", log, want)
	}
	if c.Len() != 0 {
		t.Fatalf("%d waiters left", c.Len())
	}
}

// TestCondWaitTimeout: a Wait with a timeout returns false no earlier than
// the timeout, and leaves the Cond's list.
func TestCondWaitTimeout(t *testing.T) {
	l := newLoop(t)
	var c Cond
	const d = 20 * time.Millisecond
	var got bool
	var waited time.Duration
	var start time.Duration
	task := Spawn(l, newFn(func(t *Task, pc *int) Status {
		if *pc == 0 {
			start = l.Now()
			*pc = 1
		}
		got = t.Wait(&c, d)
		if t.Blocked() {
			return Suspend
		}
		waited = l.Now() - start
		return Done
	}))
	run(t, l, 5*time.Second, task)
	if got {
		t.Fatal("Wait reported a signal")
	}
	if waited < d {
		t.Fatalf("Wait returned after %v, before its %v timeout", waited, d)
	}
	if c.Len() != 0 {
		t.Fatalf("%d waiters left after the timeout", c.Len())
	}
}

// TestSleep: Sleep never returns early, and sleepers wake in deadline order.
func TestSleep(t *testing.T) {
	l := newLoop(t)
	var log []string
	var tasks []*Task
	for _, d := range []time.Duration{30, 10, 20} {
		d := d * time.Millisecond
		var start time.Duration
		tasks = append(tasks, Spawn(l, newFn(func(t *Task, pc *int) Status {
			if *pc == 0 {
				start = l.Now()
				*pc = 1
			}
			t.Sleep(d)
			if t.Blocked() {
				return Suspend
			}
			if el := l.Now() - start; el < d {
				panic(fmt.Sprintf("Sleep(%v) returned after %v", d, el))
			}
			log = append(log, d.String())
			return Done
		})))
	}
	run(t, l, 5*time.Second, tasks...)
	if want := []string{"10ms", "20ms", "30ms"}; !slices.Equal(log, want) {
		t.Fatalf("order %v, want %v", log, want)
	}
}
