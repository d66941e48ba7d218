//go:build linux

package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/cogen-go/cogen/cohttp"
	"github.com/cogen-go/cogen/internal/bench"
	"github.com/cogen-go/cogen/internal/echo"
	"github.com/cogen-go/cogen/internal/echoload"
	"github.com/cogen-go/cogen/internal/hello"
	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackful/conet"
	"github.com/cogen-go/cogen/runtime/stackless"
	"golang.org/x/sys/unix"
)

// Sizes of the loop-side workloads.
const (
	sleepersPerModel = 16
	maxSleep         = 20 * time.Millisecond
	churnEvery       = 10 * time.Millisecond // a blocked coroutine or task is started this often
	churnGrace       = 3 * time.Second       // generous: the machine may be loaded
	shutdownLimit    = 10 * time.Second
)

// soakLimits are the cohttp servers' limits: short timeouts, so that the
// clients that stall, send nothing or read nothing meet them within the
// run, and a body budget that the stalled uploads (at most
// maxStalledUploads at once, of stalledDeclared bytes) cannot exhaust for
// the ordinary bodies (up to 8 KiB).
var soakLimits = cohttp.Limits{ReadHeaderTimeout: 2 * time.Second, IdleTimeout: 3 * time.Second, ReadTimeout: 3 * time.Second,
	WriteTimeout: 2 * time.Second, BodyBudget: 4 << 20, MaxConns: 1000}

// helloHandler answers every cohttp request with the hello body, handing
// /wait to hello.Wait, which sleeps first (the query's ms=N), so that
// waiting requests mix with plain ones on the same loop and, pipelined, on
// the same connection (where the answers must keep their order).
func helloHandler(w *cohttp.ResponseWriter, r *cohttp.Request) {
	if strings.HasPrefix(string(r.Path()), "/wait") {
		w.Wait(hello.Wait)
		return
	}
	if string(r.Path()) == "/big" {
		w.Write(bigAnswer)
		return
	}
	w.AddHeader("Content-Type", "text/plain; charset=utf-8")
	w.WriteString(hello.Body)
}

// bigAnswer is the body of /big, which the client that does not read asks
// for: 2000 of them are far more than the socket buffers hold.
var bigAnswer = make([]byte, 64<<10)

// checkBudget fails the run if a cohttp server's body budget was exceeded
// or is not all back once the server is shut down.
func checkBudget(s *soak, name string, srv *cohttp.Server) {
	now, peak := srv.BodyBuffered()
	if now != 0 || peak > soakLimits.BodyBudget {
		s.fail("%s: body budget: %d bytes still held after the shutdown, %d at the peak (budget %d)", name, now, peak, soakLimits.BodyBudget)
	}
}

// A target is a server the clients use.
type target struct {
	name     string
	addr     string
	http     bool
	timeouts bool // closes silent and idle connections at soakLimits' timeouts
}

// servers are the model servers of a run, each on its own loop and
// goroutine.
type servers struct {
	targets []target
	models  []*modelServer
}

// A modelServer is one loop's goroutine and what it reports at the end.
type modelServer struct {
	l    *loop.Loop
	stop chan struct{} // closed by servers.stop
	done chan serverStats
}

// serverStats is what a model server reports after its shutdown.
type serverStats struct {
	armed     int // waiters still armed after every server and coroutine ended
	liveTasks int // tasks or coroutines that did not end
	early     int
	lateness  string
}

func startServers(s *soak) *servers {
	srv := &servers{}
	for _, start := range []func(*soak, chan<- []target, *modelServer){runStackful, runStackless} {
		ms := &modelServer{stop: make(chan struct{}), done: make(chan serverStats, 1)}
		ready := make(chan []target, 1)
		go start(s, ready, ms)
		ts := <-ready
		if ts == nil {
			s.fail("a model server did not start")
			continue
		}
		srv.targets = append(srv.targets, ts...)
		srv.models = append(srv.models, ms)
	}
	return srv
}

