package cosync

import (
	"context"
	"sync/atomic"

	"github.com/cogen-go/cogen/runtime/loop"
)

// The bridge runs an operation on a primitive's loop on behalf of code that
// is not on that loop: a goroutine outside it (the Go* methods), or a
// coroutine of another loop (any operation taking a handle, transparently).
// The operation runs on the primitive's loop under a goOp, a handle of its
// own that behaves like a stackless task: when the operation blocks, it
// returns, and the loop calls it again when it is woken. When it ends, the
// goOp tells its requester: it closes a Go channel, or wakes the coroutine's
// waiter through the coroutine's loop's Submit.

// A goOp is one bridged operation with result R.
type goOp[R any] struct {
	w        loop.Waiter // armed on the primitive's loop
	slot     any
	waking   bool
	canceled bool
	blocked  bool
	op       func(Handle) R
	res      R
	panicVal any
	panicked bool
	done     atomic.Bool
	notify   func() // called on the primitive's loop once done is set
}

func newGoOp[R any](l *loop.Loop, op func(Handle) R, notify func()) *goOp[R] {
	g := &goOp[R]{op: op, notify: notify}
	g.w.Init(l, g)
	return g
}

// Waiter, Resumed, Suspend, OpSlot and Begin make a goOp a Handle.
func (g *goOp[R]) Waiter() *loop.Waiter { return &g.w }

func (g *goOp[R]) Resumed() loop.Reason {
	r := loop.NotWoken
	if g.waking {
		g.waking = false
		r = g.w.Reason()
	}
	if g.canceled {
		return loop.Canceled
	}
	return r
}

func (g *goOp[R]) Suspend() (loop.Reason, bool) {
	g.blocked = true
	return loop.NotWoken, false
}

func (g *goOp[R]) OpSlot() *any { return &g.slot }

func (g *goOp[R]) Begin() (loop.Reason, *loop.Waiter, *any) {
	return g.Resumed(), &g.w, &g.slot
}

// Run is the waiter's runner: the operation is called again.
func (g *goOp[R]) Run() {
	g.waking = true
	g.step()
}

// step calls the operation; unless it blocked, it is over.
func (g *goOp[R]) step() {
	if g.done.Load() {
		return
	}
	g.blocked = false
	defer func() {
		if v := recover(); v != nil {
			g.panicVal, g.panicked = v, true
			g.finish()
		}
	}()
	res := g.op(g)
	if !g.blocked {
		g.res = res
		g.finish()
	}
}

func (g *goOp[R]) finish() {
	g.w.Kill()
	g.done.Store(true)
	g.notify()
}

// cancel ends a blocked operation with ErrCanceled (one that completed
// meanwhile keeps its outcome). It runs on the primitive's loop.
func (g *goOp[R]) cancel() {
	if g.done.Load() {
		return
	}
	g.canceled = true
	g.w.Cancel()
}

// result returns the outcome, raising the operation's panic in the caller.
func (g *goOp[R]) result() R {
	if g.panicked {
		panic(g.panicVal)
	}
	return g.res
}

