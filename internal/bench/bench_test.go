//go:build unix

package bench

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/durabletest"
	"github.com/cogen-go/cogen/internal/echoload"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackless"
)

func TestMain(m *testing.M) {
	echoload.MaybeRunChild()
	scaleChild()
	time.Sleep(time.Millisecond) // the runtime's own poller opens its fds on first use: not a leak of the first test
	os.Exit(m.Run())
}

func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

// checkNoLeaks fails t if, within a few seconds, the process does not get
// back to the descriptors and goroutines it had when the returned function
// was made.
func checkNoLeaks(t *testing.T) func() {
	fds, goroutines := openFDs(), runtime.NumGoroutine()
	return func() {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for openFDs() > fds || runtime.NumGoroutine() > goroutines {
			if time.Now().After(deadline) {
				t.Fatalf("fds %d -> %d, goroutines %d -> %d", fds, openFDs(), goroutines, runtime.NumGoroutine())
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// TestRunEcho: every echo server answers exactly the requests of a short
// run, with at least one read and one write per request, and leaves no
// descriptor or goroutine behind.
func TestRunEcho(t *testing.T) {
	for _, model := range EchoModels {
		t.Run(model, func(t *testing.T) {
			defer checkNoLeaks(t)()
			res, err := RunEcho(model, echoload.Config{Conns: 20, Requests: 2000})
			if err != nil {
				t.Fatal(err)
			}
			if res.Requests != 2000 || res.ServerCPU <= 0 {
				t.Fatalf("%+v", res)
			}
			if n, ok := res.SyscallsPerReq(); !ok || n < 2 {
				t.Fatalf("%v read+write syscalls per request", n)
			}
			t.Log(res)
		})
	}
	if _, err := RunEcho("nonsense", echoload.Config{Requests: 1}); err == nil {
		t.Fatal("unknown model accepted")
	}
}

// TestRunHTTP: both hello servers answer a short keep-alive run.
func TestRunHTTP(t *testing.T) {
	for _, model := range HTTPModels {
		t.Run(model, func(t *testing.T) {
			defer checkNoLeaks(t)()
			res, err := RunHTTP(model, echoload.Config{Conns: 10, Requests: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if res.Requests != 1000 {
				t.Fatalf("%+v", res)
			}
			t.Log(res)
		})
	}
}

// TestSleepers: in every model each sleeper wakes, never early, and the
// results are ordered.
func TestSleepers(t *testing.T) {
	for _, model := range SleepModels {
		t.Run(model, func(t *testing.T) {
			r, err := Sleepers(model, 1000, 20*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if r.N != 1000 || r.Early != 0 || r.Start <= 0 || r.LateP50 > r.LateP99 || r.LateP99 > r.LateMax || r.LateMax > 5*time.Second {
				t.Fatalf("%+v", r)
			}
			t.Logf("%+v", r)
		})
	}
}

// TestLateness: in every model each sleep wakes, never early, and the
// summary is ordered.
func TestLateness(t *testing.T) {
	for _, model := range LatenessModels {
		t.Run(model, func(t *testing.T) {
			late, err := Lateness(model, 10, 2*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			r := LatenessOf(late)
			if r.N != 10 || r.Early != 0 || r.P50 > r.P99 || r.Mean <= 0 || r.P99 > 5*time.Second {
				t.Fatalf("%+v", r)
			}
			t.Logf("%+v", r)
		})
	}
	if _, err := Lateness("nonesuch", 1, time.Millisecond); err == nil {
		t.Error("unknown model: no error")
	}
}

// TestMemory: every mode reports a plausible size per coroutine (a
// measurement in a shared test process, so only loose bounds).
func TestMemory(t *testing.T) {
	for _, mode := range MemoryModes {
		t.Run(mode, func(t *testing.T) {
			r, err := Memory(mode, 2000)
			if err != nil {
				t.Fatal(err)
			}
			if r.PerCo < 64 || r.PerCoGC < 64 || r.PerCo > 1<<20 {
				t.Fatalf("%+v", r)
			}
			t.Logf("%+v", r)
		})
	}
}

// TestIdleConns: every model serves the idle connections, and a stackful
// connection costs no more than a goroutine's (its stack stays at 2 KiB
// through the first read: loop.Register is shallow). Each model measures
// in a child process of its own (a process reuses the descriptors and
// stacks of goroutines that ended) with GODEBUG=adaptivestackstart=0, so
// that every new stack starts at 2 KiB.
func TestIdleConns(t *testing.T) {
	per := map[string]float64{}
	for _, model := range IdleModels {
		var r MemoryResult
		inChild(t, "idle", model, 300, &r)
		gc, before := r.PerCoGC, r.PerCo
		t.Logf("%s: %.0f B per idle connection (%.0f before a GC)", model, gc, before)
		if gc <= 0 || gc > 16<<10 {
			t.Errorf("%s: %.0f B per idle connection, want (0, 16 KiB]", model, gc)
		}
		per[model] = gc
	}
	if per["stackful"] > per["goroutine"]+512 {
		t.Errorf("stackful %.0f B per idle connection, goroutine %.0f: the stackful stack grew", per["stackful"], per["goroutine"])
	}
}

// TestDurableCheckpoint runs cobench's checkpoint body on 2,000 tasks:
// every task restored from the file returns its own result, and the file
// is gone afterwards.
func TestDurableCheckpoint(t *testing.T) {
	dir := t.TempDir()
	r, err := DurableCheckpoint(2000, dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.N != 2000 || r.Write <= 0 || r.Read <= 0 || r.BytesPerTask() < 20 || r.BytesPerTask() > 200 {
		t.Fatalf("result %+v (%.1f bytes/task)", r, r.BytesPerTask())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left in the directory: %v", ents)
	}
	t.Logf("%.1f bytes/task, write %v, read+restore %v", r.BytesPerTask(), r.Write, r.Read)
}

// TestDurableShapes: the task of every shape, suspended as the
// benchmarks take it, restores from its snapshot on another loop and
// finishes there with the result of an uninterrupted run.
func TestDurableShapes(t *testing.T) {
	blob := 0
	for i := range 1024 {
		blob += int(byte(1 + i))
	}
	want := map[string]int{"pair": 3, "blob": blob, "map": 100, "ledger": -1} // the ledger reports no result
	for _, s := range DurableShapes {
		l, err := loop.New()
		if err != nil {
			t.Fatal(err)
		}
		data, err := stackless.Snapshot(s.suspend(t, l))
		l.Close()
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		l2, err := loop.New()
		if err != nil {
			t.Fatal(err)
		}
		task, err := stackless.Restore(l2, data)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		got := -1
		durabletest.Finished = func(key, result int) { got = result }
		task.Resume() // the shapes wait in Yield; the ledger in Gosched or Sleep
		err = stackless.Run(l2, task)
		durabletest.Finished = func(int, int) {}
		l2.Close()
		if err != nil || !task.Done() || got != want[s.Name] {
			t.Errorf("%s (%d bytes): result %d, want %d (err %v)", s.Name, len(data), got, want[s.Name], err)
		}
	}
}