// stop ends every model server and sums what they report.
func (srv *servers) stop() serverStats {
	var sum serverStats
	for _, ms := range srv.models {
		close(ms.stop)
		if err := ms.l.Submit(func() {}); err != nil && !errors.Is(err, loop.ErrClosed) {
			panic(err)
		}
	}
	for _, ms := range srv.models {
		st := <-ms.done
		sum.armed += st.armed
		sum.liveTasks += st.liveTasks
		sum.early += st.early
		if sum.lateness != "" {
			sum.lateness += "; "
		}
		sum.lateness += st.lateness
	}
	return sum
}

// latenessString summarises one model's sleeps.
func latenessString(name string, ts *timerStats) string {
	return fmt.Sprintf("%s sleeps %d, lateness p50 %v p99 %v max %v, early %d",
		name, ts.n, ts.quantile(0.5), ts.quantile(0.99), ts.quantile(1), ts.early)
}

// pipe returns a non-blocking pipe.
func pipe() (r, w int, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		return -1, -1, os.NewSyscallError("pipe2", err)
	}
	return p[0], p[1], nil
}

// closeFD closes fd through l if it is registered there, waking its
// waiters, and directly otherwise.
func closeFD(l *loop.Loop, fd int) error {
	if f := l.Lookup(fd); f != nil {
		return f.Close()
	}
	return unix.Close(fd)
}

