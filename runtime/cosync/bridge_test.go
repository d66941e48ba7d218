package cosync_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	. "github.com/cogen-go/cogen/runtime/cosync/internal/costest"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// Goroutines outside the loop send to and receive from coroutines of both
// models through the bridge, and signal a WaitGroup; every value arrives
// once, in each sender's order.
//
// The loop runs until the receiving goroutine has its three values, not
// only until every coroutine has finished: the coroutine sender ends with
// its last value in the channel's buffer, and the goroutine's last GoRecv
// is handled by the loop afterwards. A loop stopped at "every coroutine
// finished" left that GoRecv queued on a loop that no longer ran, and the
// test hung (seen under load with -tags cogen_netpoll). The late variant
// forces that order: the goroutine makes its last GoRecv only once every
// coroutine has finished.
func TestBridgeGoroutines(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) { bridgeGoroutines(t, m, false) })
	forModels(t, func(t *testing.T, m Model) {
		t.Run("late", func(t *testing.T) { bridgeGoroutines(t, m, true) })
	})
}

func bridgeGoroutines(t *testing.T, m Model, late bool) {
	e := NewEnv(t)
	in := cosync.NewChanOn[int](e.L, 0)
	out := cosync.NewChanOn[int](e.L, 1)
	var wg cosync.WaitGroup
	wg.Bind(e.L)
	const senders, each = 4, 50
	log := &Log{}
	receiver(e, m, in, -1, "r", log)
	sender(e, m, out, []int{1, 2, 3}, "s", log)
	wg.Add(senders)
	var got []int
	var gmu sync.Mutex
	errs := make(chan error, senders+1)
	var recvEnded atomic.Bool      // the receiving goroutine has returned
	release := make(chan struct{}) // closed once every coroutine has finished
	for g := range senders {
		go func() {
			defer wg.GoDone()
			for i := range each {
				if err := in.GoSend(context.Background(), g*1000+i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	go func() {
		defer recvEnded.Store(true)
		for i := range 3 {
			if late && i == 2 {
				<-release
			}
			v, ok, err := out.GoRecv(context.Background())
			if err != nil || !ok {
				errs <- errors.Join(err, errors.New("out closed"))
				return
			}
			gmu.Lock()
			got = append(got, v)
			gmu.Unlock()
		}
		errs <- nil
	}()
	done := false
	e.Go(m, func(co *stackful.Co) { wg.Wait(co); in.Close(); done = true },
		func() stackless.Frame { return NewGroupWaiterFrame(&wg, -1, "w", log) })
	if m == Stackless {
		e.RunUntil(20*time.Second, func() bool { return wg.Count() == 0 })
		in.Close()
		done = true
	}
	released := false
	e.RunUntil(20*time.Second, func() bool {
		if done && e.Done() && !released {
			close(release)
			released = true
		}
		return done && e.Done() && recvEnded.Load()
	})
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	last := map[int]int{}
	n := 0
	for _, l := range log.Lines() {
		var v int
		var name string
		if _, err := fmtSscanf(l, "%s got %d", &name, &v); err == nil && name == "r" {
			g, i := v/1000, v%1000
			if prev, ok := last[g]; ok && i != prev+1 {
				t.Fatalf("sender %d: %d after %d", g, i, prev)
			}
			last[g] = i
			n++
		}
	}
	if n != senders*each {
		t.Fatalf("received %d values, want %d", n, senders*each)
	}
	gmu.Lock()
	defer gmu.Unlock()
	if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("goroutine received %v", got)
	}
}

// A goroutine's receive ended by its context returns ctx.Err() and leaves
// no live record: a later value is not taken by it.
func TestBridgeContextCancel(t *testing.T) {
	e := NewEnv(t)
	c := cosync.NewChanOn[int](e.L, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	res := make(chan error, 1)
	go func() {
		_, _, err := c.GoRecv(ctx)
		res <- err
	}()
	var err error
	got := false
	e.RunUntil(10*time.Second, func() bool {
		if !got {
			select {
			case err = <-res:
				got = true
			default:
			}
		}
		return got
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	if c.TrySend(1) {
		t.Fatal("a canceled goroutine receiver took a value")
	}
}

// A coroutine of one loop sends to and receives from coroutines of another
// loop, in both models: each loop runs on its own goroutine.
func TestBridgeCrossLoop(t *testing.T) {
	forModels(t, func(t *testing.T, m Model) {
		l1, err := loop.New()
		if err != nil {
			t.Fatal(err)
		}
		ping := cosync.NewChanOn[int](l1, 0)
		pong := cosync.NewChanOn[int](l1, 0)
		var mu cosync.Mutex
		mu.Bind(l1)
		const n = 200
		var wg sync.WaitGroup
		var sum1, sum2 int
		stop1 := make(chan struct{})
		wg.Go(func() { // loop 1: echo side
			defer l1.Close()
			e := stackful.NewEnvOn(l1)
			defer e.Close()
			co := e.Create(func(co *stackful.Co) {
				for {
					v, ok := ping.Recv(co)
					if !ok {
						return
					}
					mu.Lock(co)
					sum1 += v
					mu.Unlock()
					pong.Send(co, v*2)
				}
			}, nil)
			co.Resume()
			l1.Run(func() bool {
				select {
				case <-stop1:
					return co.Status() == stackful.Dead
				default:
					return false
				}
			})
		})
		wg.Go(func() { // loop 2: the model under test, using loop 1's channels and mutex
			defer func() {
				close(stop1)
				l1.Submit(func() {}) // loop 1 checks its stop function again
			}()
			l2, err := loop.New()
			if err != nil {
				t.Error(err)
				return
			}
			defer l2.Close()
			e := stackful.NewEnvOn(l2)
			defer e.Close()
			log := &Log{}
			var done func() bool
			body := func(co *stackful.Co) {
				for i := 1; i <= n; i++ {
					ping.Send(co, i)
					v, _ := pong.Recv(co)
					mu.Lock(co)
					sum2 += v
					cosync.Call(co, mu.Loop(), mu.Unlock)
				}
				cosync.Call(co, ping.Loop(), ping.Close)
			}
			if m == Stackful {
				co := e.Create(body, nil)
				co.Resume()
				done = func() bool { return co.Status() == stackful.Dead }
			} else {
				task := stackless.Spawn(l2, NewCrossPingFrame(ping, pong, &mu, n, &sum2, log))
				done = task.Done
			}
			deadline := time.Now().Add(20 * time.Second)
			if err := l2.Run(func() bool { return done() || time.Now().After(deadline) }); err != nil {
				t.Error(err)
			}
			if !done() {
				t.Error("loop 2's coroutine did not finish")
			}
		})
		wg.Wait()
		if sum1 != n*(n+1)/2 || sum2 != n*(n+1) {
			t.Fatalf("sums %d %d", sum1, sum2)
		}
	})
}

// Goroutines and coroutines share a Mutex and a Semaphore through the
// bridge: mutual exclusion and the semaphore's bound hold across both, and
// a goroutine's GoWait returns once the coroutines are done.
func TestBridgeLocks(t *testing.T) {
	e := NewEnv(t)
	var mu cosync.Mutex
	mu.Bind(e.L)
	sem := cosync.NewSemaphore(2)
	sem.Bind(e.L)
	var wg cosync.WaitGroup
	wg.Bind(e.L)
	var inMu, inSem, maxSem atomic.Int32
	var bad atomic.Bool
	enter := func() {
		if inMu.Add(1) != 1 {
			bad.Store(true)
		}
	}
	hold := func() {
		n := inSem.Add(1)
		for m := maxSem.Load(); n > m && !maxSem.CompareAndSwap(m, n); m = maxSem.Load() {
		}
	}
	const coroutines, goroutines, rounds = 4, 3, 30
	wg.Add(coroutines)
	for range coroutines {
		e.Go(Stackful, func(co *stackful.Co) {
			for range rounds {
				mu.Lock(co)
				enter()
				co.Gosched()
				inMu.Add(-1)
				mu.Unlock()
				sem.Acquire(co, 1)
				hold()
				co.Gosched()
				inSem.Add(-1)
				sem.Release(1)
			}
			wg.Done()
		}, nil)
	}
	var gdone sync.WaitGroup
	errs := make(chan error, goroutines+1)
	for range goroutines {
		gdone.Go(func() {
			for range rounds {
				if err := mu.GoLock(context.Background()); err != nil {
					errs <- err
					return
				}
				enter()
				time.Sleep(10 * time.Microsecond)
				inMu.Add(-1)
				mu.GoUnlock()
				if err := sem.GoAcquire(context.Background(), 1); err != nil {
					errs <- err
					return
				}
				hold()
				inSem.Add(-1)
				sem.GoRelease(1)
			}
		})
	}
	waited := make(chan error, 1)
	go func() { waited <- wg.GoWait(context.Background()) }()
	finished := make(chan struct{})
	go func() { gdone.Wait(); close(finished) }()
	var werr error
	gotWait, gotAll := false, false
	e.RunUntil(30*time.Second, func() bool {
		if !gotWait {
			select {
			case werr = <-waited:
				gotWait = true
			default:
			}
		}
		if !gotAll {
			select {
			case <-finished:
				gotAll = true
			default:
			}
		}
		return gotWait && gotAll && e.Done()
	})
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if werr != nil {
		t.Fatal(werr)
	}
	if bad.Load() {
		t.Fatal("two holders of the mutex at once")
	}
	if m := maxSem.Load(); m > 2 || m < 1 {
		t.Fatalf("%d holders of a semaphore of 2", m)
	}
	if !mu.TryLock() || !sem.TryAcquire(2) {
		t.Fatal("the locks were not all released")
	}
}

// A stackless task canceled while its receive runs on another loop gets
// ErrCanceled, and the remote receive is withdrawn: a later send from a
// goroutine finds no receiver. A task canceled before it calls returns at
// once.
func TestBridgeCrossLoopCancel(t *testing.T) {
	l1, err := loop.New()
	if err != nil {
		t.Fatal(err)
	}
	c := cosync.NewChanOn[int](l1, 0)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer l1.Close()
		l1.Run(func() bool {
			select {
			case <-stop:
				return true
			default:
				return false
			}
		})
	})
	defer func() {
		close(stop)
		l1.Submit(func() {})
		wg.Wait()
	}()
	e := NewEnv(t)
	log := &Log{}
	timedRecv(e, Stackless, c, -1, "a", log)
	e.RunUntil(5*time.Second, func() bool { return e.L.Stats().Armed == 1 })
	e.Task(0).Cancel()
	timedRecv(e, Stackless, c, -1, "b", log)
	e.Task(1).Cancel()
	e.RunUntilDone(5 * time.Second)
	got := slices.Clone(log.Lines())
	slices.Sort(got)
	if !slices.Equal(got, []string{"a recv 0 false loop: canceled", "b recv 0 false loop: canceled"}) {
		t.Fatalf("got %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.GoSend(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("GoSend: %v (a canceled receiver took it?)", err)
	}
}
