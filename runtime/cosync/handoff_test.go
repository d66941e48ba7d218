package cosync_test

import (
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	. "github.com/cogen-go/cogen/runtime/cosync/internal/costest"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// The hand-off's fairness bound: a pair taking turns over unbuffered
// channels runs its hand-offs next, but a coroutine that moved to the back
// of the ready queue still runs after at most a bounded number of them
// (the loop's 64 run-next runs in a row, 32 round trips), in both models,
// so it finishes long before the pair does.
func TestHandOffFairness(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		const trips, spins, bound = 3000, 20, 40
		e := NewEnv(t)
		ping, pong := cosync.NewChan[int](0), cosync.NewChan[int](0)
		done, seen := 0, []int(nil)
		e.Go(m, func(co *stackful.Co) { Echo(co, ping, pong) },
			func() stackless.Frame { return NewEchoFrame(ping, pong) })
		e.Go(m, func(co *stackful.Co) { Pinger(co, ping, pong, trips, &done) },
			func() stackless.Frame { return NewPingerFrame(ping, pong, trips, &done) })
		e.Go(m, func(co *stackful.Co) { Spinner(co, spins, &done, &seen) },
			func() stackless.Frame { return NewSpinnerFrame(spins, &done, &seen) })
		e.RunUntilDone(10 * time.Second)
		if done != trips || len(seen) != spins {
			t.Fatalf("%d round trips, %d spins", done, len(seen))
		}
		// Before the spinner's first run, the pair had one turn of the
		// ready queue more.
		if seen[0] > 2*bound {
			t.Fatalf("%d round trips before the first spin, bound %d (seen %v)", seen[0], 2*bound, seen)
		}
		prev := seen[0]
		for i, s := range seen[1:] {
			if s-prev > bound {
				t.Fatalf("spin %d: %d round trips since the last one, bound %d (seen %v)", i, s-prev, bound, seen)
			}
			prev = s
		}
		if seen[spins-1] >= trips {
			t.Fatalf("the spinner finished after the pair: %v", seen)
		}
	})
}

// A stackful coroutine resumed by the loop that hands a value over and then
// waits switches straight to the receiver, which runs nested in it
// (depth 3: main, the sender, the receiver) instead of being resumed by
// the loop (depth 2). The one the loop resumed receives its answers at
// depth 2 without a trip through the loop; when the chain reaches the
// loop's bound, the loop resumes the other one, and the roles swap. So
// about half of all receives are at depth 3; without the direct switch,
// none is.
func TestHandOffStackfulDirect(t *testing.T) {
	e := NewEnv(t)
	env := stackful.NewEnvOn(e.L)
	defer env.Close()
	ping, pong := cosync.NewChan[int](0), cosync.NewChan[int](0)
	const trips = 200
	depths := map[int]int{}
	ponger := env.Create(func(co *stackful.Co) {
		for {
			v, ok := ping.Recv(co)
			if !ok {
				return
			}
			depths[env.Depth()]++
			pong.Send(co, v)
		}
	}, nil)
	pinger := env.Create(func(co *stackful.Co) {
		co.Gosched() // from here on, the loop resumes it
		for i := range trips {
			ping.Send(co, i)
			if v, _ := pong.Recv(co); v != i {
				t.Errorf("round trip %d answered %d", i, v)
			}
			depths[env.Depth()]++
		}
		ping.Close()
	}, nil)
	ponger.Resume()
	pinger.Resume()
	if err := env.Run(func() bool { return ponger.Status() == stackful.Dead && pinger.Status() == stackful.Dead }); err != nil {
		t.Fatal(err)
	}
	if depths[3] < 2*trips*4/10 || depths[2]+depths[3] != 2*trips {
		t.Fatalf("receives by depth: %v; want about half at depth 3 (switched to directly), the rest at 2", depths)
	}
}

// A coroutine run by a direct switch that panics does not panic in the
// waiting coroutine that switched to it: the panic leaves Env.Run, as if
// the loop had resumed the panicking coroutine itself, and the waiter
// stays suspended in its wait.
func TestHandOffStackfulPanic(t *testing.T) {
	e := NewEnv(t)
	env := stackful.NewEnvOn(e.L)
	c, done := cosync.NewChan[int](0), cosync.NewChan[int](0)
	var caught any
	b := env.Create(func(co *stackful.Co) {
		c.Recv(co)
		panic("b's panic")
	}, nil)
	a := env.Create(func(co *stackful.Co) {
		defer func() {
			if r := recover(); r != nil && !stackful.Unwinding(r) {
				caught = r
			}
		}()
		co.Gosched() // from here on, the loop resumes it
		c.Send(co, 1)
		done.Recv(co)
	}, nil)
	b.Resume()
	a.Resume()
	got := func() (p any) {
		defer func() { p = recover() }()
		env.Run(func() bool { return b.Status() == stackful.Dead })
		return nil
	}()
	if got != "b's panic" {
		t.Fatalf("Env.Run panicked with %v, want b's panic", got)
	}
	if caught != nil || a.Status() != stackful.Suspended || b.Status() != stackful.Dead {
		t.Fatalf("a caught %v; a %v, b %v; want nothing, suspended, dead", caught, a.Status(), b.Status())
	}
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	if caught != nil || a.Status() != stackful.Dead {
		t.Fatalf("after Close: a caught %v, a %v", caught, a.Status())
	}
}