// runStackful is the stackful model's server goroutine: an env with the
// echo server, an HTTP server on Co.Read/Co.Write, one on conet's
// net.Conn, sleepers, and coroutines whose descriptors are closed under
// them.
func runStackful(s *soak, ready chan<- []target, ms *modelServer) {
	l, err := loop.New()
	if err != nil {
		s.fail("stackful: %v", err)
		ready <- nil
		return
	}
	ms.l = l
	env := stackful.NewEnvOn(l)
	var lfds []int
	listen := func() string {
		lfd, addr, err := echoload.ListenFD()
		if err != nil {
			panic(err)
		}
		lfds = append(lfds, lfd)
		return addr
	}
	echoAddr := listen()
	echo.ServeStackful(env, lfds[0], echo.Echo)
	httpAddr := listen()
	echo.ServeStackful(env, lfds[1], bench.StackfulHello)
	cohttpAddr := listen()
	coSrv := cohttp.ServeStackful(env, lfds[2], helloHandler, soakLimits)

	ln, err := conet.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	env.Create(func(co *stackful.Co) {
		err := conet.Serve(co, ln, func(hc *stackful.Co, c net.Conn) {
			hello.Serve(c, c)
			c.Close()
		}, nil)
		if !errors.Is(err, net.ErrClosed) {
			s.fail("stackful: conet.Serve: %v", err)
		}
	}, nil).Resume()

	ts := newTimerStats(s.cfg.seed + 1)
	for range sleepersPerModel {
		env.Create(func(co *stackful.Co) { sleeper(co, l, ts, 1<<40, maxSleep) }, nil).Resume()
	}

	// Churn: coroutines blocked in a read whose descriptor is closed under
	// them, then released by a broadcast.
	rng := s.rng(1)
	type blockedCo struct {
		co       *stackful.Co
		started  time.Duration
		signaled bool
		err      error
		r, w     int
		closed   bool
	}
	var cond loop.Cond
	var pending []*blockedCo
	var churn loop.Timer
	var churnFn func()
	churnFn = func() {
		now := l.Now()
		live := pending[:0]
		for _, b := range pending {
			switch {
			case b.co.Status() == stackful.Dead:
				if !b.signaled || !errors.Is(b.err, loop.ErrFDClosed) {
					s.fail("stackful: a coroutine whose fd was closed ended with signaled=%v err=%v", b.signaled, b.err)
				}
				b.co.Release()
			case now-b.started > churnGrace:
				s.fail("stackful: a coroutine whose fd was closed %v ago is still %v", now-b.started, b.co.Status())
			default:
				live = append(live, b)
			}
		}
		clear(pending[len(live):])
		pending = live
		cond.Broadcast()
		r, w, err := pipe()
		if err != nil {
			s.fail("stackful: %v", err)
		} else {
			b := &blockedCo{started: now, r: r, w: w}
			b.co = env.Create(func(co *stackful.Co) { b.signaled, b.err = blocked(co, r, &cond) }, nil)
			b.co.Resume()
			pending = append(pending, b)
			s.faults.Add(1)
			l.AfterFunc(time.Duration(rng.Int64N(int64(5*time.Millisecond))), func() {
				if !b.closed {
					b.closed = true
					closeFD(l, r)
					unix.Close(w)
				}
			})
		}
		l.Reset(&churn, churnEvery, churnFn)
	}
	l.Reset(&churn, churnEvery, churnFn)

	pl := newStackfulPipeline(s, env)
	pl.run()

	ready <- []target{
		{name: "echo/stackful", addr: echoAddr},
		{name: "http/stackful", addr: httpAddr, http: true},
		{name: "http/stackful-conet", addr: ln.Addr().String(), http: true},
		{name: "cohttp/stackful", addr: cohttpAddr, http: true, timeouts: true},
	}
	runUntilClosed(s, "stackful", l, ms.stop)

	// Shutdown: no new churn, sleepers end after their current sleep,
	// listeners close, and the loop runs until every coroutine has ended.
	l.CancelTimer(&churn)
	ts.stop = true
	pl.stop()
	for _, b := range pending {
		if !b.closed {
			b.closed = true
			closeFD(l, b.r)
			unix.Close(b.w)
		}
	}
	cond.Broadcast()
	coSrv.Drain()
	for _, fd := range lfds {
		closeFD(l, fd)
	}
	ln.Close()
	expired := false
	var guard loop.Timer
	l.Reset(&guard, shutdownLimit, func() { expired = true })
	var tick loop.Timer
	var broadcast func()
	broadcast = func() { cond.Broadcast(); l.Reset(&tick, time.Millisecond, broadcast) }
	l.Reset(&tick, time.Millisecond, broadcast)
	if err := env.Run(func() bool { return expired || (env.Live() == 0 && pl.finished()) }); err != nil {
		s.fail("stackful: %v", err)
	}
	l.CancelTimer(&guard)
	l.CancelTimer(&tick)
	// The server is drained and its connections have ended: Shutdown
	// returns at once but for giving the body budget back (the garbage
	// its bodies left is collected first).
	if err := coSrv.Shutdown(shutdownLimit); err != nil {
		s.fail("stackful: cohttp shutdown: %v", err)
	}
	checkBudget(s, "cohttp/stackful", coSrv)
	st := serverStats{liveTasks: env.Live(), early: ts.early, lateness: latenessString("stackful", ts)}
	if st.liveTasks != 0 {
		s.fail("stackful: %d coroutines still running %v after shutdown began", st.liveTasks, shutdownLimit)
	}
	st.armed = l.Stats().Armed
	if st.armed != 0 {
		s.fail("stackful: %d waiters still armed after every coroutine ended", st.armed)
	}
	if err := errors.Join(env.Close(), l.Close()); err != nil {
		s.fail("stackful: close: %v", err)
	}
	ms.done <- st
}

