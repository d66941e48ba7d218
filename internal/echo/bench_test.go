package echo

import (
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/echoload"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
	"golang.org/x/sys/unix"
)

// stacklessHandlers are the stackless forms of Echo that the tests run, by
// name: the hand-written frame and the one cogen generated in echo_cogen.go.
// BenchmarkEchoStackless runs the same two, through internal/bench.
var stacklessHandlers = map[string]func(fd int) stackless.Frame{
	"hand":      func(fd int) stackless.Frame { return NewHandEchoFrame(fd) },
	"generated": func(fd int) stackless.Frame { return NewEchoFrame(fd) },
}

// BenchmarkEchoStackless, BenchmarkEchoStackful and BenchmarkEchoGoroutine
// are in bench_ext_test.go: their bodies live in internal/bench, shared
// with cmd/cobench.

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkStacklessMemory reports the heap held by suspended echo
// connections on the stackless runtime:
//
//   - B/task: the task and its HandEchoFrame, measured over 1,000,000 tasks
//     (the budget is 256 bytes). The file-descriptor limit does not allow a
//     million connections, so these tasks are spawned and not yet stepped: a
//     task waiting in Read holds exactly the same two objects (a suspension
//     allocates nothing), the waiter being armed on the fd instead of queued.
//   - B/fd: what the loop adds per connection, its registration of the fd,
//     measured over 10,000 handlers really suspended in Read on duplicates of
//     one socket (the same in both models).
//   - B/conn: the sum.
//
// Run it with -benchtime=1x: one iteration spawns a million tasks.
func BenchmarkStacklessMemory(b *testing.B) {
	const tasks = 1_000_000
	var perTask, perConn float64
	for range b.N {
		perTask = spawnedTasks(b, tasks)
		perConn = suspendedConns(b, 10_000)
	}
	b.ReportMetric(perTask, "B/task")
	b.ReportMetric(perConn-perTask, "B/fd")
	b.ReportMetric(perConn, "B/conn")
}

// spawnedTasks returns the heap per task of n spawned echo tasks.
func spawnedTasks(b *testing.B, n int) float64 {
	l, err := loop.New()
	if err != nil {
		b.Fatal(err)
	}
	ts := make([]*stackless.Task, n)
	before := heapInUse()
	for i := range ts {
		ts[i] = stackless.Spawn(l, NewHandEchoFrame(-1))
	}
	after := heapInUse()
	runtime.KeepAlive(ts)
	b.StopTimer()
	l.Close() // runs each once: Read(-1) fails and the handler returns
	for _, t := range ts {
		if !t.Done() {
			b.Fatal("a task survived Close")
		}
	}
	b.StartTimer()
	return float64(after-before) / float64(n)
}

// suspendedConns returns the heap per connection of n echo handlers
// suspended in Read, each on its own duplicate of one socket.
func suspendedConns(b *testing.B, n int) float64 {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err == nil && int(lim.Cur)-200 < n {
		n = int(lim.Cur) - 200
	}
	l, err := loop.New()
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(pair[0])
	fds := make([]int, n)
	for i := range fds {
		if fds[i], err = unix.FcntlInt(uintptr(pair[0]), unix.F_DUPFD_CLOEXEC, 0); err != nil {
			b.Fatal(err)
		}
	}
	frames := make([]*HandEchoFrame, n)
	ts := make([]*stackless.Task, n)
	before := heapInUse()
	for i := range ts {
		frames[i] = NewHandEchoFrame(fds[i])
		ts[i] = stackless.Spawn(l, frames[i])
	}
	l.RunOnce() // each handler reads, finds nothing and suspends
	after := heapInUse()
	if st := l.Stats(); st.Armed != n || st.FDs != n {
		b.Fatalf("%d waiters armed on %d fds, want %d", st.Armed, st.FDs, n)
	}
	b.StopTimer()
	unix.Close(pair[1]) // end of file on every duplicate: each handler returns and closes its fd
	for range 100 {
		if l.Stats().FDs == 0 {
			break
		}
		l.RunOnce()
	}
	for i, t := range ts {
		if !t.Done() || frames[i].Result() != nil {
			b.Fatalf("handler %d: done %v, result %v", i, t.Done(), frames[i].Result())
		}
	}
	b.StartTimer()
	return float64(after-before) / float64(n)
}

// startServer starts a server of the model on a fresh listener; the
// stackless and stackful ones run on l.
func startServer(tb testing.TB, model string, l *loop.Loop) (addr string, shutdown func(time.Duration) error) {
	tb.Helper()
	if model == "goroutine" {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		return ln.Addr().String(), ServeGoroutines(ln).Shutdown
	}
	if name, ok := strings.CutPrefix(model, "stackless/"); ok && stacklessHandlers[name] != nil {
		s, err := stackless.ServeTCP(l, "tcp4", "127.0.0.1:0", stacklessHandlers[name])
		if err != nil {
			tb.Fatal(err)
		}
		return s.Addr().String(), s.Shutdown
	}
	lfd, addr, err := echoload.ListenFD()
	if err != nil {
		tb.Fatal(err)
	}
	switch model {
	case "stackful":
		env := stackful.NewEnvOn(l)
		s := ServeStackful(env, lfd, Echo)
		return addr, func(limit time.Duration) error {
			err := s.Shutdown(limit)
			if cerr := env.Close(); cerr != nil && err == nil {
				err = cerr
			}
			return err
		}
	}
	tb.Fatalf("unknown model %s", model)
	return "", nil
}
