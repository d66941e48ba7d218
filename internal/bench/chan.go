//go:build unix

package bench

import (
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// ChanModels are the models of the chan group's benchmarks.
var ChanModels = []string{"stackful", "stackless", "goroutine"}

// PingPongPairs is the number of coroutine pairs that share the ping-pong
// benchmark's rounds, as in a loaded server (the stackless switch
// benchmark does the same with 1,000 tasks). A lone pair hands off within
// a round of the loop's ready queue (up to 64 hand-offs, see runtime/loop's
// "One iteration") and the loop polls after 64 rounds, so neither size pays
// for polls. More pairs change little for stackless tasks but make 2,000
// goroutine stacks of stackful coroutines compete for the caches
// (measured: 504 against 326 ns of CPU per round trip at 1,000 pairs). One
// pair measures the latency of a lone hand-off instead.
const PingPongPairs = 100

// ChanPingPongModel is one value sent and answered between two coroutines
// of model over two unbuffered channels (cosync.Chan), spread over pairs
// pairs of coroutines on one loop: an op is one round trip, both ends
// blocking each time. The coroutines are created and blocked before the
// timer starts. "goroutine" is Go's channels between pairs pairs of
// goroutines, the same way (one pair: ChanPingPong).
func ChanPingPongModel(b *testing.B, model string, pairs int) {
	if model == "goroutine" {
		cpu := cpuTime()
		if pairs == 1 {
			ChanPingPong(b)
		} else {
			chanPingPongGoroutines(b, pairs)
		}
		reportCPU(b, cpu)
		return
	}
	var cpu time.Duration
	defer func() { reportCPU(b, cpu) }()
	l := newLoop(b)
	k := max(min(pairs, b.N), 1)
	rounds := func(i int) int {
		n := b.N / k
		if i < b.N%k {
			n++
		}
		return n
	}
	var start cosync.WaitGroup
	start.Add(1)
	b.ReportAllocs()
	switch model {
	case "stackful":
		e := stackful.NewEnvOn(l)
		defer e.Close()
		cos := make([]*stackful.Co, 0, 2*k)
		for i := range k {
			ping, pong := cosync.NewChan[int](0), cosync.NewChan[int](0)
			n := rounds(i)
			cos = append(cos,
				e.Create(func(co *stackful.Co) { ponger(co, ping, pong) }, nil),
				e.Create(func(co *stackful.Co) { pinger(co, &start, ping, pong, n) }, nil))
		}
		for _, co := range cos {
			co.Resume() // each blocks: in Recv, or waiting for start
		}
		b.ResetTimer()
		cpu = cpuTime()
		start.Done()
		next := 0
		if err := e.Run(func() bool {
			for next < len(cos) && cos[next].Status() == stackful.Dead {
				next++
			}
			return next == len(cos)
		}); err != nil {
			b.Fatal(err)
		}
	case "stackless":
		tasks := make([]*stackless.Task, 0, 2*k)
		for i := range k {
			ping, pong := cosync.NewChan[int](0), cosync.NewChan[int](0)
			tasks = append(tasks,
				stackless.Spawn(l, newPongerFrame(ping, pong)),
				stackless.Spawn(l, newPingerFrame(&start, ping, pong, rounds(i))))
		}
		l.RunOnce() // each task's first step blocks it
		b.ResetTimer()
		cpu = cpuTime()
		start.Done()
		if err := stackless.Run(l, tasks...); err != nil {
			b.Fatal(err)
		}
	default:
		b.Fatalf("unknown model %q", model)
	}
}

// chanPingPongGoroutines is ChanPingPongModel for goroutines: pairs pairs
// of goroutines, each pair making its share of the b.N round trips over
// two unbuffered Go channels. The goroutines start and block before the
// timer starts.
func chanPingPongGoroutines(b *testing.B, pairs int) {
	k := max(min(pairs, b.N), 1)
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	b.ReportAllocs()
	for i := range k {
		n := b.N / k
		if i < b.N%k {
			n++
		}
		ping, pong := make(chan int), make(chan int)
		ready.Add(1)
		done.Go(func() {
			for v := range ping {
				pong <- v
			}
		})
		done.Go(func() {
			ready.Done()
			<-start
			for j := range n {
				ping <- j
				<-pong
			}
			close(ping)
		})
	}
	ready.Wait()
	b.ResetTimer()
	close(start)
	done.Wait()
}

// ChanFanOut is a worker pool: a feeder sends values on one unbuffered
// channel to workers coroutines, which send their doubled values to one
// collector; an op is one value through the pool. The workers are started
// and blocked before the timer starts; their teardown is timed.
func ChanFanOut(b *testing.B, model string, workers int) {
	n := b.N
	want := n * (n - 1) // the sum of 2*i for i < n
	sum := 0
	var cpu time.Duration
	b.ReportAllocs()
	switch model {
	case "goroutine":
		work, results := make(chan int), make(chan int)
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for v := range work {
					results <- 2 * v
				}
			})
		}
		b.ResetTimer()
		cpu = cpuTime()
		go func() {
			for i := range n {
				work <- i
			}
			close(work)
		}()
		for range n {
			sum += <-results
		}
		wg.Wait()
	case "stackful", "stackless":
		l := newLoop(b)
		work, results := cosync.NewChan[int](0), cosync.NewChan[int](0)
		var wg, start cosync.WaitGroup
		wg.Add(workers)
		start.Add(1)
		if model == "stackful" {
			e := stackful.NewEnvOn(l)
			defer e.Close()
			for range workers {
				e.Create(func(co *stackful.Co) { poolWorker(co, work, results, &wg) }, nil).Resume()
			}
			e.Create(func(co *stackful.Co) { feeder(co, &start, work, n) }, nil).Resume()
			col := e.Create(func(co *stackful.Co) { collector(co, results, n, &sum) }, nil)
			col.Resume()
			b.ResetTimer()
			cpu = cpuTime()
			start.Done()
			if err := e.Run(func() bool { return col.Status() == stackful.Dead && wg.Count() == 0 }); err != nil {
				b.Fatal(err)
			}
		} else {
			tasks := make([]*stackless.Task, 0, workers+2)
			for range workers {
				tasks = append(tasks, stackless.Spawn(l, newPoolWorkerFrame(work, results, &wg)))
			}
			tasks = append(tasks, stackless.Spawn(l, newFeederFrame(&start, work, n)), stackless.Spawn(l, newCollectorFrame(results, n, &sum)))
			l.RunOnce()
			b.ResetTimer()
			cpu = cpuTime()
			start.Done()
			if err := stackless.Run(l, tasks...); err != nil {
				b.Fatal(err)
			}
		}
	default:
		b.Fatalf("unknown model %q", model)
	}
	b.StopTimer()
	reportCPU(b, cpu)
	if sum != want {
		b.Fatalf("sum %d, want %d", sum, want)
	}
}

// cpuTime is the process's CPU time (user and system), from getrusage.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per op since start as
// "cpu-ns/op": on a loaded machine it moves far less than the wall time.
// It counts every thread of the process (the garbage collector, and the
// scheduler's spinning threads for goroutines), at the kernel's tick
// resolution, so it needs runs of tens of milliseconds or more.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
