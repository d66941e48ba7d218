package gate_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// runCoroutines runs fn(co, i) in n hooked coroutines of a fresh env until
// all have returned, and fails t with the first error; a stall fails the
// test instead of hanging it. The env is closed before it returns.
func runCoroutines(t *testing.T, n int, setup func(env *stackful.Env), fn func(co *stackful.Co, i int) error) {
	t.Helper()
	env, err := stackful.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if setup != nil {
		setup(env)
	}
	runCoroutinesOn(t, env, n, fn)
}

// runCoroutinesOn is runCoroutines on an existing env.
func runCoroutinesOn(t *testing.T, env *stackful.Env, n int, fn func(co *stackful.Co, i int) error) {
	t.Helper()
	env.SetStallTimeout(2 * time.Second)
	env.OnStall(func(s stackful.Stall) {
		if s.Blocked {
			panic(fmt.Sprintf("stall in %s:\n%s", t.Name(), s))
		}
	})
	done := 0
	var errs []error
	for i := range n {
		co := env.Create(func(co *stackful.Co) {
			defer func() { done++ }()
			co.EnableHook()
			if err := fn(co, i); err != nil {
				errs = append(errs, fmt.Errorf("coroutine %d: %w", i, err))
			}
		}, nil)
		co.Resume()
	}
	if err := env.Run(func() bool { return done == n }); err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Fatalf("%d of %d coroutines failed; first: %v", len(errs), n, errs[0])
	}
}

// noLeaks checks, at the end of the test, that the goroutine and fd
// counts are back to what they are now (waiting up to 3 s for goroutines
// that are ending).
func noLeaks(t *testing.T) {
	t.Helper()
	g0, f0 := runtime.NumGoroutine(), fdCount(t)
	t.Cleanup(func() {
		var g, f int
		for range 300 {
			if g, f = runtime.NumGoroutine(), fdCount(t); g <= g0 && f <= f0 {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		buf := make([]byte, 1<<20)
		t.Errorf("leak: %d goroutines (was %d), %d fds (was %d)\n%s", g, g0, f, f0, buf[:runtime.Stack(buf, true)])
	})
}

func fdCount(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}
