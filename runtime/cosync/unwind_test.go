package cosync_test

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/cogen-go/cogen/runtime/cosync/internal/costest"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

func blockAll(e *Env, m Model, p *Prims, log *Log) {
	for _, op := range append([]string{"once"}, BlockOps...) {
		e.Go(m, func(co *stackful.Co) { Blocker(co, op, p, log) },
			func() stackless.Frame { return NewBlockerFrame(op, p, log) })
	}
	e.Settle()
}

// checkNoWaiters fails unless every primitive of p is free of live
// waiters: each operation a waiter would have taken finds nobody.
func checkNoWaiters(t *testing.T, p *Prims) {
	t.Helper()
	if p.R.TrySend(1) || p.C.TrySend(1) {
		t.Error("a receiver is still queued")
	}
	if _, _, ready := p.S.TryRecv(); ready {
		t.Error("a sender is still queued on S")
	}
	if _, _, ready := p.D.TryRecv(); ready {
		t.Error("a sender is still queued on D")
	}
	p.Mu.Unlock()
	if !p.Mu.TryLock() {
		t.Error("Unlock handed the mutex to a dead waiter")
	}
	p.RW.Unlock()
	if !p.RW.TryRLock() {
		t.Error("Unlock handed the RWMutex to a dead waiter")
	}
	p.WG.Done()
	p.Sem.Release(1)
	if !p.Sem.TryAcquire(1) {
		t.Error("Release granted the semaphore to a dead waiter")
	}
	p.Once.End()
}

// Canceling blocked stackless tasks ends each primitive's operation with
// ErrCanceled (Select: -1), disarms every waiter, and leaves no record that
// a later operation would deliver to.
func TestCancelEveryPrimitive(t *testing.T) {
	e := NewEnv(t)
	p := NewPrims()
	log := &Log{}
	blockAll(e, Stackless, p, log)
	if armed := armedWaiters(t, e.L); armed != len(BlockOps) {
		t.Fatalf("%d armed waiters, want %d", armed, len(BlockOps))
	}
	for i := range len(BlockOps) + 1 {
		e.Task(i).Cancel()
	}
	e.RunUntilDone(5 * time.Second)
	got := slices.Clone(log.Lines())
	slices.Sort(got)
	want := []string{"acquire loop: canceled", "lock loop: canceled", "once false loop: canceled", "once true <nil>",
		"recv false loop: canceled", "rlock loop: canceled", "select -1", "send loop: canceled", "wait loop: canceled"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if armed := armedWaiters(t, e.L); armed != 0 {
		t.Fatalf("%d waiters still armed", armed)
	}
	checkNoWaiters(t, p)
}

// Env.Close unwinds stackful coroutines blocked on every primitive: their
// goroutines end and the primitives keep no live waiter.
func TestEnvCloseEveryPrimitive(t *testing.T) {
	goroutines := runtime.NumGoroutine()
	e := NewEnv(t)
	p := NewPrims()
	log := &Log{}
	env := stackful.NewEnvOn(e.L)
	for _, op := range append([]string{"once"}, BlockOps...) {
		env.Create(func(co *stackful.Co) { Blocker(co, op, p, log) }, nil).Resume()
	}
	if env.Live() != len(BlockOps) {
		t.Fatalf("%d live coroutines", env.Live())
	}
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	wantLog(t, log, "once true <nil>")
	if armed := armedWaiters(t, e.L); armed != 0 {
		t.Fatalf("%d waiters still armed", armed)
	}
	checkNoWaiters(t, p)
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > goroutines+1 { // +1: the env's watchdog, if any, ends with the test's env
		if time.Now().After(deadline) {
			t.Fatalf("goroutines %d -> %d", goroutines, runtime.NumGoroutine())
		}
		time.Sleep(time.Millisecond)
	}
}

// Closing the loop ends every blocked operation with the loop's error, in
// both models.
func TestLoopCloseEveryPrimitive(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		e := NewEnv(t)
		p := NewPrims()
		log := &Log{}
		blockAll(e, m, p, log)
		e.L.Close()
		got := slices.Clone(log.Lines())
		slices.Sort(got)
		for _, l := range got {
			if l != "once true <nil>" && l != "select -1" && !strings.HasSuffix(l, "loop: loop closed: use of closed network connection") {
				t.Errorf("unexpected outcome %q", l)
			}
		}
		if len(got) != len(BlockOps)+1 {
			t.Fatalf("got %q", got)
		}
	})
}

// armedWaiters returns the loop's count of armed waiters, read on the loop.
func armedWaiters(t *testing.T, l *loop.Loop) int { return l.Stats().Armed }
