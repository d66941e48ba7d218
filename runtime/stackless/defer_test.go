//go:build linux

package stackless

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// dfn is fn with deferred calls, in the shape generated frames have.
type dfn struct {
	Base
	Defers
	step func(f *dfn, t *Task) Status
	r    string // a named result deferred calls may change
}

func (f *dfn) Step(t *Task) Status { return f.step(f, t) }

// logDefer records a deferred call that appends s to log.
func (f *dfn) logDefer(log *[]string, s string) {
	f.Defer(func(next func()) {
		defer func() { *log = append(*log, s) }()
		next()
	})
}

func TestDefersRunLIFOOnReturn(t *testing.T) {
	l := newLoop(t)
	var log []string
	f := &dfn{step: func(f *dfn, t *Task) Status {
		switch f.PC {
		case 0:
			f.logDefer(&log, "first")
			f.logDefer(&log, "second")
			f.PC = 1
			fallthrough
		case 1:
			t.Gosched()
			if t.Blocked() {
				return Suspend
			}
			log = append(log, "body")
			f.RunDefers()
			return Done
		}
		panic("bad pc")
	}}
	run(t, l, 5*time.Second, Spawn(l, f))
	if want := []string{"body", "second", "first"}; !reflect.DeepEqual(log, want) {
		t.Fatalf("log %v, want %v", log, want)
	}
}

// TestUnrecoveredPanicRunsEveryFramesDefers: a panic in a child unwinds
// the child and its caller, running both frames' deferred calls innermost
// first, and reaches Run's caller with the original value.
func TestUnrecoveredPanicRunsEveryFramesDefers(t *testing.T) {
	l := newLoop(t)
	var log []string
	type boom struct{ n int }
	child := &dfn{step: func(f *dfn, t *Task) Status {
		if f.PC == 0 {
			f.logDefer(&log, "child")
			f.PC = 1
		}
		t.Gosched()
		if t.Blocked() {
			return Suspend
		}
		panic(boom{7})
	}}
	parent := &dfn{step: func(f *dfn, t *Task) Status {
		if f.PC == 0 {
			f.logDefer(&log, "parent")
			f.PC = 1
			return t.Call(child)
		}
		log = append(log, "parent continued")
		return Done
	}}
	task := Spawn(l, parent)
	v := mustPanic(t, "7", func() { _ = Run(l, task) })
	if v != (boom{7}) {
		t.Fatalf("Run panicked with %#v, want the original value", v)
	}
	if want := []string{"child", "parent"}; !reflect.DeepEqual(log, want) {
		t.Fatalf("log %v, want %v", log, want)
	}
	if got, ok := task.Panicked(); !ok || got != (boom{7}) {
		t.Fatalf("Panicked() = %v, %v", got, ok)
	}
}

// TestRecoverInCallerContinuesTask: the caller's deferred call recovers a
// child's panic; the caller returns normally with the result its deferred
// call set, and its own caller goes on (and suspends again) in the task.
func TestRecoverInCallerContinuesTask(t *testing.T) {
	l := newLoop(t)
	var log []string
	child := &dfn{step: func(f *dfn, t *Task) Status { panic("child fails") }}
	mid := &dfn{step: func(f *dfn, t *Task) Status {
		f.r = "unset"
		f.Defer(func(next func()) {
			defer func() {
				if r := recover(); r != nil {
					f.r = fmt.Sprint("recovered: ", r)
				}
			}()
			next()
		})
		f.logDefer(&log, "mid")
		f.PC = 1
		return t.Call(child)
	}}
	top := &dfn{step: func(f *dfn, t *Task) Status {
		switch f.PC {
		case 0:
			f.PC = 1
			return t.Call(mid)
		case 1:
			log = append(log, mid.r)
			f.PC = 2
			fallthrough
		case 2:
			t.Gosched()
			if t.Blocked() {
				return Suspend
			}
			log = append(log, "top after Gosched")
			return Done
		}
		panic("bad pc")
	}}
	task := Spawn(l, top)
	run(t, l, 5*time.Second, task)
	if want := []string{"mid", "recovered: child fails", "top after Gosched"}; !reflect.DeepEqual(log, want) {
		t.Fatalf("log %v, want %v", log, want)
	}
	if _, ok := task.Panicked(); ok {
		t.Fatal("task reports a panic that was recovered")
	}
}

// TestDeferredPanicReplacesValue: a deferred call that panics while a
// panic unwinds its frame replaces the value, and the frame's other
// deferred calls still run; the new value is what Run re-panics.
func TestDeferredPanicReplacesValue(t *testing.T) {
	l := newLoop(t)
	var log []string
	f := &dfn{step: func(f *dfn, t *Task) Status {
		f.logDefer(&log, "still runs")
		f.Defer(func(next func()) {
			defer func() { panic("replacement") }()
			next()
		})
		panic("original")
	}}
	task := Spawn(l, f)
	mustPanic(t, "replacement", func() { _ = Run(l, task) })
	if want := []string{"still runs"}; !reflect.DeepEqual(log, want) {
		t.Fatalf("log %v, want %v", log, want)
	}
}

// TestPanicAfterRecoveryEndsTask: a frame that panics again after an
// earlier recovery in the same task unwinds as usual.
func TestPanicAfterRecoveryEndsTask(t *testing.T) {
	l := newLoop(t)
	child := &dfn{step: func(f *dfn, t *Task) Status { panic("one") }}
	mid := &dfn{step: func(f *dfn, t *Task) Status {
		f.Defer(func(next func()) {
			defer func() { recover() }()
			next()
		})
		f.PC = 1
		return t.Call(child)
	}}
	top := &dfn{step: func(f *dfn, t *Task) Status {
		if f.PC == 0 {
			f.PC = 1
			return t.Call(mid)
		}
		panic("two")
	}}
	task := Spawn(l, top)
	mustPanic(t, "two", func() { _ = Run(l, task) })
}

// TestFrameWithoutDefersStaysSmall: Defers is only in frames that defer.
func TestFrameWithoutDefersStaysSmall(t *testing.T) {
	if s := reflect.TypeFor[Base]().Size(); s != 8 {
		t.Fatalf("Base is %d bytes, want 8", s)
	}
	if s := reflect.TypeFor[Task]().Size(); s > 128 {
		t.Fatalf("Task is %d bytes, want at most 128", s)
	}
}
