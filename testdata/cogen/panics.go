package panics

import (
	"errors"
	"fmt"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Run covers panics that unwind frames of marked functions and recover in
// deferred functions: across calls (a frame without defers in between),
// after suspensions, with named results set by the recovering frame, with
// re-panics, with runtime errors, with recover in a nested call (which does
// not stop the panic), with a panic raised by a deferred call on a normal
// return, and with the task going on (and suspending) after a recovery.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	for i := 0; i < 4; i++ {
		err := safe(co, t, i)
		t.Printf("safe(%d) = %v", i, err)
		co.Gosched()
	}
	t.Printf("outer = %q", outer(co, t))
	t.Printf("repanic = %q", repanic(co, t))
	t.Printf("normal = %q", normalReturnPanic(co, t))
	t.Printf("nested = %q", nestedRecover(co, t))
	t.Printf("builtin = %q", deferredRecover(co, t))
	t.Printf("index = %q", indexError(co, t, t.Rand.Intn(3)+5))
}

// safe turns a panic of its callees into an error.
//
//co:stackless
func safe(co *stackful.Co, t *trace.T, mode int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	defer t.Printf("safe: unwinding mode %d", mode)
	middle(co, t, mode)
	co.Gosched()
	return nil
}

// middle has no defers: a panic passes through it.
//
//co:stackless
func middle(co *stackful.Co, t *trace.T, mode int) {
	co.Gosched()
	leaf(co, t, mode)
	t.Printf("middle: after leaf %d", mode)
}

//co:stackless
func leaf(co *stackful.Co, t *trace.T, mode int) {
	defer t.Printf("leaf: deferred %d", mode)
	co.Gosched()
	switch mode {
	case 1:
		panic("leaf panics")
	case 2:
		panic(errors.New("an error value"))
	case 3:
		var m map[string]int
		m["x"] = 1 // a runtime error
	}
	t.Printf("leaf: returns %d", mode)
}

// outer recovers after a deeper frame recovered and panicked again.
//
//co:stackless
func outer(co *stackful.Co, t *trace.T) (s string) {
	defer func() { s = fmt.Sprint("outer recovered: ", recover()) }()
	s = "unset"
	inner(co, t)
	co.Gosched()
	return "not reached"
}

//co:stackless
func inner(co *stackful.Co, t *trace.T) {
	defer func() {
		r := recover()
		t.Printf("inner recovered %v, panics again", r)
		panic(fmt.Sprint("again after ", r))
	}()
	co.Gosched()
	panic("first")
}

// repanic: a deferred call that panics replaces the panic in flight, and
// the deferred calls before it still run.
//
//co:stackless
func repanic(co *stackful.Co, t *trace.T) (s string) {
	defer func() { s = fmt.Sprint("got ", recover()) }()
	defer t.Printf("repanic: still runs")
	defer func() { panic("replacement") }()
	co.Gosched()
	panic("original")
}

// normalReturnPanic: a deferred call panics as the function returns
// normally; an earlier deferred call recovers and sets the result.
//
//co:stackless
func normalReturnPanic(co *stackful.Co, t *trace.T) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s += fmt.Sprint(" / recovered ", r)
		}
	}()
	defer func() { panic("from a deferred call") }()
	co.Gosched()
	return "returned"
}

// nestedRecover: recover called from a function that the deferred function
// calls returns nil and does not stop the panic.
//
//co:stackless
func nestedRecover(co *stackful.Co, t *trace.T) (s string) {
	defer func() { s = fmt.Sprint("outer got ", recover()) }()
	defer func() { t.Printf("helper's recover returned %v", helper()) }()
	co.Gosched()
	panic("nested")
}

func helper() any { return recover() }

// deferredRecover: a named function that calls recover, deferred directly
// (with an argument), stops the panic.
//
//co:stackless
func deferredRecover(co *stackful.Co, t *trace.T) (s string) {
	s = "before"
	defer report(t, "report")
	co.Gosched()
	s = "after"
	panic("for report")
}

func report(t *trace.T, name string) {
	t.Printf("%s recovered %v", name, recover())
}

// indexError recovers a runtime error raised by a suspension's caller.
//
//co:stackless
func indexError(co *stackful.Co, t *trace.T, i int) (s string) {
	defer func() {
		if r := recover(); r != nil {
			_, isRuntime := r.(interface{ RuntimeError() })
			s = fmt.Sprintf("runtime error %v: %v", isRuntime, r)
		}
	}()
	a := make([]int, 3)
	co.Gosched()
	return fmt.Sprint(a[i])
}
