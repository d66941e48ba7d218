package stackful

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Stall detection.
//
// A coroutine that blocks in Go's scheduler (a sync.Mutex, a channel, a
// blocking system call) instead of waiting on its env freezes the env: the
// goroutine that would run the loop is parked in the coroutine switch,
// waiting for the blocked one to hand back. When the blocker is another
// coroutine of the same env (a Go mutex held by a suspended coroutine),
// nothing ever resumes it, and the program hangs without a word.
//
// An env therefore has a watchdog: one goroutine, started with the env
// and stopped by Env.Close, that samples the env's
// current coroutine and its Resume count a few times per stall timeout. The
// switch path pays one instruction: Resume increments the count (the
// current coroutine was stored anyway); the race detector's build adds
// atomic copies. When the same coroutine (other than main) has
// been current, with no Resume in between, for longer than the timeout, the
// watchdog takes one traceback of all goroutines (runtime.Stack, which
// stops the world for its duration: 63 ms and 7.3 MB of text for 10,000
// suspended coroutines on the loaded 2-core VM, once per stall) and finds the coroutine's goroutine by the receiver of its
// (*Co).run frame. Its state decides:
//
//   - blocked (any wait state: sync.Mutex.Lock, chan receive, select,
//     semacquire, IO wait, sleep, syscall...): a stall, reported once per
//     occurrence;
//   - running or runnable: the coroutine is computing. It is not printed;
//     a handler set with Env.OnStall sees it with Blocked false, and is
//     asked again after twice the time (2x, 4x...).

// DefaultStallTimeout is how long a coroutine may keep its env before the
// watchdog looks at what it does.
const DefaultStallTimeout = time.Second

// A Stall describes a coroutine that has kept its env longer than the
// env's stall timeout.
type Stall struct {
	// Co is the coroutine. It belongs to its env: the handler may print
	// or compare it, and must not call its methods.
	Co *Co
	// Goroutine is the id of the coroutine's goroutine, as tracebacks
	// print it; 0 if its traceback was not found.
	Goroutine int
	// For is how long the coroutine has been current (at least the
	// timeout; sampling makes it up to a quarter more).
	For time.Duration
	// State is the goroutine's state as a traceback prints it:
	// "sync.Mutex.Lock", "chan receive", "select", "syscall", "running"...;
	// "unknown" (with Blocked true) if its traceback was not found.
	State string
	// Blocked reports that the goroutine waits outside the env's loop (in
	// Go's scheduler or a blocking system call); false means it computes.
	Blocked bool
	// Stack is the goroutine's traceback.
	Stack string
}

// String is the report printed on stderr for a blocked stall without a
// handler: the coroutine, what it is blocked in, the advice, its stack.
func (s Stall) String() string {
	var b strings.Builder
	what := "computing"
	switch {
	case s.State == "unknown":
		what = "in an unknown state (its goroutine is not in the traceback)"
	case s.Blocked:
		what = "blocked in " + s.State + " outside the event loop"
	}
	fmt.Fprintf(&b, "stackful: stall: coroutine %p (goroutine %d) has kept its env for %v, %s;\n",
		s.Co, s.Goroutine, s.For.Round(time.Millisecond), what)
	if s.Blocked {
		b.WriteString("no other coroutine of the env runs until it returns, and if what it waits for is\n" +
			"held by a suspended coroutine of the same env it never will. A coroutine must wait only\n" +
			"through its env (its waiting methods, package hook, package conet); run calls that block\n" +
			"in Go (a sync.Mutex, a channel, a blocking system call) with hook.Offload.\n")
	}
	b.WriteString(s.Stack)
	return b.String()
}

// stallOutput is where reports go without a handler (a variable for tests).
var stallOutput io.Writer = os.Stderr

// stallWatch is an env's watchdog state. Its fields are set by the env's
// goroutine; the watchdog goroutine reads the atomics.
type stallWatch struct {
	timeout atomic.Int64 // the timeout minus DefaultStallTimeout, so that the zero value is the default
	handler atomic.Pointer[func(Stall)]
	//lint:ignore U1000 used in the race detector's build (current_race.go)
	current atomic.Pointer[Co] // e.current, for the race detector's build (current_race.go)
	once    bool               // the watchdog was started
	stop    chan struct{}
	done    sync.WaitGroup
}

// SetStallTimeout sets how long a coroutine may keep the env (run without
// handing back to it, with no Resume in between) before the watchdog looks
// at what it does; 0 turns stall detection off. The default is
// [DefaultStallTimeout]. It may be called at any time, from any goroutine;
// the watchdog uses the new value from its next sample on (within a quarter
// of a second after a timeout of zero).
func (e *Env) SetStallTimeout(d time.Duration) {
	if d < 0 {
		panic("stackful: SetStallTimeout with a negative duration")
	}
	e.stall.timeout.Store(int64(d) - int64(DefaultStallTimeout))
}

