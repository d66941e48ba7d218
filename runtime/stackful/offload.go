package stackful

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// Offloading: running what can only block in Go on a worker goroutine
// while the coroutine waits on its loop.
//
// Each env has a pool of worker goroutines, started on demand up to its
// limit and ended by Env.Close (each after the call it runs, if any, has
// returned). A call is a job: the coroutine's own, reused from call to
// call, so that an Offload allocates nothing after the coroutine's first.
// The coroutine sends its job on a buffered channel that never blocks (the
// loop side keeps at most limit jobs in flight, and the channel holds
// limit), parks on the loop, and the worker that ran it submits its
// completion to the loop, which wakes the coroutine. When limit calls are
// in flight, further callers wait on the loop (a Cond), not in Go's
// scheduler.

// DefaultOffloadLimit is the default number of worker goroutines, and so
// of calls in flight, of an env's offload pool.
const DefaultOffloadLimit = 64

// offloadPool is an env's pool; its fields other than jobs belong to the
// env's goroutine.
type offloadPool struct {
	jobs     chan *offloadJob
	limit    int
	workers  int // started
	inFlight int // sent and not completed
	room     loop.Cond
}

// offloadJob is one call. The fields up to finished belong to the env's
// goroutine while the job is not in flight, to the worker while it is;
// the loop side reads them after the completion is submitted.
type offloadJob struct {
	fn       func()
	fnCtx    func(context.Context)
	ctx      context.Context
	panicked bool
	value    any         // the panic value
	finished atomic.Bool // fn has returned (the only field read across the two sides)

	// loop side
	co        *Co
	pool      *offloadPool
	done      bool // completion seen
	abandoned bool // the coroutine stopped waiting (timeout, unwinding)
	complete  func()
}

// SetOffloadLimit sets how many worker goroutines, and so calls in flight,
// the env's offload pool may have (n >= 1; [DefaultOffloadLimit] unless
// set). Workers already started beyond a lowered limit stay until Close.
func (e *Env) SetOffloadLimit(n int) {
	if n < 1 {
		panic("stackful: SetOffloadLimit with n < 1")
	}
	p := e.offloadPool()
	if n > cap(p.jobs) {
		// A larger channel for sends from now on; workers move over as
		// they find the old one closed.
		old := p.jobs
		p.jobs = make(chan *offloadJob, n)
		close(old)
		p.workers = 0
	}
	p.limit = n
	p.room.Broadcast()
}

// OffloadLimit returns the limit of the env's offload pool.
func (e *Env) OffloadLimit() int {
	if e.offload == nil {
		return DefaultOffloadLimit
	}
	return e.offload.limit
}

func (e *Env) offloadPool() *offloadPool {
	if e.offload == nil {
		e.offload = &offloadPool{jobs: make(chan *offloadJob, DefaultOffloadLimit), limit: DefaultOffloadLimit}
	}
	return e.offload
}

// stopOffload closes the job channel: idle workers end now, busy ones
// after their call returns.
func (e *Env) stopOffload() {
	if e.offload != nil {
		close(e.offload.jobs)
	}
}

// Offload runs fn on a worker goroutine of the env's offload pool and
// waits on the loop until it returns, so the env's other coroutines run
// meanwhile; a panic in fn is raised again here. It is how a call that
// can only block in Go - a driver that holds a Go mutex across I/O or
// waits on a Go channel, cgo, a file system call - is made safe in a
// coroutine. fn must not touch the env or its coroutines. When the pool
// has its limit of calls in flight ([Env.SetOffloadLimit]), Offload first
// waits on the loop for one to end.
//
// After a coroutine's first Offload, a call allocates nothing in the
// package; fn's closure allocates if it captures variables that escape
// (keep one func value, for example a method value of a struct the
// coroutine reuses, to make the round trip allocation-free). Called by
// the main coroutine, Offload runs the loop until fn returns.
func (co *Co) Offload(fn func()) {
	j := co.startOffload()
	j.fn = fn
	co.awaitOffload(j, -1)
}

// OffloadContext runs fn(ctx) as Offload runs fn, waiting at most timeout
// (negative: no limit). If fn has not returned by then, ctx is cancelled
// and OffloadContext returns context.DeadlineExceeded at once, without
// waiting for fn: fn should watch ctx. Its worker stays busy until fn
// returns, and a panic of fn after that point ends the program, as in
// any goroutine. Each call allocates a context.
func (co *Co) OffloadContext(timeout time.Duration, fn func(ctx context.Context)) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j := co.startOffload()
	j.fnCtx, j.ctx = fn, ctx
	if !co.awaitOffload(j, timeout) {
		return context.DeadlineExceeded
	}
	return nil
}

// startOffload waits for room in the pool and returns co's job, ready to
// be given its function.
func (co *Co) startOffload() *offloadJob {
	co.mustBeCurrent("Offload")
	e := co.env
	if e.closed {
		panic("stackful: Offload on a closed env")
	}
	p := e.offloadPool()
	for p.inFlight >= p.limit {
		co.Wait(&p.room, -1)
	}
	x := co.ext()
	j := x.job
	if j == nil {
		j = &offloadJob{co: co, pool: p}
		j.complete = j.completed
		x.job = j
	}
	j.pool = p
	j.done, j.panicked, j.value = false, false, nil
	j.finished.Store(false)
	return j
}

// awaitOffload sends j to a worker and waits for it; it reports false if
// timeout passed first (the job is then abandoned to its worker).
func (co *Co) awaitOffload(j *offloadJob, timeout time.Duration) bool {
	p := j.pool
	p.inFlight++
	if p.workers < p.inFlight && p.workers < p.limit {
		p.workers++
		go offloadWorker(p.jobs, co.env.loop)
	}
	p.jobs <- j // never blocks: at most limit jobs in flight
	ok := false
	defer func() {
		if !ok {
			// Timed out, or unwound by Env.Close: the worker keeps the job.
			j.abandoned = true
			co.extra.job = nil
		}
	}()
	deadline := deadlineOf(co.env.loop, timeout)
	for !j.done {
		co.w.Park(remaining(co.env.loop, deadline, timeout))
		switch co.Await() {
		case loop.Timeout:
			return false // OffloadContext's deferred cancel cancels j.ctx
		case loop.LoopClosed:
			// Nothing will run the completion: wait for fn itself.
			for !j.finished.Load() {
				time.Sleep(time.Millisecond)
			}
			j.done = true
		}
	}
	ok = true
	j.fn, j.fnCtx, j.ctx = nil, nil, nil
	if j.panicked {
		v := j.value
		j.value = nil
		panic(v)
	}
	return true
}

// completed runs on the loop when j's worker is done with it.
func (j *offloadJob) completed() {
	p := j.pool
	p.inFlight--
	p.room.Signal()
	if j.abandoned {
		if j.panicked {
			v := j.value
			go panic(v) // nobody waits for it: it ends the program, as in any goroutine
		}
		return
	}
	j.done = true
	if w := &j.co.w; w.Armed() {
		w.Wake(loop.Ready)
	}
}

func offloadWorker(jobs <-chan *offloadJob, l *loop.Loop) {
	for j := range jobs {
		j.run()
		j.finished.Store(true)
		l.Submit(j.complete) // fails only once the loop is closed: nobody waits then
	}
}

func (j *offloadJob) run() {
	normal := false
	defer func() {
		if !normal {
			j.panicked, j.value = true, recover()
		}
	}()
	if j.fnCtx != nil {
		j.fnCtx(j.ctx)
	} else {
		j.fn()
	}
	normal = true
}