// runStackless is the stackless model's server goroutine: the generated
// echo frame per connection, sleepers, and tasks canceled at random points.
func runStackless(s *soak, ready chan<- []target, ms *modelServer) {
	l, err := loop.New()
	if err != nil {
		s.fail("stackless: %v", err)
		ready <- nil
		return
	}
	ms.l = l
	echo, err := stackless.ServeTCP(l, "tcp4", "127.0.0.1:0", func(fd int) stackless.Frame { return echo.NewEchoFrame(fd) })
	if err != nil {
		panic(err)
	}
	echoAddr := echo.Addr().String()
	hfd, cohttpAddr, err := echoload.ListenFD()
	if err != nil {
		panic(err)
	}
	coSrv := cohttp.ServeStackless(l, hfd, helloHandler, soakLimits)

	ts := newTimerStats(s.cfg.seed + 2)
	var mine []*stackless.Task
	for range sleepersPerModel {
		mine = append(mine, stackless.Spawn(l, newSleeperFrame(l, ts, 1<<40, maxSleep)))
	}

	// Churn: tasks blocked in a read, canceled at a random point (some
	// before their first step).
	rng := s.rng(2)
	type blockedTask struct {
		t       *stackless.Task
		f       *blockedFrame
		r, w    int
		started time.Duration
	}
	var cond loop.Cond
	var pending []*blockedTask
	var churn loop.Timer
	var churnFn func()
	churnFn = func() {
		now := l.Now()
		live := pending[:0]
		for _, b := range pending {
			switch {
			case b.t.Done():
				signaled, err := b.f.Result()
				if signaled || !errors.Is(err, stackless.ErrCanceled) {
					s.fail("stackless: a canceled task ended with signaled=%v err=%v", signaled, err)
				}
				closeFD(l, b.r)
				unix.Close(b.w)
			case now-b.started > churnGrace:
				s.fail("stackless: a task canceled %v ago has not ended", now-b.started)
			default:
				live = append(live, b)
			}
		}
		clear(pending[len(live):])
		pending = live
		r, w, err := pipe()
		if err != nil {
			s.fail("stackless: %v", err)
		} else {
			b := &blockedTask{f: newBlockedFrame(r, &cond), r: r, w: w, started: now}
			b.t = stackless.Spawn(l, b.f)
			pending = append(pending, b)
			s.faults.Add(1)
			if rng.IntN(4) == 0 {
				b.t.Cancel() // before its first step
			} else {
				l.AfterFunc(time.Duration(rng.Int64N(int64(5*time.Millisecond))), b.t.Cancel)
			}
		}
		l.Reset(&churn, churnEvery, churnFn)
	}
	l.Reset(&churn, churnEvery, churnFn)

	pl := newStacklessPipeline(s, l, &mine)
	pl.run()

	ready <- []target{
		{name: "echo/stackless", addr: echoAddr},
		{name: "cohttp/stackless", addr: cohttpAddr, http: true, timeouts: true},
	}
	runUntilClosed(s, "stackless", l, ms.stop)

	l.CancelTimer(&churn)
	ts.stop = true
	pl.stop()
	if err := echo.Shutdown(shutdownLimit); err != nil && !errors.Is(err, loop.ErrFDClosed) {
		s.fail("stackless: echo shutdown: %v", err)
	}
	if err := coSrv.Shutdown(shutdownLimit); err != nil {
		s.fail("stackless: cohttp shutdown: %v", err)
	}
	checkBudget(s, "cohttp/stackless", coSrv)
	for _, b := range pending {
		b.t.Cancel()
		mine = append(mine, b.t)
	}
	expired := false
	var guard loop.Timer
	l.Reset(&guard, shutdownLimit, func() {
		expired = true
		for _, t := range mine {
			t.Cancel()
		}
	})
	if err := stackless.Run(l, mine...); err != nil {
		s.fail("stackless: %v", err)
	}
	l.CancelTimer(&guard)
	for !pl.finished() && !expired {
		if err := l.RunOnce(); err != nil {
			s.fail("stackless: %v", err)
			break
		}
		time.Sleep(time.Millisecond)
	}
	for _, b := range pending {
		closeFD(l, b.r)
		unix.Close(b.w)
	}
	st := serverStats{early: ts.early, lateness: latenessString("stackless", ts)}
	for _, t := range mine {
		if !t.Done() {
			st.liveTasks++
		}
	}
	if expired {
		s.fail("stackless: tasks still running %v after shutdown began", shutdownLimit)
	}
	st.armed = l.Stats().Armed
	if st.armed != 0 {
		s.fail("stackless: %d waiters still armed after every task ended", st.armed)
	}
	if err := l.Close(); err != nil {
		s.fail("stackless: close: %v", err)
	}
	ms.done <- st
}

// runUntilClosed runs l until stop is closed (a Submit wakes it to look).
func runUntilClosed(s *soak, name string, l *loop.Loop, stop <-chan struct{}) {
	err := l.Run(func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	})
	if err != nil {
		s.fail("%s: loop: %v", name, err)
	}
}
