//go:build linux

package stackful

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// Ten offloaded calls overlap, and a coroutine of the env keeps running
// meanwhile: each call waits until all ten are in flight and the other
// coroutine has ticked five times. Calls run one at a time, or a loop
// blocked by them, would keep them waiting until the 10 s bound.
func TestOffloadOverlaps(t *testing.T) {
	base := runtime.NumGoroutine()
	e, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	const N = 10
	done := 0
	var started, ticks atomic.Int32
	var stuck atomic.Bool
	allIn := make(chan struct{})
	results := make([]int, N)
	for i := range N {
		start(e, func(co *Co) {
			co.Offload(func() {
				if started.Add(1) == N {
					close(allIn)
				}
				deadline := time.Now().Add(10 * time.Second)
				select {
				case <-allIn:
				case <-time.After(10 * time.Second):
					stuck.Store(true)
				}
				for ticks.Load() < 5 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				results[i] = i * i
			})
			done++
		})
	}
	start(e, func(co *Co) {
		for done < N {
			co.Sleep(5 * time.Millisecond)
			ticks.Add(1)
		}
	})
	e.Run(func() bool { return done == N })
	if stuck.Load() {
		t.Errorf("%d of %d offloaded calls in flight at once: not concurrent", started.Load(), N)
	}
	if n := ticks.Load(); n < 5 {
		t.Errorf("the other coroutine ticked %d times meanwhile", n)
	}
	for i, r := range results {
		if r != i*i {
			t.Fatalf("result %d = %d", i, r)
		}
	}
	e.Close()
	waitGoroutines(t, base) // workers and watchdog end with the env
}

// The limit bounds the calls in flight and the workers; the rest wait on
// the loop.
func TestOffloadLimit(t *testing.T) {
	base := runtime.NumGoroutine()
	e := newEnv(t)
	e.SetOffloadLimit(3)
	if e.OffloadLimit() != 3 {
		t.Fatal(e.OffloadLimit())
	}
	var cur, peak atomic.Int32
	const N = 20
	done := 0
	maxG := 0
	for range N {
		start(e, func(co *Co) {
			co.Offload(func() {
				n := cur.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				time.Sleep(10 * time.Millisecond)
				cur.Add(-1)
			})
			maxG = max(maxG, runtime.NumGoroutine())
			done++
		})
	}
	e.Run(func() bool { return done == N })
	if p := peak.Load(); p != 3 {
		t.Errorf("peak concurrency %d, want 3", p)
	}
	// 20 suspended coroutines, the watchdog and at most 3 workers.
	if maxG > base+N+1+3 {
		t.Errorf("%d goroutines (base %d): more than 3 workers", maxG, base)
	}
}

func TestOffloadPanic(t *testing.T) {
	e := newEnv(t)
	var got any
	co := start(e, func(co *Co) {
		defer func() { got = recover() }()
		co.Offload(func() { panic("boom") })
	})
	e.Run(func() bool { return co.Status() == Dead })
	if got != "boom" {
		t.Fatalf("recovered %v", got)
	}
	// The coroutine's job is reusable after a panic.
	n := 0
	e.Main().Offload(func() { n = 7 })
	if n != 7 {
		t.Fatal(n)
	}
}

// The wait times out: ctx is cancelled and the caller goes on at once.
func TestOffloadContextTimeout(t *testing.T) {
	e := newEnv(t)
	e.SetOffloadLimit(1)
	cancelled := make(chan time.Duration, 1)
	var err error
	t0 := time.Now()
	co := start(e, func(co *Co) {
		err = co.OffloadContext(50*time.Millisecond, func(ctx context.Context) {
			select {
			case <-ctx.Done():
				cancelled <- time.Since(t0)
			case <-time.After(10 * time.Second):
			}
		})
	})
	e.Run(func() bool { return co.Status() == Dead })
	if err != context.DeadlineExceeded || time.Since(t0) > 2*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(t0))
	}
	if d := <-cancelled; d > 2*time.Second {
		t.Fatalf("fn saw the cancellation after %v", d)
	}
	// The slot comes back once fn returns; the next call gets it.
	ok := false
	if err := e.Main().OffloadContext(time.Second, func(context.Context) { ok = true }); err != nil || !ok {
		t.Fatal(err, ok)
	}
}

// Close unwinds a coroutine waiting on an offloaded call; the worker ends
// once the call returns.
func TestOffloadClose(t *testing.T) {
	base := runtime.NumGoroutine()
	e, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	unwound := false
	start(e, func(co *Co) {
		defer func() { unwound = true }()
		co.Offload(func() { <-release })
	})
	e.Close()
	if !unwound {
		t.Fatal("not unwound")
	}
	close(release)
	waitGoroutines(t, base)
}

func TestOffloadAllocs(t *testing.T) {
	e := newEnv(t)
	m := e.Main()
	n := 0
	fn := func() { n++ }
	m.Offload(fn)
	if a := testing.AllocsPerRun(200, func() { m.Offload(fn) }); a != 0 {
		t.Errorf("%v allocs per Offload", a)
	}
	if n != 202 {
		t.Fatal(n)
	}
}

// BenchmarkOffload is the round trip of an offloaded empty call from a
// coroutine: send to a worker, its completion submitted to the loop, the
// coroutine resumed.
func BenchmarkOffload(b *testing.B) {
	e := newEnv(b)
	fn := func() {}
	co := start(e, func(co *Co) {
		for b.Loop() {
			co.Offload(fn)
		}
	})
	e.Run(func() bool { return co.Status() == Dead })
}

// BenchmarkOffloadGoroutine is the same round trip with a goroutine per
// call and a channel, what hook.Offload did before the pool.
func BenchmarkOffloadGoroutine(b *testing.B) {
	e := newEnv(b)
	fn := func() {}
	l := e.Loop()
	co := start(e, func(co *Co) {
		for b.Loop() {
			finished := false
			w := co.Waiter()
			go func() {
				fn()
				l.Submit(func() { finished = true; w.Wake(loop.Ready) })
			}()
			for !finished {
				w.Park(-1)
				co.Await()
			}
		}
	})
	e.Run(func() bool { return co.Status() == Dead })
}

// A limit above the default grows the pool; calls in flight under the old
// one finish.
func TestOffloadLimitGrows(t *testing.T) {
	base := runtime.NumGoroutine()
	e, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	var cur, peak atomic.Int32
	release := make(chan struct{})
	fn := func() {
		n := cur.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		<-release
		cur.Add(-1)
	}
	done := 0
	const N = 100
	for i := range N {
		if i == 10 {
			e.SetOffloadLimit(N) // ten calls in flight on the default pool
		}
		start(e, func(co *Co) { co.Offload(fn); done++ })
	}
	for t0 := time.Now(); cur.Load() < N && time.Since(t0) < 10*time.Second; {
		e.Main().Sleep(time.Millisecond) // runs the loop
	}
	close(release)
	e.Run(func() bool { return done == N })
	if p := peak.Load(); p != N {
		t.Errorf("peak concurrency %d, want %d", p, N)
	}
	e.Close()
	waitGoroutines(t, base)
}
