//go:build unix

package bench

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/cogen-go/cogen/internal/echo"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// MemoryModes are the models Memory measures: the stackful stack modes
// ("stackful/" + a mode of StackfulModes), a stackless echo connection and
// a parked goroutine.
var MemoryModes = []string{"stackful/default", "stackful/private128K", "stackful/shared", "stackless/echo", "goroutine"}

// MemoryResult is what Memory measured, in bytes per suspended coroutine:
// the growth of the stacks in use plus the live heap (StackInuse +
// HeapAlloc; HeapAlloc, not HeapInuse, which counts whole spans).
type MemoryResult struct {
	N       int
	PerCo   float64 // right after the n coroutines are suspended
	PerCoGC float64 // after one more garbage collection
	RSS     float64 `json:",omitempty"` // growth of the resident set per coroutine, where measured (IdleConns)
}

// warmup is the number of suspended coroutines of the same kind alive
// before the measurement starts. The runtime sizes new goroutine stacks
// from the average stack use it saw in the last collection (GODEBUG
// adaptivestackstart): in a server whose goroutines are mostly suspended
// coroutines that is the 2 KiB minimum, while a collection that saw only
// the benchmark's own goroutines would make every new stack 4 KiB. So the
// measurement runs the way a server does, with 10,000 others alive.
const warmup = 10_000

// Memory creates n coroutines of the mode, each suspended, and returns the
// memory they hold. Run it in a fresh process of its own: after goroutines
// have exited, the runtime reuses their descriptors (about 450 bytes each),
// and a process that ran other benchmarks would under-count them.
//
//   - stackful/*: coroutines suspended in Co.Yield, with a 64-byte buffer
//     live across it, as Echo holds across Read;
//   - stackless/echo: the generated EchoFrame and its task. These tasks are
//     spawned and not stepped (a million connections exceed the descriptor
//     limit): a task waiting in Read holds exactly the same two objects, as
//     a suspension allocates nothing; the loop's registration of the fd,
//     which both loop models pay, is not counted;
//   - goroutine: goroutines parked in a channel receive, with the same
//     buffer live.
func Memory(mode string, n int) (MemoryResult, error) {
	var m0, m1, m2 runtime.MemStats
	used := func(m *runtime.MemStats) float64 { return float64(m.StackInuse + m.HeapAlloc) }
	measure := func(create func()) {
		runtime.GC()
		runtime.ReadMemStats(&m0)
		create()
		runtime.ReadMemStats(&m1)
		runtime.GC()
		runtime.ReadMemStats(&m2)
	}
	switch {
	case strings.HasPrefix(mode, "stackful/"):
		m := strings.TrimPrefix(mode, "stackful/")
		e, err := stackful.NewEnv()
		if err != nil {
			return MemoryResult{}, err
		}
		defer e.Close()
		fn := func(co *stackful.Co) {
			var buf [echo.MsgSize]byte
			co.Yield()
			keep(buf[:])
		}
		for range warmup {
			e.Create(fn, nil).Resume()
		}
		attr := StackfulAttr(m)
		cos := make([]*stackful.Co, n)
		measure(func() {
			for i := range cos {
				cos[i] = e.Create(fn, attr)
				cos[i].Resume()
			}
		})
		runtime.KeepAlive(cos)
	case mode == "stackless/echo":
		l, err := loop.New()
		if err != nil {
			return MemoryResult{}, err
		}
		ts := make([]*stackless.Task, n)
		measure(func() {
			for i := range ts {
				ts[i] = stackless.Spawn(l, echo.NewEchoFrame(-1))
			}
		})
		runtime.KeepAlive(ts)
		l.Close() // runs each once: Read(-1) fails and the handler returns
	case mode == "goroutine":
		park := make(chan struct{})
		var started sync.WaitGroup
		fn := func() {
			var buf [echo.MsgSize]byte
			started.Done()
			<-park
			keep(buf[:])
		}
		started.Add(warmup + n)
		for range warmup {
			go fn()
		}
		measure(func() {
			for range n {
				go fn()
			}
			started.Wait()
		})
		close(park)
	default:
		return MemoryResult{}, fmt.Errorf("bench: unknown memory mode %q", mode)
	}
	return MemoryResult{
		N:       n,
		PerCo:   (used(&m1) - used(&m0)) / float64(n),
		PerCoGC: (used(&m2) - used(&m0)) / float64(n),
	}, nil
}

//lint:ignore U1000 written only: keep's store makes its argument live
var sink byte

//go:noinline
func keep(p []byte) { sink += p[0] }
