package deferlines

import (
	"fmt"
	"path/filepath"
	"runtime"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// panicLine returns the source line of the statement that panicked, as the
// stack of a deferred function that is recovering sees it: the first frame
// of this file below the recovering function and the runtime's panic
// machinery. Generated code carries //line directives, so the stackless
// frames report the same lines as the stackful ones.
func panicLine() int {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs) // above panicLine and the recovering function
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if filepath.Base(f.File) == "deferlines.go" {
			return f.Line
		}
		if !more {
			return -1
		}
	}
}

// Run covers the source positions of panics raised inside deferred calls,
// on a normal return and while a panic unwinds the frame, as the function
// that recovers them sees them.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	t.Printf("deferred: %s", inDeferred(co))
	t.Printf("body: %s", inBody(co, t.Rand.Intn(3)))
}

//co:stackless
func inDeferred(co *stackful.Co) (s string) {
	defer func() {
		r := recover()
		s = fmt.Sprintf("%v at line %d", r, panicLine())
	}()
	defer func() {
		var m map[int]int
		m[1] = 1 // this line
	}()
	co.Gosched()
	return "returned"
}

// inBody: a deferred call panics while a panic of the body unwinds the
// frame. (A function recovering the body's own panic does not see the
// body's line on its stack in the stackless model: the task re-raises the
// panic from its deferred-call runner, see stackless.Defers.)
//
//co:stackless
func inBody(co *stackful.Co, i int) (s string) {
	defer func() {
		r := recover()
		s = fmt.Sprintf("%v at line %d", r, panicLine())
	}()
	defer func() {
		if r := recover(); r != nil {
			panic(fmt.Sprint("again: ", r)) // this line
		}
	}()
	a := []int{1, 2}
	co.Gosched()
	return fmt.Sprint(a[i+2])
}