// fromGoroutine runs op on l for a goroutine outside it and waits for the
// outcome; ctx's end cancels a blocked operation. It returns fail(err) if
// the loop is closed before the operation could start.
func fromGoroutine[R any](ctx context.Context, l *loop.Loop, op func(Handle) R, fail func(error) R) R {
	if l == nil {
		panic("cosync: bridge operation on a primitive bound to no loop (create it with NewChanOn, or call Bind)")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ch := make(chan struct{})
	g := newGoOp(l, op, func() { close(ch) })
	if err := l.Submit(g.step); err != nil {
		return fail(err)
	}
	select {
	case <-ch:
	case <-ctx.Done():
		if l.Submit(g.cancel) == nil {
			<-ch
		} else {
			<-ch // the loop's close wakes the operation
		}
	}
	return g.result()
}

// foreign reports whether h runs on another loop than l, the primitive's.
func foreign(l *loop.Loop, h Handle) bool { return l != nil && l != h.Waiter().Loop() }

// crossLoop runs op on l, a primitive's loop, for a coroutine h of another
// loop: h waits on its own loop while op runs on l. r is what h.Resumed
// reported. A cancel or a close of h's loop cancels op on l, and the
// outcome is still awaited, so that a value handed over is never lost.
func crossLoop[R any](h Handle, r loop.Reason, l *loop.Loop, op func(Handle) R, fail func(error) R) R {
	slot := h.OpSlot()
	w := h.Waiter()
	var g *goOp[R]
	if r == loop.NotWoken {
		hl := w.Loop()
		g = newGoOp(l, op, func() { hl.Submit(func() { w.Wake(loop.Signaled) }) })
		if err := l.Submit(g.step); err != nil {
			return fail(err)
		}
		*slot = g
		w.Park(-1)
		var again bool
		if r, again = h.Suspend(); !again {
			var zero R
			return zero
		}
	} else {
		g, _ = (*slot).(*goOp[R])
		if g == nil {
			return fail(failure(r)) // a first call of a canceled task
		}
	}
	for {
		if g.done.Load() {
			if p, _ := (*slot).(*goOp[R]); p == g {
				*slot = nil
			}
			return g.result()
		}
		// Woken without the outcome (canceled, h's loop closing): cancel
		// op on l and wait for its outcome, unless h's loop is closed:
		// nothing would wake h again.
		l.Submit(g.cancel)
		if r == loop.LoopClosed {
			if p, _ := (*slot).(*goOp[R]); p == g {
				*slot = nil
			}
			return fail(ErrClosed)
		}
		w.Park(-1)
		var again bool
		if r, again = h.Suspend(); !again {
			var zero R
			return zero
		}
	}
}

func errResult(err error) error { return err }

func unit(error) struct{} { return struct{}{} }

// recvResult is a bridged receive's outcome.
type recvResult[T any] struct {
	v   T
	ok  bool
	err error
}

// GoSend sends v from a goroutine outside the channel's loop, blocking
// that goroutine (never a coroutine: use Send there) until v is sent or ctx
// ends (ctx.Err()). The channel must have been created for its loop
// (NewChanOn), and the loop must be running. Like Send, it panics if the
// channel is or gets closed.
func (c *Chan[T]) GoSend(ctx context.Context, v T) error {
	err := fromGoroutine(ctx, c.l, func(h Handle) error { return c.send(h, v, Forever) }, errResult)
	return ctxErr(ctx, err)
}

// GoRecv receives from a goroutine outside the channel's loop, as GoSend
// sends.
func (c *Chan[T]) GoRecv(ctx context.Context) (v T, ok bool, err error) {
	res := fromGoroutine(ctx, c.l, func(h Handle) recvResult[T] {
		v, ok, err := c.recv(h, Forever)
		return recvResult[T]{v, ok, err}
	}, func(err error) recvResult[T] { return recvResult[T]{err: err} })
	return res.v, res.ok, ctxErr(ctx, res.err)
}

// GoClose closes the channel from a goroutine outside its loop, once the
// loop has run it; it panics as Close does.
func (c *Chan[T]) GoClose() {
	fromGoroutine(context.Background(), c.l, func(Handle) struct{} { c.Close(); return struct{}{} }, unit)
}

// Bind binds m to l before any use: a mutex that goroutines outside the
// loop use through GoLock and GoUnlock, or that coroutines of several loops
// share, must be bound first. It panics if m is bound to another loop.
func (m *Mutex) Bind(l *loop.Loop) { bindTo(&m.l, l) }

// GoLock locks m from a goroutine outside its loop, blocking that
// goroutine until it holds m or ctx ends.
func (m *Mutex) GoLock(ctx context.Context) error {
	return ctxErr(ctx, fromGoroutine(ctx, m.l, func(h Handle) error { return m.Lock(h) }, errResult))
}

// GoUnlock unlocks m from a goroutine outside its loop.
func (m *Mutex) GoUnlock() {
	fromGoroutine(context.Background(), m.l, func(Handle) struct{} { m.Unlock(); return struct{}{} }, unit)
}

// Bind binds rw to l before any use by coroutines of several loops.
func (rw *RWMutex) Bind(l *loop.Loop) { bindTo(&rw.l, l) }

// Bind binds wg to l before any use from goroutines outside the loop or by
// coroutines of several loops.
func (wg *WaitGroup) Bind(l *loop.Loop) { bindTo(&wg.l, l) }

// GoAdd adds delta to the count from a goroutine outside wg's loop.
func (wg *WaitGroup) GoAdd(delta int) {
	fromGoroutine(context.Background(), wg.l, func(Handle) struct{} { wg.Add(delta); return struct{}{} }, unit)
}

// GoDone decrements the count from a goroutine outside wg's loop.
func (wg *WaitGroup) GoDone() { wg.GoAdd(-1) }

// GoWait waits from a goroutine outside wg's loop until the count is zero
// or ctx ends.
func (wg *WaitGroup) GoWait(ctx context.Context) error {
	return ctxErr(ctx, fromGoroutine(ctx, wg.l, func(h Handle) error { return wg.Wait(h) }, errResult))
}

// Bind binds s to l before any use from goroutines outside the loop or by
// coroutines of several loops.
func (s *Semaphore) Bind(l *loop.Loop) { bindTo(&s.l, l) }

// GoAcquire acquires n from a goroutine outside s's loop, blocking it
// until n is granted or ctx ends.
func (s *Semaphore) GoAcquire(ctx context.Context, n int64) error {
	return ctxErr(ctx, fromGoroutine(ctx, s.l, func(h Handle) error { return s.Acquire(h, n) }, errResult))
}

// GoRelease releases n from a goroutine outside s's loop.
func (s *Semaphore) GoRelease(n int64) {
	fromGoroutine(context.Background(), s.l, func(Handle) struct{} { s.Release(n); return struct{}{} }, unit)
}

// Bind binds o to l before any use by coroutines of several loops.
func (o *Once) Bind(l *loop.Loop) { bindTo(&o.l, l) }

func bindTo(p **loop.Loop, l *loop.Loop) {
	if *p != nil && *p != l {
		panic("cosync: Bind of a primitive bound to another loop")
	}
	*p = l
}

// ctxErr reports ctx's error for an operation the bridge canceled.
func ctxErr(ctx context.Context, err error) error {
	if err == ErrCanceled && ctx != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// Call runs fn on loop l for the coroutine h, which waits meanwhile: how a
// coroutine of another loop uses a primitive's operations that take no
// handle (Close, TrySend, TryRecv, Unlock, Add, Done, Release), since those
// must run on the primitive's own loop:
//
//	cosync.Call(co, ch.Loop(), ch.Close)
//	cosync.Call(co, mu.Loop(), mu.Unlock)
//
// On h's own loop (or with a nil l) it calls fn at once. A panic of fn is
// raised in h.
func Call(h Handle, l *loop.Loop, fn func()) {
	r := h.Resumed()
	if !foreign(l, h) {
		fn()
		return
	}
	crossLoop(h, r, l, func(Handle) struct{} { fn(); return struct{}{} }, func(err error) struct{} {
		panic("cosync: Call on a closed loop: " + err.Error())
	})
}

// Loop returns the loop c is bound to, or nil before its first use.
func (c *Chan[T]) Loop() *loop.Loop { return c.l }

// Loop returns the loop m is bound to, or nil before its first use.
func (m *Mutex) Loop() *loop.Loop { return m.l }

// Loop returns the loop rw is bound to, or nil before its first use.
func (rw *RWMutex) Loop() *loop.Loop { return rw.l }

// Loop returns the loop wg is bound to, or nil before its first use.
func (wg *WaitGroup) Loop() *loop.Loop { return wg.l }

// Loop returns the loop s is bound to, or nil before its first use.
func (s *Semaphore) Loop() *loop.Loop { return s.l }
