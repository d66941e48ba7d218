//go:build unix

package cohttp

import (
	"bytes"
	"fmt"
	"log"
	"runtime"
	"runtime/pprof"
	"strconv"
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
// increments as a handler starts and as it returns (odd while one runs).
// When the same call has run for longer than Limits.SlowHandler, the guard
// reads the call's route (method and path), then, holding nothing, finds
// its goroutine in a traceback of all goroutines (runtime.Stack, which
// stops the world for its duration), and logs both on Limits.ErrorLog,
// once per call.
//
// A WaitHandler keeps its loop only between its waits, which the server
// does not see begin and end. While WaitHandlers are in flight, the loop
// bumps a heartbeat: from a timer every quarter of the threshold, and as
// it makes any other progress the server sees (a step of a connection, an
// accept, a WaitHandler's start and end), so that a loop busy with many
// connections keeps it going though its timers run late. When the
// heartbeat has stopped for longer than the threshold, something holds
// the loop: the guard looks, holding nothing, in the goroutine profile
// (which stops the world only briefly: stacks are collected concurrently,
// and identical ones printed once) for goroutines running (not suspended
// in a coroutine switch) a WaitHandler's frame: the connection's coroutine
// in the stackful model, the loop's goroutine running a task in the
// stackless one.
// Only when two looks in a row, with the heartbeat stopped throughout,
// find one does it take a traceback of all goroutines (runtime.Stack,
// which stops the world for its duration) to find which WaitHandler it
// is. It reports one blocked in Go (any wait state) at once; one running
// or runnable (computing, or a loop whose thread the machine has
// descheduled) only if a second traceback, once the heartbeat has stopped
// for a second, finds it still there. At most two tracebacks per stall.
// Looks while the heartbeat stays stopped are spaced by doubling
// intervals, and by at least ten times the last one's duration.
//
// The WaitHandlers in flight are registered under mu in a map keyed by the
// receiver their traceback frame prints (the conn, or its task), so that
// the loop's registration is O(1) per call, whatever the number in flight,
// and the guard's look-up of what a traceback found is O(1) per goroutine
// found. mu is held only for map updates and for copying a route; it
// orders the guard's reading of a WaitHandler's route before the loop's
// reuse of its buffer (the loop deregisters it under mu first).
//
// The loop pays two atomic increments and two atomic loads per handler
// call, a lock, a map update and an atomic per WaitHandler call, and a
// timer callback per quarter of the threshold while WaitHandlers are in
// flight. The guard ticks at a quarter of the threshold while handlers
// run, and parks, its ticker stopped, after a second without one, until
// the next call wakes it. It reads the clock as it wakes, never the tick's
// time: a tick delivered late (the guard descheduled, or parked) carries
// the time it was due, and would count the idle time as the handler's.
//
// The route of a plain Handler lives in the connection's buffer, which the
// loop rewrites once the handler has returned; the guard reads it under mu
// with reading set, and a loop finding reading set as the handler returns
// takes mu before it goes on (seq, then reading on the loop; reading, then
// seq on the guard: one of them sees the other).
type guard struct {
	seq     atomic.Uint64 // incremented as a handler starts and as it returns
	reading atomic.Bool   // the guard reads cur's route
	parked  atomic.Bool   // the guard waits on wake
	mu      sync.Mutex
	cur     *conn             // whose handler runs; written by the loop before seq goes odd
	waiters map[uintptr]*conn // the WaitHandlers in flight by their conn's waitKey, under mu
	nwait   atomic.Int32      // len(waiters)
	beat    atomic.Uint64     // the heartbeat: bumped by the loop while WaitHandlers are in flight (busy)
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
	g.waiters = map[uintptr]*conn{}
	g.tick = max(s.lim.SlowHandler/4, time.Millisecond)
	g.beatFn = func() {
		g.beat.Add(1)
		if g.nwait.Load() > 0 {
			s.l.Reset(&g.timer, g.tick, g.beatFn)
		}
	}
	go g.watch(s.lim.SlowHandler, s.logger())
}

// busy bumps the heartbeat if WaitHandlers are in flight: the loop calls
// it as it makes progress.
func (g *guard) busy() {
	if g.nwait.Load() > 0 {
		g.beat.Add(1)
	}
}

// enterWaiting is called by the loop as c's WaitHandler starts, with
// c.waitKey set.
func (g *guard) enterWaiting(s *Server, c *conn) {
	if !g.started {
		g.start(s)
	}
	g.mu.Lock()
	g.waiters[c.waitKey] = c
	g.mu.Unlock()
	g.beat.Add(1)
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
// panics); if the guard is copying c's route, it waits until it has.
func (g *guard) exitWaiting(c *conn) {
	g.mu.Lock()
	delete(g.waiters, c.waitKey)
	g.mu.Unlock()
	g.beat.Add(1)
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
	tick := g.tickOf(threshold)
	computing := max(threshold, time.Second) // see the WaitHandler case below
	t := time.NewTicker(tick)
	defer t.Stop()
	var (
		last     uint64
		since    time.Time
		reported bool
		quiet    time.Time    // since when no handler has started
		beat     uint64       // the heartbeat last seen while WaitHandlers were in flight
		beatAt   time.Time    // when it was seen (zero: none in flight)
		held     bool         // the stop of the heartbeat since beatAt has been reported
		look     time.Time    // when to look at the goroutines next while the heartbeat stays stopped
		suspects int          // the looks in a row that found a WaitHandler running
		dumps    int          // the tracebacks taken since beatAt
		prof     bytes.Buffer // the goroutine profile of the last look
	)
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
		}
		now := time.Now() // not the tick's time: see the type's comment
		if g.nwait.Load() == 0 {
			beatAt = time.Time{}
		} else if b := g.beat.Load(); beatAt.IsZero() || b != beat {
			beat, beatAt, held, suspects, dumps = b, now, false, 0, 0
			look = now.Add(threshold + tick)
		} else if !held && !now.Before(look) && g.seq.Load()&1 == 0 {
			t0 := time.Now()
			found, blocked := waiterRunning(&prof)
			if found {
				suspects++
			} else {
				suspects = 0
			}
			if suspects >= 2 && g.beat.Load() == beat && (blocked && dumps == 0 || now.Sub(beatAt) >= computing) {
				// Twice, with the heartbeat stopped throughout: find which
				// one. A WaitHandler blocked in Go is reported at once; one
				// running may be a loop whose thread the machine
				// descheduled, and is reported only if it still runs after
				// computing. At most two tracebacks per stall.
				dumps++
				rep, ok := g.waitingRoute(allStacks())
				switch {
				case !ok || g.beat.Load() != beat:
					held = true
				case rep.blocked || now.Sub(beatAt) >= computing:
					held = true
					rep.For = time.Since(beatAt) - tick
					logger.Print(rep.SlowHandlerReport.String())
				}
			}
			done := time.Now()
			look = done.Add(max(done.Sub(beatAt), 10*done.Sub(t0)))
			if at := beatAt.Add(computing); done.Before(at) && look.After(at) {
				look = at // the look that may report a computing WaitHandler
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
			t.Stop()
			g.parked.Store(true)
			if g.seq.Load() == v && g.nwait.Load() == 0 {
				select {
				case <-g.stop:
					return
				case <-g.wake:
				}
			}
			g.parked.Store(false)
			t.Reset(tick)
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
		rep.Stack = stackOf(rep.needle) // holding nothing: the loop may go on meanwhile
		rep.For = time.Since(since)
		logger.Print(rep.SlowHandlerReport.String())
	}
}

type slowReport struct {
	SlowHandlerReport
	needle  []byte  // what the handler's goroutine's traceback holds
	key     uintptr // the WaitHandler's waitKey
	blocked bool    // its goroutine waits in Go (not running or runnable)
}

// blockedState reports whether a traceback's header ("goroutine 7 [chan
// receive, locked to thread]:") shows a goroutine waiting, not running or
// runnable.
func blockedState(header []byte) bool {
	_, state, _ := bytes.Cut(header, []byte("["))
	if i := bytes.IndexAny(state, ",]"); i >= 0 {
		state = state[:i]
	}
	switch string(state) {
	case "running", "runnable", "preempted":
		return false
	}
	return true
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

// waitingRoute returns the route and stack of a WaitHandler in flight that
// stacks shows running (not suspended in a coroutine switch). It scans
// stacks once, holding nothing, and holds mu only to look up and copy
// what it found.
func (g *guard) waitingRoute(stacks []byte) (slowReport, bool) {
	for st := range bytes.SplitSeq(stacks, []byte("\n\n")) {
		header, _, _ := bytes.Cut(st, []byte("\n"))
		if bytes.Contains(header, []byte("[coroutine")) {
			continue
		}
		// runWaiting and Task.Run keep their receivers, so tracebacks
		// print them exactly.
		key := receiver(st, "cohttp.(*conn).runWaiting(")
		if key == 0 {
			key = receiver(st, "stackless.(*Task).Run(")
		}
		if key == 0 {
			continue
		}
		g.mu.Lock()
		c := g.waiters[key]
		var r slowReport
		if c != nil {
			r = slowReport{SlowHandlerReport: SlowHandlerReport{Method: string(c.req.Method()), Path: string(c.req.Path())}, key: key}
		}
		g.mu.Unlock()
		if c != nil {
			r.Stack = string(st) + "\n"
			r.blocked = blockedState(header)
			return r, true
		}
	}
	return slowReport{}, false
}

// receiver returns the pointer a traceback's frame of fn prints as its
// first argument (0 if st has no such frame).
func receiver(st []byte, fn string) uintptr {
	i := bytes.Index(st, []byte(fn))
	if i < 0 {
		return 0
	}
	arg := st[i+len(fn):]
	if end := bytes.IndexAny(arg, ",)"); end >= 0 {
		arg = arg[:end]
	}
	// A register argument may print with a "?" (possibly stale); the
	// receiver is kept, and right.
	p, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(string(arg), "0x"), "?"), 16, 64)
	if err != nil {
		return 0
	}
	return uintptr(p)
}

// waiterRunning reports whether a goroutine runs a WaitHandler's frame
// and is not suspended in a coroutine switch, and whether one such is
// blocked (parked in Go's scheduler, or in a system call), from the
// goroutine profile (into buf), which stops the world only briefly: the
// stacks are collected concurrently, identical ones are printed once, and
// no arguments are.
func waiterRunning(buf *bytes.Buffer) (found, blocked bool) {
	buf.Reset()
	if err := pprof.Lookup("goroutine").WriteTo(buf, 1); err != nil {
		return false, false
	}
	for st := range bytes.SplitSeq(buf.Bytes(), []byte("\n\n")) {
		if !bytes.Contains(st, []byte("cohttp.(*conn).runWaiting+")) && !bytes.Contains(st, []byte("stackless.(*Task).Run+")) {
			continue
		}
		// The profile leaves out the runtime's frames on top: a suspended
		// coroutine's first frame is its switch (iter.Pull's, or package
		// stackful's own).
		_, top, _ := bytes.Cut(st, []byte("\n#\t"))
		top, _, _ = bytes.Cut(top, []byte("\n"))
		if bytes.Contains(top, []byte("\titer.Pull")) || bytes.Contains(top, []byte("/runtime/stackful.")) {
			continue
		}
		found = true
		// The first of the PCs ("N @ 0x... 0x..."), which the profile
		// prints all: a blocked goroutine's is in gopark or a system call.
		_, pcs, _ := bytes.Cut(st, []byte("@ "))
		first, _, _ := bytes.Cut(pcs, []byte(" "))
		if pc, err := strconv.ParseUint(strings.TrimPrefix(string(first), "0x"), 16, 64); err == nil {
			if f := runtime.FuncForPC(uintptr(pc) - 1); f != nil {
				name := f.Name()
				if strings.HasPrefix(name, "runtime.gopark") || strings.Contains(name, "yscall") {
					blocked = true
				}
			}
		}
	}
	return found, blocked
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
