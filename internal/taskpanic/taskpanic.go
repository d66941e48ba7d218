// Package taskpanic lets the module's tests see where a stackless task
// panicked, which the task's panic value does not say: the restore
// fuzzers tell a panic of the workflow's own code (possible on a state the
// fuzzer made up) from one of generated or runtime code (a defect).
//
// runtime/stackless calls [Hook], when set, as it takes over the panic of
// a task's step, while the panicking frames are still on the goroutine's
// stack; [Site] called from there returns where the panic was raised.
// Set Hook only in tests, before the loops run, and reset it after: it is
// read without synchronization.
package taskpanic

import (
	"runtime"
	"strings"
)

// Hook, if set, is called with the value of every task panic that
// runtime/stackless takes over, on the loop goroutine, before the task
// unwinds.
var Hook func(v any)

// Site returns the function, file and line where the panic in flight was
// raised (the first frame below the runtime's panic machinery), or empty
// strings if no panic is in flight on the caller's stack.
func Site() (fn, file string, line int) {
	pcs := make([]uintptr, 128)
	pcs = pcs[:runtime.Callers(1, pcs)]
	frames := runtime.CallersFrames(pcs)
	inPanic := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			inPanic = true
		case inPanic && !strings.HasPrefix(f.Function, "runtime."):
			return f.Function, f.File, f.Line
		}
		if !more {
			return "", "", 0
		}
	}
}
