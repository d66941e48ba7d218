//go:build linux

package stackful

import (
	"fmt"
	"iter"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

func benchEnv(b *testing.B) *Env {
	e, err := NewEnv()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

// BenchmarkStackfulSwitch, BenchmarkIterPullSwitch and
// BenchmarkStackfulCreateRelease are in bench_ext_test.go: their bodies live
// in internal/bench, shared with cmd/cobench.

// BenchmarkStackfulSwitchRatio measures Resume+Yield, a bare iter.Pull
// round trip, and an iter.Pull round trip with one plain call level on each
// side (next and yield each called through a function that is not inlined,
// as Resume and Yield are), in alternating chunks of 1,000, so that all
// three see the same load on a shared machine. It reports stackful's time
// per round trip as a multiple of bare iter.Pull's (x-iter.Pull: total
// times; x-iter.Pull-med: the median of the per-chunk ratios, which a burst
// of load on one chunk does not move) and of the wrapped round trip's
// (x-iter.Pull+level-med); ns/op is the stackful round trip.
//
// The wrapped round trip shows where the difference goes: after a
// coroutine switch, each call level between the caller and iter.Pull's
// next or yield costs a mispredicted return (the return-address predictor
// does not follow the change of stack), and Resume and Yield are one such
// level each; they cannot be inlined (the call of next or yield alone takes
// most of the inliner's budget).
func BenchmarkStackfulSwitchRatio(b *testing.B) {
	e := benchEnv(b)
	co := e.Create(func(co *Co) {
		for {
			co.Yield()
		}
	}, nil)
	co.Resume()
	next, stop := iter.Pull(func(yield func(struct{}) bool) {
		for yield(struct{}{}) {
		}
	})
	defer stop()
	next()
	wnext, wstop := iter.Pull(func(yield func(struct{}) bool) {
		for wrappedYield(yield) {
		}
	})
	defer wstop()
	wnext()
	const chunk = 1000
	var tCo, tPull time.Duration
	var ratios, wratios []float64
	b.ResetTimer()
	for done := 0; done < b.N; done += chunk {
		t0 := time.Now()
		for range chunk {
			co.Resume()
		}
		t1 := time.Now()
		for range chunk {
			next()
		}
		t2 := time.Now()
		for range chunk {
			wrappedNext(wnext)
		}
		t3 := time.Now()
		tCo += t1.Sub(t0)
		tPull += t2.Sub(t1)
		ratios = append(ratios, float64(t1.Sub(t0))/float64(t2.Sub(t1)))
		wratios = append(wratios, float64(t1.Sub(t0))/float64(t3.Sub(t2)))
	}
	b.StopTimer()
	rounds := float64((b.N + chunk - 1) / chunk * chunk)
	b.ReportMetric(float64(tCo.Nanoseconds())/rounds, "ns/op")
	b.ReportMetric(float64(tPull.Nanoseconds())/rounds, "ns/iter.Pull")
	b.ReportMetric(float64(tCo)/float64(tPull), "x-iter.Pull")
	b.ReportMetric(medianOf(ratios), "x-iter.Pull-med")
	b.ReportMetric(medianOf(wratios), "x-iter.Pull+level-med")
}

//go:noinline
func wrappedNext(next func() (struct{}, bool)) { next() }

//go:noinline
func wrappedYield(yield func(struct{}) bool) bool { return yield(struct{}{}) }

func medianOf(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}

func benchAttrs() []namedAttr {
	return []namedAttr{
		{"default", nil},
		{"private128K", &Attr{StackSize: 128 << 10}},
		{"shared", &Attr{ShareStack: AllocShareStack(16, 128<<10)}},
	}
}

// BenchmarkStackfulFirstDeepCall is the cost of a coroutine's first call
// 80 KiB deep: with a default stack it pays for every stack growth (each a
// copy of the whole stack so far); with a 128 KiB private stack the growth
// happened once, up front, when the stack was nearly empty. ns/op covers
// create, reservation, call and release; ns/deep-call only the call.
func BenchmarkStackfulFirstDeepCall(b *testing.B) {
	for _, a := range benchAttrs()[:2] {
		b.Run(a.name, func(b *testing.B) {
			e := benchEnv(b)
			var inCall time.Duration
			fn := func(*Co) {
				t0 := time.Now()
				deepCall(500)
				inCall += time.Since(t0)
			}
			for range b.N {
				co := e.Create(fn, a.attr)
				co.Resume()
				co.Release()
			}
			b.ReportMetric(float64(inCall.Nanoseconds())/float64(b.N), "ns/deep-call")
		})
	}
}

// BenchmarkStackfulMemory reports the memory held per suspended coroutine
// (default, private 128 KiB, shared), measured in a fresh child process so
// that nothing is recycled: once goroutines have exited, the runtime reuses
// their g structures (about 450 bytes each), and a measurement in a process
// that has run other benchmarks would miss them. See measureMemory.
func BenchmarkStackfulMemory(b *testing.B) {
	if os.Getenv(memoryChildEnv) != "" {
		b.Skip("in the child")
	}
	for _, mode := range []string{"default", "private128K", "shared"} {
		b.Run(mode, func(b *testing.B) {
			var perCo, perCoGC float64
			for range b.N {
				cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryChild$", "-test.count=1", "-test.v")
				cmd.Env = append(os.Environ(), memoryChildEnv+"="+mode)
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("child: %v\n%s", err, out)
				}
				var a, g float64
				i := strings.Index(string(out), "memory:")
				if i < 0 {
					b.Fatalf("child said:\n%s", out)
				}
				if _, err := fmt.Sscanf(string(out[i:]), "memory: %g %g", &a, &g); err != nil {
					b.Fatalf("child said:\n%s", out)
				}
				perCo += a
				perCoGC += g
			}
			b.ReportMetric(perCo/float64(b.N), "B/coroutine")
			b.ReportMetric(perCoGC/float64(b.N), "B/coroutine-after-GC")
			b.ReportMetric(0, "ns/op")
		})
	}
}

const memoryChildEnv = "STACKFUL_MEMORY_CHILD"

// TestMemoryChild is BenchmarkStackfulMemory's child process.
func TestMemoryChild(t *testing.T) {
	mode := os.Getenv(memoryChildEnv)
	if mode == "" {
		t.Skip("run by BenchmarkStackfulMemory")
	}
	var attr *Attr
	n := 10000
	switch mode {
	case "private128K":
		attr, n = &Attr{StackSize: 128 << 10}, 1000
	case "shared":
		attr = &Attr{ShareStack: AllocShareStack(16, 128<<10)}
	}
	perCo, perCoGC := measureMemory(t, attr, n)
	fmt.Printf("memory: %g %g\n", perCo, perCoGC)
}

// measureMemory returns the growth of StackInuse+HeapAlloc per coroutine
// while n coroutines with attr are created and resumed until each is
// suspended in Yield: right after creation, and after one collection
// (which halves stacks that use less than a quarter of their size, so a
// private reservation decays). HeapAlloc, not HeapInuse: HeapInuse counts
// whole spans.
//
// The runtime sizes new goroutine stacks from the average stack use it saw
// in the last GC (GODEBUG adaptivestackstart). In a program whose
// goroutines are mostly suspended coroutines that is the 2 KiB minimum; a GC
// that saw only the test's own goroutines would make every new stack 4 KiB.
// So the measurement runs the way a server does: 10,000 other suspended
// coroutines are alive during the collection that precedes it.
func measureMemory(t testing.TB, attr *Attr, n int) (perCo, perCoGC float64) {
	e, err := NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	fn := func(co *Co) { co.Yield() }
	for range 10000 {
		e.Create(fn, nil).Resume()
	}
	cos := make([]*Co, n)
	var m0, m1, m2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for i := range cos {
		cos[i] = e.Create(fn, attr)
		cos[i].Resume()
	}
	runtime.ReadMemStats(&m1)
	runtime.GC()
	runtime.ReadMemStats(&m2)
	used := func(m *runtime.MemStats) float64 { return float64(m.StackInuse + m.HeapAlloc) }
	runtime.KeepAlive(cos)
	return (used(&m1) - used(&m0)) / float64(n), (used(&m2) - used(&m0)) / float64(n)
}

// BenchmarkCondSignal is one signal that wakes a waiting coroutine through
// the loop's ready queue: the main coroutine signals and runs the loop until
// the waiter has run and waits again (one loop iteration, including its
// epoll_wait with a zero timeout, and one resume/yield round trip).
func BenchmarkCondSignal(b *testing.B) {
	e := benchEnv(b)
	var c Cond
	woken := 0
	e.Create(func(co *Co) {
		for co.Wait(&c, -1) {
			woken++
		}
	}, nil).Resume()
	main := e.Main()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c.Signal()
		main.Gosched()
	}
	b.StopTimer()
	if woken != b.N {
		b.Fatalf("woken %d of %d", woken, b.N)
	}
}

