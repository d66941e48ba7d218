// Package cotest holds the helpers that the tests of the stackful packages
// share: an env bound to a test, coroutines with hooks on, running an env's
// loop until a condition holds, a ticker coroutine that proves an env keeps
// running while another coroutine waits, and leak counters.
package cotest

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// NewEnv returns an env closed when the test ends. Like every env, it must
// be used on the goroutine that created it: the test's.
func NewEnv(t testing.TB) *stackful.Env {
	t.Helper()
	e, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// Spawn starts fn in a new coroutine of e with hooks enabled and runs it to
// its first suspension.
func Spawn(e *stackful.Env, fn func(co *stackful.Co)) *stackful.Co {
	co := e.Create(func(co *stackful.Co) {
		co.EnableHook()
		fn(co)
	}, nil)
	co.Resume()
	return co
}

// RunUntil runs e's loop until done reports true, failing the test if that
// takes longer than limit.
func RunUntil(t testing.TB, e *stackful.Env, limit time.Duration, done func() bool) {
	t.Helper()
	expired := false
	var guard loop.Timer
	e.Loop().Reset(&guard, limit, func() { expired = true })
	if !done() {
		if err := e.Run(func() bool { return expired || done() }); err != nil {
			t.Fatal(err)
		}
	}
	e.Loop().CancelTimer(&guard)
	if !done() {
		t.Fatalf("not done after %v", limit)
	}
}

// A Ticker is a coroutine that counts 1 ms sleeps: proof that its env keeps
// running while another coroutine waits. A call that blocks the env lets it
// advance at most once.
type Ticker struct {
	N    int  // sleeps completed
	Stop bool // set to end the ticker
	Done bool // the ticker has ended
}

// StartTicker starts a ticker coroutine in e.
func StartTicker(e *stackful.Env) *Ticker {
	tk := new(Ticker)
	Spawn(e, func(co *stackful.Co) {
		for !tk.Stop {
			co.Sleep(time.Millisecond)
			tk.N++
		}
		tk.Done = true
	})
	return tk
}

// End stops the ticker and runs e until it has ended.
func (tk *Ticker) End(t testing.TB, e *stackful.Env) {
	t.Helper()
	tk.Stop = true
	RunUntil(t, e, time.Second, func() bool { return tk.Done })
}

// OpenFDs counts this process's open descriptors; it skips the test where
// /proc/self/fd is missing.
func OpenFDs(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	return len(ents)
}

// SettledGoroutines waits up to a second for exiting goroutines to end and
// returns how many are left.
func SettledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 200 && n > want; i++ {
		time.Sleep(5 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}
