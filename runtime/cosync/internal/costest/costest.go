// Package costest holds what the tests of runtime/cosync share: scenario
// functions written once on the stackful handle and marked //co:stackless
// (costest_cogen.go is their generated stackless form), a log of events,
// and a harness that runs a scenario's coroutines in either model on one
// loop.
package costest

//go:generate go tool cogen

import (
	"fmt"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// A Model is one of the two coroutine models.
type Model int

// The models.
const (
	Stackful Model = iota
	Stackless
)

// Models lists both, for table-driven tests.
var Models = []Model{Stackful, Stackless}

func (m Model) String() string {
	if m == Stackful {
		return "stackful"
	}
	return "stackless"
}

// A Log records events in the order they happen. Coroutines of one loop
// append to it without locks.
type Log struct{ lines []string }

// Add appends a formatted event.
func (g *Log) Add(format string, args ...any) {
	g.lines = append(g.lines, fmt.Sprintf(format, args...))
}

// Lines returns the events so far.
func (g *Log) Lines() []string { return g.lines }

// An Env runs coroutines of either model on one loop, closed with the test.
type Env struct {
	T     testing.TB
	L     *loop.Loop
	E     *stackful.Env
	cos   []*stackful.Co
	tasks []*stackless.Task
}

// NewEnv returns an env on a new loop; it is closed when the test ends.
func NewEnv(t testing.TB) *Env {
	t.Helper()
	l, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{T: t, L: l, E: stackful.NewEnvOn(l)}
	t.Cleanup(func() {
		e.E.Close()
		l.Close()
	})
	return e
}

// Go starts a coroutine in model m: full(co) for a stackful one, which runs
// at once to its first suspension, or the frame less() returns for a
// stackless task, whose first step runs on the loop's next iteration.
func (e *Env) Go(m Model, full func(co *stackful.Co), less func() stackless.Frame) {
	if m == Stackful {
		co := e.E.Create(full, nil)
		e.cos = append(e.cos, co)
		co.Resume()
		return
	}
	e.tasks = append(e.tasks, stackless.Spawn(e.L, less()))
}

// Task returns the i-th stackless task started.
func (e *Env) Task(i int) *stackless.Task { return e.tasks[i] }

// Done reports whether every coroutine started has finished.
func (e *Env) Done() bool {
	for _, co := range e.cos {
		if co.Status() != stackful.Dead {
			return false
		}
	}
	for _, t := range e.tasks {
		if !t.Done() {
			return false
		}
	}
	return true
}

// Settle runs the loop until nothing is ready: every coroutine has finished
// or waits for something outside the loop's ready queue. A panic of a
// stackful coroutine or a stackless task is raised again here.
func (e *Env) Settle() {
	e.T.Helper()
	for i := 0; i < 1_000_000; i++ {
		if err := e.L.RunOnce(); err != nil {
			e.T.Fatal(err)
		}
		e.repanic()
		if e.L.Pending() == 0 {
			return
		}
	}
	e.T.Fatal("the loop never settled")
}

func (e *Env) repanic() {
	for _, t := range e.tasks {
		if v, ok := t.Panicked(); ok {
			panic(v)
		}
	}
}

// RunUntilDone runs the loop until every coroutine has finished, failing
// the test after limit.
func (e *Env) RunUntilDone(limit time.Duration) {
	e.T.Helper()
	e.RunUntil(limit, e.Done)
}

// RunUntil runs the loop until cond holds, failing the test after limit.
func (e *Env) RunUntil(limit time.Duration, cond func() bool) {
	e.T.Helper()
	deadline := time.Now().Add(limit)
	if cond() {
		return
	}
	// A tick every millisecond checks cond again: it may become true
	// through another goroutine, which does not wake the loop.
	var tick loop.Timer
	var rearm func()
	rearm = func() { e.L.Reset(&tick, time.Millisecond, rearm) }
	rearm()
	err := e.L.Run(func() bool { e.repanic(); return cond() || time.Now().After(deadline) })
	e.L.CancelTimer(&tick)
	e.repanic()
	if err != nil {
		e.T.Fatal(err)
	}
	if !cond() {
		e.T.Fatalf("condition not reached after %v", limit)
	}
}
