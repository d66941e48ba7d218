//go:build unix

package cohttp

import (
	"bytes"
	"fmt"
	"log"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// The blocked-loop guard.
//
// A Handler runs on the loop: while it runs, no other connection of the
// loop is served. One that waits in Go (time.Sleep, a sync.Mutex, a
// channel, a blocking system call, a net/http client) instead of being a
// WaitHandler freezes them all, silently below the stall watchdog's 1 s.
// A server therefore has a guard: one goroutine, started with the first
// handler call and ended with the server, that samples a counter the loop
// increments as a handler starts and as it returns (odd while one runs). When the
// same call has run for longer than Limits.SlowHandler, the guard reads the
// call's route (method and path) and finds its goroutine in a traceback of
// all goroutines (runtime.Stack, which stops the world for its duration,
// once per report), and logs both on Limits.ErrorLog, once per call.
//
// A WaitHandler keeps its loop only between its waits, which the server
// does not see begin and end. While WaitHandlers are in flight, a loop
// timer bumps a heartbeat every quarter of the threshold; when the
// heartbeat stops for longer than the threshold, something holds the loop,
// and the guard looks for a WaitHandler of the server on a running
// goroutine's stack (its connection's coroutine in the stackful model, the
// loop's goroutine running its task in the stackless one) and reports it
// the same way. The WaitHandlers in flight are registered under mu, which
// also orders the guard's reading of their routes before the loop's
// reuse of their buffers.
//
// The loop pays two atomic increments and two atomic loads per handler
// call, a lock and an atomic per WaitHandler call, and a timer callback per
// quarter of the threshold while WaitHandlers are in flight. The guard
// ticks at a quarter of the threshold while handlers run, and parks after
// a second without one, until the next call wakes it.
//
// The route lives in the connection's buffer, which the loop rewrites
// once the handler has returned; the guard reads it under mu with reading
// set, and a loop finding reading set as the handler returns takes mu
// before it goes on (seq, then reading on the loop; reading, then seq on
// the guard: one of them sees the other).
type guard struct {
	seq     atomic.Uint64 // incremented as a handler starts and as it returns
	reading atomic.Bool   // the guard reads cur's route
	parked  atomic.Bool   // the guard waits on wake
	mu      sync.Mutex
	cur     *conn              // whose handler runs; written by the loop before seq goes odd
	waiters map[*conn]struct{} // the WaitHandlers in flight, under mu
	nwait   atomic.Int32       // len(waiters)
	beat    atomic.Uint64      // bumped by the loop's beat timer while WaitHandlers are in flight
	tick    time.Duration
	timer   loop.Timer // the beat timer (loop side)
	beatFn  func()
	wake    chan struct{}
	stop    chan struct{}
	started bool // loop side
	ended   bool // loop side
}

// A SlowHandlerReport is what the guard reports: a Handler call that has kept
// its loop longer than Limits.SlowHandler.
type SlowHandlerReport struct {
	Method, Path string        // the request's route
	For          time.Duration // how long the call had run when it was seen (at least the threshold)
	Stack        string        // the traceback of the goroutine running it ("" if not found)
}

// String is the report logged on Limits.ErrorLog.
func (s SlowHandlerReport) String() string {
	return fmt.Sprintf("cohttp: handler for %s %s has kept its loop for %v: no other connection of the loop is served meanwhile; "+
		"a handler that waits must be a WaitHandler and wait through its handle\n%s",
		s.Method, s.Path, s.For.Round(time.Millisecond), s.Stack)
}

// enter is called by the loop as a handler starts.
func (g *guard) enter(s *Server, c *conn) {
	if !g.started {
		g.start(s)
	}
	g.cur = c
	g.seq.Add(1)
	if g.parked.Load() {
		select {
		case g.wake <- struct{}{}:
		default:
		}
	}
}

// exit is called by the loop as the handler returns (or panics).
func (g *guard) exit() {
	g.seq.Add(1)
	if g.reading.Load() {
		g.mu.Lock() // the guard reads the route: wait until it has
		//lint:ignore SA2001 the lock is the wait: the guard reads the route under it
		g.mu.Unlock()
	}
}

func (g *guard) start(s *Server) {
	g.started = true
	g.wake = make(chan struct{}, 1)
	g.stop = make(chan struct{})
	g.waiters = map[*conn]struct{}{}
	g.tick = max(s.lim.SlowHandler/4, time.Millisecond)
	g.beatFn = func() {
		g.beat.Add(1)
		if g.nwait.Load() > 0 {
			s.l.Reset(&g.timer, g.tick, g.beatFn)
		}
	}
	go g.watch(s.lim.SlowHandler, s.logger())
}

// enterWaiting is called by the loop as c's WaitHandler starts.
func (g *guard) enterWaiting(s *Server, c *conn) {
	if !g.started {
		g.start(s)
	}
	g.mu.Lock()
	g.waiters[c] = struct{}{}
	g.mu.Unlock()
	if g.nwait.Add(1) == 1 {
		s.l.Reset(&g.timer, g.tick, g.beatFn)
		if g.parked.Load() {
			select {
			case g.wake <- struct{}{}:
			default:
			}
		}
	}
}

// exitWaiting is called by the loop as c's WaitHandler returns (or
// panics); if the guard is reading c's route, it waits until it has.
func (g *guard) exitWaiting(c *conn) {
	g.mu.Lock()
	delete(g.waiters, c)
	g.mu.Unlock()
	g.nwait.Add(-1)
}

// end stops the guard (on the loop, once the server is over).
func (g *guard) end() {
	if g.started && !g.ended {
		g.ended = true
		close(g.stop)
	}
}

// watch samples the handler calls until stop is closed.
func (g *guard) watch(threshold time.Duration, logger *log.Logger) {
	tick := max(threshold/4, time.Millisecond)
	t := time.NewTicker(tick)
	defer t.Stop()
	var (
		last     uint64
		since    time.Time
		reported bool
		quiet    time.Time // since when no handler has started
		beat     uint64    // the heartbeat last seen while WaitHandlers were in flight
		beatAt   time.Time // when it was seen (zero: none in flight)
		held     bool      // the stop of the heartbeat since beatAt has been reported
	)
	for {
		var now time.Time
		select {
		case <-g.stop:
			return
		case now = <-t.C:
		}
		if g.nwait.Load() == 0 {
			beatAt = time.Time{}
		} else if b := g.beat.Load(); beatAt.IsZero() || b != beat {
			beat, beatAt, held = b, now, false
		} else if !held && now.Sub(beatAt) > threshold+g.tickOf(threshold) && g.seq.Load()&1 == 0 {
			if rep, ok := g.waitingRoute(); ok {
				held = true
				rep.For = time.Since(beatAt) - g.tickOf(threshold)
				logger.Print(rep.SlowHandlerReport.String())
			}
		}
		v := g.seq.Load()
		if v != last {
			last, since, reported, quiet = v, now, false, now
			continue
		}
		if v&1 == 0 {
			if now.Sub(quiet) < time.Second || g.nwait.Load() > 0 {
				continue
			}
			// Park until a handler starts: no ticks on an idle server.
			g.parked.Store(true)
			if g.seq.Load() == v {
				select {
				case <-g.stop:
					return
				case <-g.wake:
				}
			}
			g.parked.Store(false)
			quiet = time.Now()
			continue
		}
		if reported || now.Sub(since) < threshold {
			continue
		}
		rep, ok := g.route(v)
		if !ok {
			continue // it returned meanwhile
		}
		reported = true
		rep.For = time.Since(since)
		rep.Stack = stackOf(rep.needle)
		logger.Print(rep.SlowHandlerReport.String())
	}
}

type slowReport struct {
	SlowHandlerReport
	needle []byte
}

// route reads the method and path of the call seq v, if it still runs.
func (g *guard) route(v uint64) (slowReport, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reading.Store(true)
	defer g.reading.Store(false)
	if g.seq.Load() != v {
		return slowReport{}, false
	}
	c := g.cur
	r := slowReport{SlowHandlerReport: SlowHandlerReport{Method: string(c.req.Method()), Path: string(c.req.Path())}}
	// callHandler keeps its receiver for its deferred call, so tracebacks
	// print it exactly.
	r.needle = fmt.Appendf(nil, "cohttp.(*conn).callHandler(%p", c)
	return r, true
}

// tickOf is the beat timer's period for the threshold.
func (g *guard) tickOf(threshold time.Duration) time.Duration {
	return max(threshold/4, time.Millisecond)
}

// waitingRoute finds a WaitHandler in flight whose goroutine is running
// (not suspended in a coroutine switch) and returns its route and stack.
func (g *guard) waitingRoute() (slowReport, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.waiters) == 0 {
		return slowReport{}, false
	}
	stacks := allStacks()
	for c := range g.waiters {
		// runWaiting and Task.Run keep their receivers, so tracebacks
		// print them exactly.
		needle := fmt.Appendf(nil, "cohttp.(*conn).runWaiting(%p", c)
		if c.task != nil {
			needle = fmt.Appendf(nil, "stackless.(*Task).Run(%p", c.task)
		}
		if st := goroutineWith(stacks, needle); st != "" && !strings.Contains(st[:strings.IndexByte(st, '\n')+1], "[coroutine") {
			r := slowReport{SlowHandlerReport: SlowHandlerReport{Method: string(c.req.Method()), Path: string(c.req.Path()), Stack: st}}
			return r, true
		}
	}
	return slowReport{}, false
}

// allStacks returns a traceback of all goroutines.
func allStacks() []byte {
	buf := make([]byte, 256<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

// goroutineWith returns the traceback in stacks of the goroutine whose
// stack holds needle.
func goroutineWith(stacks, needle []byte) string {
	for g := range bytes.SplitSeq(stacks, []byte("\n\n")) {
		if bytes.Contains(g, needle) {
			return string(g) + "\n"
		}
	}
	return ""
}

// stackOf returns the traceback of the goroutine whose stack holds needle.
func stackOf(needle []byte) string { return goroutineWith(allStacks(), needle) }

// logger returns where the server reports.
func (s *Server) logger() *log.Logger {
	if s.lim.ErrorLog != nil {
		return s.lim.ErrorLog
	}
	return log.Default()
}
