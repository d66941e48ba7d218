//go:build unix

package bench

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/internal/echo"
	"github.com/cogen-go/cogen/internal/echoload"
	"github.com/cogen-go/cogen/internal/hello"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
	"golang.org/x/sys/unix"
)

// ScaleModels are the servers of the scale measurements, by load kind
// ("echo" or "http"): each runs at 1 loop and at N with RunScale.
//
//   - echo "stackful": a stackful.Group, one coroutine per connection on
//     raw fds (Group.ServeTCP) running echo.Echo;
//   - echo "stackless": a stackless.Group, one task per connection
//     (Group.Serve) running the generated EchoFrame;
//   - http "stackful" and "stackless": cohttp's server (one source, run as
//     stackful coroutines and as the stackless frames cogen generated from
//     it) on every loop of a group, each with an SO_REUSEPORT listener of
//     its own, answering hello.Handler;
//   - "goroutine" (echo) and "net/http": Go's servers, as RunEcho and
//     RunHTTP run them.
var ScaleModels = map[string][]string{
	"echo": {"stackful", "stackless", "goroutine"},
	"http": {"stackful", "stackless", "net/http"},
}

// A ScaleResult is a LoadResult with what the rest of the machine did
// meanwhile: on a machine whose cores the load client shares, the share of
// the CPU each side got is what bounds the server's throughput.
type ScaleResult struct {
	LoadResult
	// ClientCPU is the load client's user+system CPU time over its whole
	// life (connection setup included), from getrusage(RUSAGE_CHILDREN).
	ClientCPU time.Duration
	// MachineBusy and MachineWall are the busy CPU time of the whole
	// machine (every process, /proc/stat) and the wall time, both over the
	// whole run; MachineBusy is 0 where /proc/stat is missing.
	MachineBusy, MachineWall time.Duration
}

// RunScale serves one echoload run (cfg.Addr is filled in) with the server
// named by mode, "kind/model/loops" (for example "echo/stackless/2"), shuts
// it down and returns what the load client measured. The process runs with
// GOMAXPROCS set to loops, so that Go's servers get as many cores as the
// loop servers get loops (each loop on a thread of its own); the load
// client is another process, with its own GOMAXPROCS. LoopPolls adds up the
// epoll_wait returns of every loop of the group.
func RunScale(mode string, cfg echoload.Config) (ScaleResult, error) {
	kind, model, loops, err := parseScaleMode(mode)
	if err != nil {
		return ScaleResult{}, err
	}
	client0, busy0, t0 := childrenCPU(), machineBusy(), time.Now()
	res, err := runScale(kind, model, loops, cfg)
	return ScaleResult{
		LoadResult:  res,
		ClientCPU:   childrenCPU() - client0,
		MachineBusy: machineBusy() - busy0,
		MachineWall: time.Since(t0),
	}, err
}

func runScale(kind, model string, loops int, cfg echoload.Config) (LoadResult, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(loops))
	cfg.HTTP = kind == "http"
	switch {
	case kind == "echo" && model == "goroutine":
		return RunEcho(model, cfg)
	case kind == "http" && model == "net/http":
		return RunHTTP(model, cfg)
	case kind == "http" && (model == "stackful" || model == "stackless"):
		return serveCohttpGroup(model, loops, cfg)
	case model == "stackful":
		g, err := stackful.NewGroup(loops)
		if err != nil {
			return LoadResult{}, err
		}
		// Echo does its I/O through co only: completion mode on io_uring.
		addr, err := g.ServeTCPCompletion("tcp4", "127.0.0.1:0", func(co *stackful.Co, fd int) { echo.Echo(co, fd) })
		if err != nil {
			g.Shutdown(0)
			return LoadResult{}, err
		}
		cfg.Addr = addr.String()
		return serveGroup(cfg, g.Group)
	case model == "stackless" && kind == "echo":
		g, err := stackless.NewGroup(loops)
		if err != nil {
			return LoadResult{}, err
		}
		addr, err := g.ServeTCP("tcp4", "127.0.0.1:0", StacklessEchoHandlers["generated"])
		if err != nil {
			g.Shutdown(0)
			return LoadResult{}, err
		}
		cfg.Addr = addr.String()
		return serveGroup(cfg, g.Group)
	}
	return LoadResult{}, fmt.Errorf("bench: unknown scale model %q", ScaleMode(kind, model, loops))
}

