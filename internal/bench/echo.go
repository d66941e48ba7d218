//go:build unix

package bench

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/echo"
	"github.com/cogen-go/cogen/internal/echoload"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// EchoModels are the echo servers StartEchoServer knows: one stackful
// coroutine per connection running echo.Echo, one stackless task per
// connection running the generated EchoFrame or the hand-written
// HandEchoFrame (all three on one event loop), and Go's net package with
// one goroutine per connection.
var EchoModels = []string{"stackful", "stackless/generated", "stackless/hand", "goroutine"}

// StacklessEchoHandlers are the stackless forms of echo.Echo, by name.
var StacklessEchoHandlers = map[string]func(fd int) stackless.Frame{
	"hand":      func(fd int) stackless.Frame { return echo.NewHandEchoFrame(fd) },
	"generated": func(fd int) stackless.Frame { return echo.NewEchoFrame(fd) },
}

// StartEchoServer starts an echo server of the model on a fresh listener
// on 127.0.0.1 and returns its address and the function that shuts it
// down. The stackful and stackless servers run on l (nothing runs until l
// does; call it on l's goroutine); the goroutine server ignores l.
func StartEchoServer(model string, l *loop.Loop) (addr string, shutdown func(time.Duration) error, err error) {
	if model == "goroutine" {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return "", nil, err
		}
		return ln.Addr().String(), echo.ServeGoroutines(ln).Shutdown, nil
	}
	newFrame := StacklessEchoHandlers[strings.TrimPrefix(model, "stackless/")]
	if model != "stackful" && (!strings.HasPrefix(model, "stackless/") || newFrame == nil) {
		return "", nil, fmt.Errorf("bench: unknown echo model %q", model)
	}
	if model != "stackful" {
		s, err := stackless.ServeTCP(l, "tcp4", "127.0.0.1:0", newFrame)
		if err != nil {
			return "", nil, err
		}
		return s.Addr().String(), s.Shutdown, nil
	}
	// The stackful server keeps echo's accept loop, which runs echo.Echo
	// itself: Env.ServeTCP takes a func without a result, and the adapter's
	// frame would grow each connection's stack past 2 KiB (TestIdleConns).
	lfd, addr, err := echoload.ListenFD()
	if err != nil {
		return "", nil, err
	}
	env := stackful.NewEnvOn(l)
	s := echo.ServeStackful(env, lfd, echo.Echo)
	return addr, func(limit time.Duration) error {
		err := s.Shutdown(limit)
		if cerr := env.Close(); cerr != nil && err == nil {
			err = cerr
		}
		return err
	}, nil
}

// A LoadResult is what the load client measured, plus what the server's
// loop counted.
type LoadResult struct {
	echoload.Result
	// LoopPolls counts the returns from epoll_wait of the server's event
	// loop over the whole run, connection setup and shutdown included; -1
	// for a server that has no loop of its own (Go's runtime poller is not
	// observable).
	LoopPolls int64
}

// RunEcho serves one echoload run (cfg.Addr is filled in) with an echo
// server of the model, shuts the server down, and returns what the load
// client measured.
func RunEcho(model string, cfg echoload.Config) (LoadResult, error) {
	lockLoopThread()
	defer runtime.UnlockOSThread()
	l, err := loop.New()
	if err != nil {
		return LoadResult{}, err
	}
	defer l.Close()
	addr, shutdown, err := StartEchoServer(model, l)
	if err != nil {
		return LoadResult{}, err
	}
	cfg.Addr = addr
	res, err := serveLoad(cfg, shutdown, func(ld *echoload.Load) error {
		if model == "goroutine" {
			<-ld.Done()
			return nil
		}
		return serveUntil(l, ld)
	})
	polls := loopWaits(l)
	if model == "goroutine" {
		polls = -1
	}
	return LoadResult{res, polls}, err
}

// loopWaits is the loop's waiting system calls: its iterations on epoll,
// every io_uring_enter on io_uring (loop.WaitCalls).
func loopWaits(l *loop.Loop) int64 {
	if n, ok := l.WaitCalls(); ok {
		return int64(n)
	}
	return int64(l.Stats().Polls)
}

// lockLoopThread locks the calling goroutine, which creates and runs the
// server's loop, to its OS thread, as loop.Group and StartHTTP run their
// loops: with the io_uring backend the kernel runs each poll's completion
// work on the thread that submitted it, and a loop that moved between
// threads would have idle threads woken for it (about one futex wake-up
// every two requests in the echo load, strace -c). Both backends' rows run
// so. Undo with runtime.UnlockOSThread.
func lockLoopThread() { runtime.LockOSThread() }

