package loop

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// ErrGroupClosed is returned by a [Group]'s methods once the group, or the
// loop asked for, has shut down.
var ErrGroupClosed = fmt.Errorf("loop: group shut down: %w", net.ErrClosed)

// FailGrace is how long the loops of a group have to finish their in-flight
// work when the group shuts down because one of them failed ([Group.Fail]).
const FailGrace = time.Second

// GroupConfig describes a [Group]. Every hook is called on the goroutine of
// the loop it is given, so it may use that loop and whatever runs on it
// without locks. Nil hooks do nothing.
type GroupConfig struct {
	// Loops is the number of loops; 0 or less means runtime.GOMAXPROCS(0).
	Loops int
	// Init runs first on each loop's goroutine, before the loop runs: the
	// place to create what lives on the loop (an env, listeners, tasks).
	// If it fails for any loop, StartGroup shuts the group down and
	// returns the error.
	Init func(i int, l *Loop) error
	// Idle reports whether loop i has no in-flight work left. Once the
	// group shuts down, the loop runs until Idle returns true or the
	// deadline passes. Nil means idle at once.
	Idle func(i int, l *Loop) bool
	// Exit runs on each loop's goroutine after its loop stopped running
	// and before the group closes it: the place to end what is left (close
	// an env, which unwinds its coroutines). Its error is the loop's. It
	// is not called for a loop whose Init failed: Init cleans up after
	// itself.
	Exit func(i int, l *Loop) error
	// Backend is the loops' backend. BackendAuto means BackendEnv if it is
	// set, else io_uring on Linux (falling back to epoll, with one log line,
	// where the kernel lacks or refuses it): a group's loops run on locked
	// threads, where io_uring's ring is bound to its loop and costs less CPU
	// per request than epoll (docs/benchmarks.md, "Loop backends"); a loop
	// made with [New] on any goroutine keeps epoll as its default.
	Backend Backend
}

// A Group is N loops, each run by a goroutine of its own locked to its OS
// thread: one loop per core, as libco runs one env per thread (or
// process). Work reaches a loop from anywhere through [Group.Submit]; the
// loops share nothing else, so what runs on one loop is touched only by its
// goroutine.
//
// Shutdown is graceful: on every loop, the functions registered with
// [Group.OnShutdown] run first (close the listeners), then the loop runs
// until [GroupConfig.Idle] reports that its in-flight work has finished or
// the deadline passes; then Exit ends the rest and the loop is closed,
// which wakes every waiter still armed with [LoopClosed].
//
// A loop fails when Run returns an error, a hook fails, something running
// on it panics (a panic is recovered on the loop's goroutine and becomes an
// error carrying its stack), or its Run is ended from outside the group
// ([Loop.StopRun], [Loop.Close]). The first failure, or [Group.Fail],
// shuts the whole group down with [FailGrace] to finish, and [Group.Wait]
// returns every loop's error.
type Group struct {
	cfg     GroupConfig
	loops   []*Loop
	members []member
	next    atomic.Uint32

	mu       sync.Mutex // guards the members' onStop and errs, and stopping
	stopping bool
	errs     []error

	wg   sync.WaitGroup
	done chan struct{}
}

// member is the per-loop state; except onStop, only its loop's goroutine
// touches it.
type member struct {
	onStop   []func() // guarded by Group.mu
	stopped  bool     // the OnShutdown funcs have run
	exited   bool     // Run has returned
	expired  bool     // the shutdown deadline has passed
	deadline Timer
	idle     func() bool
	goid     uint64 // the loop goroutine's id, written before StartGroup returns
}

// StartGroup creates the loops of cfg and starts their goroutines. It
// returns once every Init has returned; the loops are then running.
func StartGroup(cfg GroupConfig) (*Group, error) {
	n := cfg.Loops
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	g := &Group{cfg: cfg, loops: make([]*Loop, n), members: make([]member, n), done: make(chan struct{})}
	backend := cfg.Backend
	if backend == BackendAuto {
		if backend = envBackend(); backend == BackendAuto {
			backend = groupBackend
		}
	}
	for i := range g.loops {
		l, err := NewBackend(backend)
		if err != nil {
			for _, l := range g.loops[:i] {
				l.Close()
			}
			return nil, err
		}
		g.loops[i] = l
	}
	inits := make(chan error, n)
	g.wg.Add(n)
	for i := range n {
		go g.run(i, inits)
	}
	go func() {
		g.wg.Wait()
		close(g.done)
	}()
	var err error
	for range n {
		err = errors.Join(err, <-inits)
	}
	if err != nil {
		g.Shutdown(0)
		return nil, err
	}
	return g, nil
}