// serveCohttpGroup serves the load with cohttp's server in the model on
// every loop of a group: a stackful.Group, or for stackless tasks a plain
// loop.Group whose loops are idle once their server has no connection left
// (cohttp spawns its own tasks). The group's shutdown drains each server.
func serveCohttpGroup(model string, loops int, cfg echoload.Config) (LoadResult, error) {
	lfds := make([]int, 0, loops)
	addr := "127.0.0.1:0"
	closeAll := func() {
		for _, fd := range lfds {
			unix.Close(fd)
		}
	}
	for range loops {
		fd, a, err := loop.ListenTCP("tcp4", addr, true)
		if err != nil {
			closeAll()
			return LoadResult{}, err
		}
		lfds, addr = append(lfds, fd), a.String()
	}
	servers := make([]*cohttp.Server, loops) // servers[i] is touched only by loop i
	var g *loop.Group
	if model == "stackless" {
		var err error
		g, err = loop.StartGroup(loop.GroupConfig{
			Loops: loops,
			Init: func(i int, l *loop.Loop) error {
				servers[i] = cohttp.ServeStackless(l, lfds[i], hello.Handler, cohttp.Limits{})
				return nil
			},
			Idle: func(i int, l *loop.Loop) bool { return servers[i].Live() == 0 },
		})
		if err != nil {
			closeAll()
			return LoadResult{}, err
		}
	} else {
		sg, err := stackful.NewGroup(loops)
		if err != nil {
			closeAll()
			return LoadResult{}, err
		}
		for i := range loops {
			sg.Submit(i, func() { servers[i] = cohttp.ServeStackful(sg.Env(i), lfds[i], hello.Handler, cohttp.Limits{}) })
		}
		g = sg.Group
	}
	for i := range loops {
		g.OnShutdown(i, func() { servers[i].Drain() }) // runs after the Submit above
	}
	cfg.Addr = addr
	return serveGroup(cfg, g)
}

// childrenCPU returns the user+system CPU time of this process's children
// that have ended and been waited for.
func childrenCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// machineBusy returns the CPU time every core of the machine has spent not
// idle since boot (the cpu line of /proc/stat), or 0.
func machineBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0
	}
	var busy int64
	for i, v := range f[1:] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0
		}
		if i != 3 && i != 4 && i < 8 { // not idle, iowait, guest, guest_nice
			busy += n
		}
	}
	return time.Duration(busy) * time.Second / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc/stat: 100 on every Linux
// architecture Go supports.
const clockTicks = 100

// ScaleMode names a RunScale server.
func ScaleMode(kind, model string, loops int) string {
	return kind + "/" + model + "/" + strconv.Itoa(loops)
}

func parseScaleMode(mode string) (kind, model string, loops int, err error) {
	i, j := strings.IndexByte(mode, '/'), strings.LastIndexByte(mode, '/')
	if i < 0 || j <= i {
		return "", "", 0, fmt.Errorf("bench: bad scale mode %q: want kind/model/loops", mode)
	}
	kind, model = mode[:i], mode[i+1:j]
	if loops, err = strconv.Atoi(mode[j+1:]); err != nil || loops < 1 {
		return "", "", 0, fmt.Errorf("bench: bad loop count in scale mode %q", mode)
	}
	return kind, model, loops, nil
}

// serveGroup serves the load with the group's servers, shuts the group
// down and adds up its loops' epoll_wait returns.
func serveGroup(cfg echoload.Config, g *loop.Group) (LoadResult, error) {
	res, err := serveLoad(cfg, g.Shutdown, func(ld *echoload.Load) error {
		select {
		case <-ld.Done():
			return nil
		case <-g.Done():
			return fmt.Errorf("bench: the server group ended during the load: %w", g.Wait())
		}
	})
	var polls uint64
	<-g.Done() // serveLoad shut the group down: the loops' counters are final
	for i := range g.Len() {
		polls += g.Loop(i).Stats().Polls
	}
	return LoadResult{res, int64(polls)}, err
}

// GroupSubmitRoundTrip is the cross-loop hand-off of a loop.Group: a func
// submitted from loop 0 to loop 1, which submits one back; b.N round trips,
// each hop a push on the other loop's submit queue and, when that loop is
// blocked in epoll_wait, an eventfd write that wakes it.
func GroupSubmitRoundTrip(b *testing.B) {
	g, err := loop.StartGroup(loop.GroupConfig{Loops: 2})
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	count := 0 // touched only by loop 0
	var onLoop0, onLoop1 func()
	onLoop0 = func() {
		count++
		if count > b.N {
			close(done)
			return
		}
		if err := g.Submit(1, onLoop1); err != nil {
			b.Error(err)
			close(done)
		}
	}
	onLoop1 = func() {
		if err := g.Submit(0, onLoop0); err != nil {
			b.Error(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	g.Submit(0, onLoop0)
	<-done
	b.StopTimer()
	if err := g.Shutdown(time.Second); err != nil {
		b.Fatal(err)
	}
}
