//go:build unix

package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// timerDurations are the timer durations both add+cancel benchmarks use:
// random, from 1 ms to 10 s, so the wheel places them on several levels.
func timerDurations() []time.Duration {
	rng := rand.New(rand.NewPCG(11, 12))
	ds := make([]time.Duration, 1024)
	for i := range ds {
		ds[i] = time.Millisecond + time.Duration(rng.Int64N(int64(10*time.Second)))
	}
	return ds
}

// WheelAddCancel is one Loop.Reset plus Loop.Stop of a reused Timer: the
// loop's equivalent of time.AfterFunc + Stop.
func WheelAddCancel(b *testing.B) {
	l := newLoop(b)
	ds := timerDurations()
	var t loop.Timer
	fn := func() {}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		l.Reset(&t, ds[i&(len(ds)-1)], fn)
		l.CancelTimer(&t)
		i++
	}
}

// AfterFuncStop is the Go baseline for WheelAddCancel.
func AfterFuncStop(b *testing.B) {
	ds := timerDurations()
	fn := func() {}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		time.AfterFunc(ds[i&(len(ds)-1)], fn).Stop()
		i++
	}
}

// SleepModels are the models Sleepers runs.
var SleepModels = []string{"stackful", "stackless", "goroutine"}

// SleepResult is what Sleepers measured.
type SleepResult struct {
	N     int
	Start time.Duration // from the first start to the last coroutine asleep
	// Lateness of the wake-ups: how long after its deadline (its call to
	// sleep plus the duration) each coroutine ran again.
	LateP50, LateP99, LateMax time.Duration
	Early                     int // wake-ups before the deadline (must be 0)
}

// sleepersTurn is how many coroutines Sleepers starts between two turns of
// the loop in the loop models. A loop serves its timers only while it
// runs, so a creator that never gave it a turn would make the first
// sleepers as late as the creation of the others takes beyond d: seconds
// for 100,000 stackful coroutines on a loaded machine, which measured the
// creation (the start row) a second time. The goroutines' timers, served by
// the runtime on any P, never waited for their creator. A server's accept
// loop gives its loop such a turn at every accept that would block.
const sleepersTurn = 100

// Sleepers starts n coroutines of the model (stackful coroutines calling
// Co.Sleep, stackless tasks calling Task.Sleep, goroutines calling
// time.Sleep), each of which sleeps for d once and records when it woke,
// and returns how long starting them all took and how late they woke. The
// loop models give their loop a turn after every sleepersTurn coroutines.
// Deadlines are taken from time.Now at each call to sleep, and wake-ups
// from time.Now when the coroutine runs again, in every model. Run it in a
// process of its own: the goroutines and stacks it leaves are garbage.
func Sleepers(model string, n int, d time.Duration) (SleepResult, error) {
	due := make([]time.Time, n)
	woke := make([]time.Time, n)
	var start time.Duration
	switch model {
	case "stackful":
		e, err := stackful.NewEnv()
		if err != nil {
			return SleepResult{}, err
		}
		defer e.Close()
		done := 0
		t0 := time.Now()
		for i := range n {
			e.Create(func(co *stackful.Co) {
				due[i] = time.Now().Add(d)
				co.Sleep(d)
				woke[i] = time.Now()
				done++
			}, nil).Resume()
			if (i+1)%sleepersTurn == 0 {
				if err := e.Loop().RunOnce(); err != nil {
					return SleepResult{}, err
				}
			}
		}
		start = time.Since(t0)
		if err := e.Run(func() bool { return done == n }); err != nil {
			return SleepResult{}, err
		}
	case "stackless":
		l, err := loop.New()
		if err != nil {
			return SleepResult{}, err
		}
		defer l.Close()
		tasks := make([]*stackless.Task, n)
		t0 := time.Now()
		for i := range tasks {
			tasks[i] = stackless.Spawn(l, &sleepFrame{d: d, due: &due[i], woke: &woke[i]})
			if (i+1)%sleepersTurn == 0 {
				if err := l.RunOnce(); err != nil {
					return SleepResult{}, err
				}
			}
		}
		// Spawn queues each task's first step: the tasks are asleep once
		// the loop has run the queue once.
		if err := l.RunOnce(); err != nil {
			return SleepResult{}, err
		}
		start = time.Since(t0)
		if err := stackless.Run(l, tasks...); err != nil {
			return SleepResult{}, err
		}
	case "goroutine":
		var wg sync.WaitGroup
		var asleep sync.WaitGroup
		wg.Add(n)
		asleep.Add(n)
		t0 := time.Now()
		for i := range n {
			go func() {
				defer wg.Done()
				due[i] = time.Now().Add(d)
				asleep.Done()
				time.Sleep(d)
				woke[i] = time.Now()
			}()
		}
		asleep.Wait()
		start = time.Since(t0)
		wg.Wait()
	default:
		return SleepResult{}, fmt.Errorf("bench: unknown sleep model %q", model)
	}
	late := make([]time.Duration, n)
	r := SleepResult{N: n, Start: start}
	for i := range late {
		late[i] = woke[i].Sub(due[i])
		if late[i] < 0 {
			r.Early++
		}
	}
	slices.Sort(late)
	r.LateP50, r.LateP99, r.LateMax = late[n/2], late[n*99/100], late[n-1]
	return r, nil
}

// sleepFrame is the frame of
//
//	func sleeper(t *Task, d time.Duration, due, woke *time.Time) {
//		*due = time.Now().Add(d)
//		t.Sleep(d)
//		*woke = time.Now()
//	}
type sleepFrame struct {
	stackless.Base
	d         time.Duration
	due, woke *time.Time
}

func (f *sleepFrame) Step(t *stackless.Task) stackless.Status {
	if f.PC == 0 {
		*f.due = time.Now().Add(f.d)
		f.PC = 1
	}
	t.Sleep(f.d)
	if t.Blocked() {
		return stackless.Suspend
	}
	*f.woke = time.Now()
	return stackless.Done
}