// run is loop i's goroutine.
func (g *Group) run(i int, inits chan<- error) {
	defer g.wg.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	l, m := g.loops[i], &g.members[i]
	m.goid = goroutineID()
	m.idle = func() bool { return true }
	if g.cfg.Idle != nil {
		m.idle = func() bool { return g.cfg.Idle(i, l) }
	}
	err := g.guard(i, "init", func() error {
		if g.cfg.Init != nil {
			return g.cfg.Init(i, l)
		}
		return nil
	})
	inits <- err
	initialized := err == nil
	if initialized {
		err = g.guard(i, "run", func() error {
			return l.Run(func() bool { return m.stopped && (m.expired || m.idle()) })
		})
		if err == nil && !m.stopped {
			err = fmt.Errorf("loop: group loop %d stopped outside the group's shutdown (StopRun, Env.Stop or Close on it); stop a group with Shutdown or StartShutdown", i)
		}
	}
	m.exited = true
	if !m.stopped {
		err = errors.Join(err, g.guard(i, "shutdown", func() error { g.stop(i); return nil }))
	}
	l.CancelTimer(&m.deadline)
	if initialized && g.cfg.Exit != nil {
		err = errors.Join(err, g.guard(i, "exit", func() error { return g.cfg.Exit(i, l) }))
	}
	err = errors.Join(err, g.guard(i, "close", l.Close))
	if err != nil {
		g.Fail(err)
	}
}

// guard runs fn and turns its panic into an error.
func (g *Group) guard(i int, what string, fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("loop: group loop %d panicked in %s: %v\n%s", i, what, v, debug.Stack())
		}
	}()
	if err := fn(); err != nil {
		return fmt.Errorf("loop: group loop %d: %s: %w", i, what, err)
	}
	return nil
}

// stop runs loop i's OnShutdown funcs, once, on its goroutine.
func (g *Group) stop(i int) {
	m := &g.members[i]
	if m.stopped {
		return
	}
	m.stopped = true
	g.mu.Lock()
	fns := m.onStop
	m.onStop = nil
	g.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// Len returns the number of loops.
func (g *Group) Len() int { return len(g.loops) }

// Loop returns loop i. Only its goroutine may use it, except for Submit.
func (g *Group) Loop(i int) *Loop { return g.loops[i] }

// Next returns the index of a loop, taking them in turn: round-robin
// placement for callers on any goroutine.
func (g *Group) Next() int { return int((g.next.Add(1) - 1) % uint32(len(g.loops))) }

// Submit queues fn to run on loop i's goroutine, like [Loop.Submit]: funcs
// submitted by one goroutine run in the order submitted. It fails with an
// error wrapping [ErrClosed] once loop i has closed.
func (g *Group) Submit(i int, fn func()) error {
	if err := g.loops[i].Submit(fn); err != nil {
		return fmt.Errorf("loop: group loop %d: %w", i, err)
	}
	return nil
}

// OnShutdown registers fn to run on loop i's goroutine when the group
// starts shutting down, before the loop waits for its in-flight work: the
// place to close loop i's listeners. Funcs run in the order registered.
// It may be called from any goroutine; it fails with [ErrGroupClosed]
// once the group is shutting down, and fn is then not called.
func (g *Group) OnShutdown(i int, fn func()) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopping {
		return ErrGroupClosed
	}
	g.members[i].onStop = append(g.members[i].onStop, fn)
	return nil
}

// Shutdown shuts the group down and waits until every loop has closed: on
// each loop, the OnShutdown funcs run, then in-flight work has until
// timeout to finish (0: no time at all), then Exit ends the rest and the
// loop closes. It returns what [Group.Wait] returns. Calling it again, or
// concurrently, waits for the same shutdown; the first timeout holds. It
// panics if called on one of the group's loops, which it would wait for:
// use StartShutdown there.
func (g *Group) Shutdown(timeout time.Duration) error {
	g.StartShutdown(timeout)
	return g.Wait()
}

// StartShutdown starts what Shutdown does and returns at once; it may be
// called from anywhere, the group's own loops (a coroutine, a task, a
// submitted func) included. Only the first call's timeout holds.
func (g *Group) StartShutdown(timeout time.Duration) { g.begin(timeout) }

// begin starts the shutdown once.
func (g *Group) begin(timeout time.Duration) {
	g.mu.Lock()
	if g.stopping {
		g.mu.Unlock()
		return
	}
	g.stopping = true
	g.mu.Unlock()
	for i, l := range g.loops {
		m := &g.members[i]
		// A loop that has closed already (it failed) ran its
		// OnShutdown funcs on the way out.
		l.Submit(func() {
			if m.exited {
				return // run by Close after the loop failed
			}
			g.stop(i)
			if timeout <= 0 {
				m.expired = true
				return
			}
			l.Reset(&m.deadline, timeout, func() { m.expired = true })
		})
	}
}

// Fail records err as the group's and starts shutting the group down, with
// [FailGrace] for in-flight work. It may be called from any goroutine; a
// nil err does nothing.
func (g *Group) Fail(err error) {
	if err == nil {
		return
	}
	g.mu.Lock()
	g.errs = append(g.errs, err)
	g.mu.Unlock()
	g.begin(FailGrace)
}

// Wait waits until every loop has closed and returns the errors of the
// loops that failed, joined, or nil. Like Shutdown, it panics if called on
// one of the group's loops.
func (g *Group) Wait() error {
	id := goroutineID()
	for i := range g.members {
		if g.members[i].goid == id {
			panic("loop: Group.Shutdown or Wait called on one of the group's loops, which would wait for itself (use StartShutdown)")
		}
	}
	<-g.done
	g.mu.Lock()
	defer g.mu.Unlock()
	return errors.Join(g.errs...)
}

// Done returns a channel that is closed once every loop has closed.
func (g *Group) Done() <-chan struct{} { return g.done }

// goroutineID returns the current goroutine's id, parsed from the header of
// its stack trace ("goroutine 18 [running]:"): a microsecond, paid once per
// loop and once per Wait.
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}