// serveLoad starts the load described by cfg, serves it with serve, shuts
// the server down and returns the load's result.
func serveLoad(cfg echoload.Config, shutdown func(time.Duration) error, serve func(*echoload.Load) error) (echoload.Result, error) {
	ld, err := echoload.Start(cfg)
	if err != nil {
		shutdown(time.Second)
		return echoload.Result{}, err
	}
	serr := serve(ld)
	res, err := ld.Wait()
	if shErr := shutdown(10 * time.Second); shErr != nil {
		err = errors.Join(err, fmt.Errorf("shutdown: %w", shErr))
	}
	return res, errors.Join(serr, err)
}

// serveUntil runs l until the load has ended: see runUntilDone.
func serveUntil(l *loop.Loop, ld *echoload.Load) error {
	return runUntilDone(l, ld.Done(), (*loop.Loop).Submit, time.Second, 5*time.Second)
}

// runUntilDone runs l until done is closed: a goroutine waiting for done
// submits a func to l (through submit, l.Submit but for tests), and Run
// returns once that func has run, that is once the loop has observed the
// stop request. A lost wake-up cannot hang it, and is reported as an error:
//
//   - an iteration of l that began after submit returned must run the func
//     (Submit's contract); if one ends without it, the wake-up was missed;
//   - a loop asleep through the wake-up is woken by a watchdog timer every
//     tick, which reports the wake-up missed if the func has not run
//     missedAfter after submit returned (far longer than a busy machine
//     delays a runnable goroutine).
//
// Neither check measures how long the loop took to return against a wall
// clock guess: on a loaded machine the loop goroutine can wait 100 ms and
// more for a core, and the wake-up was not lost for that.
func runUntilDone(l *loop.Loop, done <-chan struct{}, submit func(*loop.Loop, func()) error, tick, missedAfter time.Duration) error {
	start := time.Now()
	var postedAt atomic.Int64 // time since start when submit returned, +1; 0 before
	submitErr := make(chan error, 1)
	observed := false // the submitted func ran (loop goroutine only)
	go func() {
		<-done
		err := submit(l, func() { observed = true })
		postedAt.Store(int64(time.Since(start)) + 1)
		submitErr <- err
	}()
	var missed string
	var watchdog loop.Timer
	var check func()
	check = func() {
		if p := postedAt.Load(); p != 0 && !observed && time.Since(start)-time.Duration(p-1) > missedAfter {
			missed = fmt.Sprintf("the stop request had not run %v after it was submitted when the watchdog woke the loop", missedAfter)
		}
		l.Reset(&watchdog, tick, check)
	}
	l.Reset(&watchdog, tick, check)
	postedBeforePoll := false // submit had returned when this iteration's poll began
	err := l.Run(func() bool {
		if observed || missed != "" {
			return true
		}
		if postedBeforePoll {
			missed = "an iteration that began after the stop request was submitted did not run it"
			return true
		}
		postedBeforePoll = postedAt.Load() != 0
		return false
	})
	l.CancelTimer(&watchdog)
	if err != nil {
		return err
	}
	if serr := <-submitErr; serr != nil {
		return fmt.Errorf("bench: waking the server loop at the end of the load: %w", serr)
	}
	if missed != "" {
		return errors.New("bench: the server loop missed the wake-up at the end of the load: " + missed)
	}
	return nil
}

// EchoConns is the number of connections of the echo benchmarks under
// go test.
const EchoConns = 100

// Echo serves one echoload run of b.N requests over 100 connections with
// the model and reports the wall time per request (ns/op), requests per
// second, the server's CPU time per request, its read and write system
// calls per request and, for the servers on the event loop, the loop's
// epoll_wait calls per request.
func Echo(b *testing.B, model string) {
	res, err := RunEcho(model, echoload.Config{Conns: EchoConns, Requests: int64(b.N)})
	if err != nil {
		b.Fatal(err)
	}
	reportLoad(b, res)
}

func reportLoad(b *testing.B, res LoadResult) {
	b.ReportMetric(float64(res.Elapsed.Nanoseconds())/float64(max(res.Requests, 1)), "ns/op")
	b.ReportMetric(res.ReqPerSec(), "req/s")
	b.ReportMetric(res.CPUPerReqMicros(), "us-cpu/req")
	if n, ok := res.SyscallsPerReq(); ok {
		b.ReportMetric(n, "rw-syscalls/req")
	}
	if res.LoopPolls >= 0 && res.Requests > 0 {
		b.ReportMetric(float64(res.LoopPolls)/float64(res.Requests), "epoll-waits/req")
	}
}
