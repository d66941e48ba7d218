package cosync_test

import (
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	. "github.com/cogen-go/cogen/runtime/cosync/internal/costest"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

func locker(e *Env, m Model, mu *cosync.Mutex, k int, d time.Duration, name string, log *Log) {
	e.Go(m, func(co *stackful.Co) { Locker(co, mu, k, d, name, log) },
		func() stackless.Frame { return NewLockerFrame(mu, k, d, name, log) })
}

func rwLocker(e *Env, m Model, rw *cosync.RWMutex, write bool, k int, name string, log *Log) {
	e.Go(m, func(co *stackful.Co) { RWLocker(co, rw, write, k, name, log) },
		func() stackless.Frame { return NewRWLockerFrame(rw, write, k, name, log) })
}

func acquirer(e *Env, m Model, s *cosync.Semaphore, n int64, k int, d time.Duration, name string, log *Log) {
	e.Go(m, func(co *stackful.Co) { Acquirer(co, s, n, k, d, name, log) },
		func() stackless.Frame { return NewAcquirerFrame(s, n, k, d, name, log) })
}

// Lockers get the mutex in arrival order, one at a time, each holding it
// across suspensions; one that times out never gets it.
func TestMutexFIFO(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		e := NewEnv(t)
		var mu cosync.Mutex
		log := &Log{}
		locker(e, m, &mu, 3, -1, "a", log)
		locker(e, m, &mu, 1, -1, "b", log)
		locker(e, m, &mu, 1, 0, "now", log)
		locker(e, m, &mu, 1, -1, "c", log)
		e.RunUntilDone(5 * time.Second)
		wantLog(t, log, "a locked", "now lock: loop: timed out", "a unlocked", "b locked", "b unlocked", "c locked", "c unlocked")
		if !mu.TryLock() {
			t.Fatal("mutex still locked")
		}
		mu.Unlock()
		if msg := mustPanic(t, mu.Unlock); msg != "cosync: unlock of unlocked Mutex" {
			t.Fatalf("panic %q", msg)
		}
	})
}

// A waiter that times out or is canceled leaves the queue: Unlock hands the
// mutex to the next live waiter.
func TestMutexGiveUp(t *testing.T) {
	e := NewEnv(t)
	var mu cosync.Mutex
	log := &Log{}
	mu.TryLock()
	locker(e, Stackless, &mu, 0, -1, "canceled", log)
	locker(e, Stackless, &mu, 0, time.Millisecond, "timed", log)
	locker(e, Stackless, &mu, 0, -1, "last", log)
	e.Settle()
	e.Task(0).Cancel()
	e.RunUntil(5*time.Second, func() bool { return len(log.Lines()) == 2 })
	mu.Unlock()
	e.RunUntilDone(5 * time.Second)
	wantLog(t, log, "canceled lock: loop: canceled", "timed lock: loop: timed out", "last locked", "last unlocked")
}

// Readers share the lock; a writer waits for them and excludes everyone;
// readers that arrive while a writer waits queue behind it.
func TestRWMutex(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		e := NewEnv(t)
		var rw cosync.RWMutex
		log := &Log{}
		rwLocker(e, m, &rw, false, 2, "r1", log)
		rwLocker(e, m, &rw, false, 2, "r2", log)
		e.Settle()
		rwLocker(e, m, &rw, true, 1, "w", log)
		e.Settle()
		rwLocker(e, m, &rw, false, 1, "r3", log)
		rwLocker(e, m, &rw, false, 1, "r4", log)
		e.RunUntilDone(5 * time.Second)
		wantLog(t, log, "r1 in", "r2 in", "r1 out", "r2 out", "w in", "w out", "r3 in", "r4 in", "r3 out", "r4 out")
		if !rw.TryLock() {
			t.Fatal("not free")
		}
		if rw.TryRLock() {
			t.Fatal("read lock while write-locked")
		}
		rw.Unlock()
		mustPanic(t, rw.Unlock)
		mustPanic(t, rw.RUnlock)
	})
}

// Wait returns when the count reaches zero, for every waiter; a timed
// waiter gives up first.
func TestWaitGroup(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		e := NewEnv(t)
		var wg cosync.WaitGroup
		log := &Log{}
		wg.Add(2)
		for i, d := range []time.Duration{3 * time.Millisecond, time.Millisecond} {
			name := []string{"slow", "fast"}[i]
			e.Go(m, func(co *stackful.Co) { Worker(co, &wg, d, name, log) },
				func() stackless.Frame { return NewWorkerFrame(&wg, d, name, log) })
		}
		for _, name := range []string{"w1", "w2"} {
			e.Go(m, func(co *stackful.Co) { GroupWaiter(co, &wg, -1, name, log) },
				func() stackless.Frame { return NewGroupWaiterFrame(&wg, -1, name, log) })
		}
		e.Go(m, func(co *stackful.Co) { GroupWaiter(co, &wg, 0, "now", log) },
			func() stackless.Frame { return NewGroupWaiterFrame(&wg, 0, "now", log) })
		e.RunUntilDone(5 * time.Second)
		wantLog(t, log, "now waited loop: timed out", "fast done", "slow done", "w1 waited <nil>", "w2 waited <nil>")
		if msg := mustPanic(t, wg.Done); msg != "cosync: negative WaitGroup counter" {
			t.Fatalf("panic %q", msg)
		}
	})
}

// Weighted acquires are granted in FIFO order while they fit: a large
// request at the head holds back a small one behind it.
func TestSemaphore(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		e := NewEnv(t)
		s := cosync.NewSemaphore(3)
		log := &Log{}
		acquirer(e, m, s, 2, 2, -1, "a", log)
		e.Settle()
		acquirer(e, m, s, 3, 1, -1, "big", log)
		acquirer(e, m, s, 1, 1, -1, "small", log)
		e.RunUntilDone(5 * time.Second)
		wantLog(t, log, "a got 2", "a put 2", "big got 3", "big put 3", "small got 1", "small put 1")
		mustPanic(t, func() { s.Release(1) })
	})
}

// A big waiter at the head that times out lets the smaller ones behind it
// through at once.
func TestSemaphoreHeadGivesUp(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		e := NewEnv(t)
		s := cosync.NewSemaphore(3)
		log := &Log{}
		if !s.TryAcquire(2) {
			t.Fatal("TryAcquire(2)")
		}
		acquirer(e, m, s, 3, 0, time.Millisecond, "big", log)
		acquirer(e, m, s, 1, 0, -1, "small", log)
		e.RunUntilDone(5 * time.Second)
		wantLog(t, log, "big acquire: loop: timed out", "small got 1", "small put 1")
	})
}

// The first caller initializes (suspending meanwhile); the others wait for
// it and then see the value.
func TestOnce(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		e := NewEnv(t)
		var once cosync.Once
		value := 0
		log := &Log{}
		for _, name := range []string{"a", "b", "c"} {
			e.Go(m, func(co *stackful.Co) { OnceUser(co, &once, &value, name, log) },
				func() stackless.Frame { return NewOnceUserFrame(&once, &value, name, log) })
		}
		e.RunUntilDone(5 * time.Second)
		wantLog(t, log, "a init", "a value 42", "b value 42", "c value 42")
		if !once.Done() {
			t.Fatal("not done")
		}
		mustPanic(t, once.End)
	})
}