// BenchmarkStackfulCreateRatio measures create+run+release of a default
// coroutine (one Yield on the way, as BenchmarkStackfulCreateRelease) and
// iter.Pull's create+next+next+stop in alternating chunks of 100, and
// reports the median of the per-chunk ratios (x-iter.Pull-med; goal: at
// most 1.5); ns/op is the stackful create.
func BenchmarkStackfulCreateRatio(b *testing.B) {
	e := benchEnv(b)
	fn := func(co *Co) { co.Yield() }
	seq := func(yield func(struct{}) bool) { yield(struct{}{}) }
	const chunk = 100
	var tCo time.Duration
	var ratios []float64
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += chunk {
		t0 := time.Now()
		for range chunk {
			co := e.Create(fn, nil)
			co.Resume()
			co.Resume()
			co.Release()
		}
		t1 := time.Now()
		for range chunk {
			next, stop := iter.Pull(seq)
			next()
			next()
			stop()
		}
		t2 := time.Now()
		tCo += t1.Sub(t0)
		ratios = append(ratios, float64(t1.Sub(t0))/float64(t2.Sub(t1)))
	}
	b.StopTimer()
	rounds := float64((b.N + chunk - 1) / chunk * chunk)
	b.ReportMetric(float64(tCo.Nanoseconds())/rounds, "ns/op")
	b.ReportMetric(medianOf(ratios), "x-iter.Pull-med")
}

// BenchmarkPollReady is one Poll of a ready socket in a coroutine that polls
// in a loop: a poll(2) system call, plus a yield every pollYieldEvery Polls.
func BenchmarkPollReady(b *testing.B) {
	e := benchEnv(b)
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	unix.Write(fds[1], []byte("x"))
	done := false
	b.ResetTimer()
	co := e.Create(func(co *Co) {
		pfd := []loop.PollFd{{Fd: fds[0], Events: loop.EventIn}}
		for range b.N {
			co.Poll(pfd, -1)
		}
		done = true
	}, nil)
	co.Resume()
	if !done {
		if err := e.Run(func() bool { return done }); err != nil {
			b.Fatal(err)
		}
	}
}