// StallTimeout returns the env's stall timeout (0: detection is off).
func (e *Env) StallTimeout() time.Duration {
	return time.Duration(e.stall.timeout.Load()) + DefaultStallTimeout
}

// OnStall sets the function the watchdog calls, on its own goroutine,
// for each stall instead of printing the report on stderr (nil restores
// the report). It sees computing coroutines too (Stall.Blocked false),
// which the default report leaves out. It may panic to end the program
// with the stall, log, count or release what the coroutine waits for; it
// must not touch the env or its coroutines.
func (e *Env) OnStall(fn func(Stall)) {
	if fn == nil {
		e.stall.handler.Store(nil)
		return
	}
	e.stall.handler.Store(&fn)
}

// startWatchdog starts the watchdog if it is not running; called by
// NewEnvOn.
func (e *Env) startWatchdog() {
	if e.stall.once {
		return
	}
	e.stall.once = true
	e.stall.stop = make(chan struct{})
	e.stall.done.Add(1)
	go e.watch(e.stall.stop)
}

// stopWatchdog stops the watchdog and waits for it to end.
func (e *Env) stopWatchdog() {
	if e.stall.stop != nil {
		close(e.stall.stop)
		e.stall.done.Wait()
		e.stall.stop = nil
	}
}

// watch samples the env until stop is closed.
func (e *Env) watch(stop <-chan struct{}) {
	defer e.stall.done.Done()
	const minTick = 5 * time.Millisecond
	tick := max(e.StallTimeout()/4, minTick)
	if e.StallTimeout() == 0 {
		tick = 250 * time.Millisecond
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	var (
		last    *Co
		count   uint64
		since   time.Time
		next    time.Duration // how long since 'since' before the next look
		settled bool          // reported as blocked, or gone from the tracebacks
	)
	for {
		var now time.Time
		select {
		case <-stop:
			return
		case now = <-t.C:
		}
		timeout := e.StallTimeout()
		if timeout == 0 {
			last = nil
			continue
		}
		if nt := max(timeout/4, minTick); nt != tick {
			tick = nt
			t.Reset(tick)
		}
		cur, n := e.loadCurrent(), e.loadSwitches()
		if cur != last || n != count || since.IsZero() {
			last, count, since, next, settled = cur, n, now, timeout, false
			continue
		}
		if cur == &e.main || settled || now.Sub(since) < next {
			continue
		}
		s, found := inspect(cur)
		if e.loadCurrent() != cur || e.loadSwitches() != count {
			continue // it moved on meanwhile
		}
		if s.State == "coroutine" {
			continue // caught mid-switch
		}
		if !found {
			// Never silent: without its traceback the coroutine cannot be
			// shown to compute, so it is reported as blocked.
			s.State, s.Blocked = "unknown", true
		}
		s.For = time.Since(since)
		if s.Blocked {
			settled = true
		} else {
			next = 2 * s.For
		}
		if h := e.stall.handler.Load(); h != nil {
			(*h)(s)
		} else if s.Blocked {
			io.WriteString(stallOutput, s.String())
		}
	}
}

// inspect finds co's goroutine in a traceback of all goroutines.
func inspect(co *Co) (Stall, bool) {
	buf := make([]byte, 256<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	// Co.run keeps its receiver for its deferred call, so tracebacks
	// print it exactly.
	needle := fmt.Appendf(nil, "stackful.(*Co).run(%p)", co)
	for g := range bytes.SplitSeq(buf, []byte("\n\n")) {
		if !bytes.Contains(g, needle) {
			continue
		}
		s := Stall{Co: co, Stack: string(g)}
		if !bytes.HasSuffix(g, []byte("\n")) {
			s.Stack += "\n"
		}
		// "goroutine 30 [sync.Mutex.Lock, 2 minutes]:"
		header, _, _ := bytes.Cut(g, []byte("\n"))
		if rest, ok := bytes.CutPrefix(header, []byte("goroutine ")); ok {
			id, st, _ := bytes.Cut(rest, []byte(" ["))
			s.Goroutine, _ = strconv.Atoi(string(id))
			st, _, _ = bytes.Cut(st, []byte("]"))
			st, _, _ = bytes.Cut(st, []byte(","))
			s.State = string(st)
		}
		switch s.State {
		case "running", "runnable", "preempted", "coroutine":
		default:
			s.Blocked = true
		}
		return s, true
	}
	return Stall{Co: co}, false
}
