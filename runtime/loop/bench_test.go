//go:build linux

package loop

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkWheelAddCancel and BenchmarkAfterFuncStop are in
// bench_ext_test.go: their bodies live in internal/bench, shared with
// cmd/cobench.

// BenchmarkWheelFire1M adds 1,000,000 timers to a loop, with deadlines
// spread at random over one second, runs the loop until all have fired, and
// reports the worst lateness (ms-late-max: the loop's Now in the callback
// minus the deadline). The second starts once the adds are surely done (at
// least 250 ms after the first, three times the time measured for a sample
// of adds on a loaded machine), so that no timer is due before the loop
// runs: what is measured is the firing, not the setup (ms-setup reports
// that). One iteration is one full run, a little over a second.
func BenchmarkWheelFire1M(b *testing.B) {
	const n = 1_000_000
	timers := make([]Timer, n)
	rng := rand.New(rand.NewPCG(13, 14))
	offsets := make([]int64, n) // timer i is due at base + offsets[i]
	for i := range offsets {
		offsets[i] = rng.Int64N(int64(time.Second))
	}
	sorted := slices.Clone(offsets)
	slices.Sort(sorted)
	var worst, setup time.Duration
	for range b.N {
		l, err := New()
		if err != nil {
			b.Fatal(err)
		}
		// The wheel fires in deadline order, so the k-th callback belongs to
		// the k-th smallest deadline: one shared callback, no per-timer
		// closure. (Were the order wrong, this would under-report, never
		// over-report: the k-th fire cannot precede the k-th deadline.)
		var base int64
		k, early := 0, 0
		fn := func() {
			late := l.Now() - time.Duration(base+sorted[k])
			k++
			if late < 0 {
				early++
			}
			worst = max(worst, late)
		}
		start := l.Now()
		const sample = n / 50
		for i := range sample {
			l.Reset(&timers[i], time.Hour, fn)
		}
		for i := range sample {
			l.CancelTimer(&timers[i])
		}
		margin := max(250*time.Millisecond, 3*(l.Now()-start)*n/sample)
		start = l.Now()
		base = int64(start + margin)
		for i := range timers {
			l.Reset(&timers[i], time.Duration(base+offsets[i])-l.Now(), fn)
		}
		setup = max(setup, l.Now()-start)
		if err := l.Run(func() bool { return k == n }); err != nil {
			b.Fatal(err)
		}
		l.Close()
		if early > 0 {
			b.Fatalf("%d timers fired early", early)
		}
	}
	b.ReportMetric(float64(worst)/float64(time.Millisecond), "ms-late-max")
	b.ReportMetric(float64(setup)/float64(time.Millisecond), "ms-setup")
}

// BenchmarkReadyQueue is one push and one pop on the ready queue.
func BenchmarkReadyQueue(b *testing.B) {
	var q readyQueue
	var w Waiter
	b.ReportAllocs()
	for b.Loop() {
		q.push(&w)
		if q.pop() != &w {
			b.Fatal("lost the waiter")
		}
	}
}

// BenchmarkWakeRun is a whole wake-up: arm a waiter, wake it, and run it
// from the ready queue.
func BenchmarkWakeRun(b *testing.B) {
	l := newLoop(b)
	var w Waiter
	runs := 0
	w.Init(l, fnRunner(func() { runs++ }))
	b.ReportAllocs()
	for b.Loop() {
		w.Park(-1)
		w.Wake(Ready)
		l.runReady(1)
	}
	if runs == 0 {
		b.Fatal("never ran")
	}
}

// pinger bounces one byte: it reads from rfd and, on each byte, writes one
// to wfd. The initiator counts round trips.
type pinger struct {
	w         Waiter
	l         *Loop
	rfd, wfd  int
	buf       [1]byte
	rounds    int
	limit     int
	initiator bool
	err       error
}

func (p *pinger) Run() {
	if r := p.w.Reason(); r != NotWoken && r != Ready {
		p.err = r.Err()
		return
	}
	for {
		n, wait, err := p.l.TryRead(&p.w, p.rfd, p.buf[:], -1)
		if wait && err == nil {
			return
		}
		if err != nil || n != 1 {
			p.err = err
			return
		}
		if p.initiator {
			p.rounds++
			if p.rounds == p.limit {
				return
			}
		}
		if _, _, err := p.l.TryWrite(&p.w, p.wfd, p.buf[:], -1); err != nil {
			p.err = err
			return
		}
	}
}

// BenchmarkPipePingPong is one round trip of one byte between two waiters
// on one loop, through two pipes (A writes to B's pipe, B answers on A's).
func BenchmarkPipePingPong(b *testing.B) {
	l := newLoop(b)
	ar, bw := pipe(b) // B -> A
	br, aw := pipe(b) // A -> B
	a := &pinger{l: l, rfd: ar, wfd: aw, initiator: true, limit: b.N}
	bb := &pinger{l: l, rfd: br, wfd: bw}
	a.w.Init(l, a)
	bb.w.Init(l, bb)
	bb.Run()
	a.Run()
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := unix.Write(aw, []byte{'x'}); err != nil {
		b.Fatal(err)
	}
	if err := l.Run(func() bool { return a.rounds == b.N || a.err != nil || bb.err != nil }); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if a.err != nil || bb.err != nil {
		b.Fatal(a.err, bb.err)
	}
	s := l.Stats()
	b.ReportMetric(float64(s.Polls)/float64(b.N), "polls/op")
}
