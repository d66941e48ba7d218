package cosync_test

import (
	"testing"

	"github.com/cogen-go/cogen/runtime/cosync"
	. "github.com/cogen-go/cogen/runtime/cosync/internal/costest"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Operations that complete at once allocate nothing (the blocking paths
// are measured by the benchmarks, which report 0 allocs/op).
func TestFastPathsDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	e := NewEnv(t)
	c := cosync.NewChan[int](1)
	var mu cosync.Mutex
	var rw cosync.RWMutex
	var wg cosync.WaitGroup
	sem := cosync.NewSemaphore(2)
	var once cosync.Once
	results := map[string]float64{}
	e.Go(Stackful, func(co *stackful.Co) {
		c.Send(co, 0) // the first use allocates the home of the coroutine's operation slot
		c.Recv(co)
		results["chan send+recv"] = testing.AllocsPerRun(100, func() {
			c.Send(co, 1)
			c.Recv(co)
		})
		results["mutex"] = testing.AllocsPerRun(100, func() {
			mu.Lock(co)
			mu.Unlock()
		})
		results["rwmutex"] = testing.AllocsPerRun(100, func() {
			rw.RLock(co)
			rw.RUnlock()
			rw.Lock(co)
			rw.Unlock()
		})
		results["waitgroup"] = testing.AllocsPerRun(100, func() { wg.Wait(co) })
		results["semaphore"] = testing.AllocsPerRun(100, func() {
			sem.Acquire(co, 2)
			sem.Release(2)
		})
		once.Begin(co)
		once.End()
		results["once"] = testing.AllocsPerRun(100, func() { once.Begin(co) })
		var v int
		results["select"] = testing.AllocsPerRun(100, func() {
			c.TrySend(1)
			cosync.Select(co, c.RecvCase(&v, nil), cosync.Default())
		})
	}, nil)
	e.RunUntilDone(5e9)
	for op, n := range results {
		if n != 0 {
			t.Errorf("%s: %v allocs per run", op, n)
		}
	}
	if len(results) != 7 {
		t.Fatalf("%d results", len(results))
	}
}
