package cosync

import (
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// A granter is a primitive whose operations wait for a grant.
type granter[T any] interface {
	// tryGrant completes an operation asking for val at once if it can.
	tryGrant(val T) bool
	// regrant runs after a waiter gave up: the queue's head may have been
	// what held the others back.
	regrant()
}

// grantWait is the shape of the operations that wait for a grant (a lock,
// a wait group reaching zero, semaphore weight): g.tryGrant completes at
// once if it can; otherwise the operation queues a record with val and
// waits until a waker grants it (state done) or it gives up. The granter
// is an interface holding the primitive's pointer, not a func value, so
// that the fast path allocates nothing.
func grantWait[T any](l **loop.Loop, q *waitq[T], h Handle, val T, timeout time.Duration, g granter[T]) error {
	r, w, slot := h.Begin()
	if place(l, w) {
		return crossLoop(h, r, *l, func(o Handle) error { return grantWait(l, q, o, val, timeout, g) }, errResult)
	}
	if r != loop.NotWoken {
		if rec := q.pending(slot); rec != nil {
			return grantEnd(q, rec, r, g)
		}
		return failure(r)
	}
	if g.tryGrant(val) {
		return nil
	}
	if timeout == 0 {
		return ErrTimeout
	}
	rec := q.wait(slotOf(h, slot), w, val, timeout)
	r, again := h.Suspend()
	if !again {
		return nil
	}
	return grantEnd(q, rec, r, g)
}

func grantEnd[T any](q *waitq[T], rec *record[T], r loop.Reason, g granter[T]) error {
	if st, _ := q.finish(rec); st == stDone {
		return nil
	}
	g.regrant()
	return failure(r)
}

// A Mutex is a mutual exclusion lock for coroutines of one loop: Lock
// suspends the coroutine, not the goroutine. Waiters are served in FIFO
// order and Unlock hands the lock to the first of them directly (no
// barging: TryLock fails while a woken waiter has yet to run). The zero
// value is an unlocked mutex; it binds to the loop of its first waiter.
//
// A Mutex is not tied to a coroutine: any code on the loop's goroutine may
// unlock it. A stackful coroutine unwound by Env.Close, or a stackless task
// ended, while holding it leaves it locked.
type Mutex struct {
	l      *loop.Loop
	locked bool
	q      waitq[struct{}]
}

// Lock locks m, waiting until it is unlocked. It returns nil with the lock
// held, or [ErrCanceled] or [ErrClosed] without it.
func (m *Mutex) Lock(h Handle) error { return m.LockTimeout(h, Forever) }

// LockTimeout is Lock giving up with [ErrTimeout] after timeout (negative:
// never; 0: only if m is unlocked at once).
func (m *Mutex) LockTimeout(h Handle, timeout time.Duration) error {
	return grantWait(&m.l, &m.q, h, struct{}{}, timeout, m)
}

func (m *Mutex) tryGrant(struct{}) bool { return m.TryLock() }
func (m *Mutex) regrant()               {}

// TryLock locks m if it is unlocked and reports whether it did.
func (m *Mutex) TryLock() bool {
	if m.locked {
		return false
	}
	m.locked = true
	return true
}

// Unlock unlocks m, handing it to the longest waiter if there is one. It
// panics if m is not locked.
func (m *Mutex) Unlock() {
	if !m.locked {
		panic("cosync: unlock of unlocked Mutex")
	}
	if r := m.q.popAlive(); r != nil {
		r.complete(stDone) // the lock passes to r's owner
		return
	}
	m.locked = false
}

// An RWMutex is a reader/writer lock for coroutines of one loop: any number
// of readers or one writer. Waiters are served in FIFO order: a reader
// arriving while a writer waits queues behind it, and Unlock grants the
// next writer or every reader at the head of the queue. The zero value is
// unlocked.
type RWMutex struct {
	l       *loop.Loop
	readers int
	writer  bool
	q       waitq[bool] // true: a writer
}

// Lock locks rw for writing, waiting until no reader or writer holds it.
func (rw *RWMutex) Lock(h Handle) error { return rw.LockTimeout(h, Forever) }

// LockTimeout is Lock giving up with [ErrTimeout] after timeout.
func (rw *RWMutex) LockTimeout(h Handle, timeout time.Duration) error {
	return grantWait(&rw.l, &rw.q, h, true, timeout, rw)
}

func (rw *RWMutex) tryGrant(write bool) bool {
	if write {
		return rw.TryLock()
	}
	return rw.TryRLock()
}

func (rw *RWMutex) regrant() { rw.grant() }

// RLock locks rw for reading, waiting while a writer holds or waits for it.
func (rw *RWMutex) RLock(h Handle) error { return rw.RLockTimeout(h, Forever) }

// RLockTimeout is RLock giving up with [ErrTimeout] after timeout.
func (rw *RWMutex) RLockTimeout(h Handle, timeout time.Duration) error {
	return grantWait(&rw.l, &rw.q, h, false, timeout, rw)
}

// TryLock locks rw for writing if it is free, and reports whether it did.
func (rw *RWMutex) TryLock() bool {
	if rw.writer || rw.readers > 0 || !rw.q.empty() {
		return false
	}
	rw.writer = true
	return true
}

// TryRLock locks rw for reading if no writer holds or waits for it.
func (rw *RWMutex) TryRLock() bool {
	if rw.writer || !rw.q.empty() {
		return false
	}
	rw.readers++
	return true
}

// Unlock ends a write lock. It panics if rw is not locked for writing.
func (rw *RWMutex) Unlock() {
	if !rw.writer {
		panic("cosync: Unlock of RWMutex not locked for writing")
	}
	rw.writer = false
	rw.grant()
}

// RUnlock ends one read lock. It panics if rw is not locked for reading.
func (rw *RWMutex) RUnlock() {
	if rw.readers <= 0 {
		panic("cosync: RUnlock of RWMutex not locked for reading")
	}
	rw.readers--
	if rw.readers == 0 {
		rw.grant()
	}
}

// grant hands rw to the head of the queue: one writer if rw is free, or
// every reader before the first writer if no writer holds it.
func (rw *RWMutex) grant() {
	for {
		r := rw.q.first()
		if r == nil || rw.writer {
			return
		}
		if r.val {
			if rw.readers == 0 {
				rw.q.unlink(r)
				rw.writer = true
				r.complete(stDone)
			}
			return
		}
		rw.q.unlink(r)
		rw.readers++
		r.complete(stDone)
	}
}

// A WaitGroup waits for a collection of coroutines (or anything on the
// loop) to finish: Add and Done count, Wait suspends until the count is
// zero. The zero value has a count of zero.
type WaitGroup struct {
	l *loop.Loop
	n int
	q waitq[struct{}]
}

// Add adds delta to the count; at zero, every waiter wakes. A negative
// count panics.
func (wg *WaitGroup) Add(delta int) {
	wg.n += delta
	if wg.n < 0 {
		panic("cosync: negative WaitGroup counter")
	}
	if wg.n == 0 {
		for r := wg.q.popAlive(); r != nil; r = wg.q.popAlive() {
			r.complete(stDone)
		}
	}
}

// Done decrements the count by one.
func (wg *WaitGroup) Done() { wg.Add(-1) }

// Count returns the count.
func (wg *WaitGroup) Count() int { return wg.n }

// Wait waits until the count is zero.
func (wg *WaitGroup) Wait(h Handle) error { return wg.WaitTimeout(h, Forever) }

// WaitTimeout is Wait giving up with [ErrTimeout] after timeout.
func (wg *WaitGroup) WaitTimeout(h Handle, timeout time.Duration) error {
	return grantWait(&wg.l, &wg.q, h, struct{}{}, timeout, wg)
}

func (wg *WaitGroup) tryGrant(struct{}) bool { return wg.n == 0 }
func (wg *WaitGroup) regrant()               {}

// A Semaphore is a weighted semaphore for coroutines of one loop: Acquire
// takes weight, waiting in FIFO order until enough is free (a large
// request at the head holds back smaller ones behind it, as in
// golang.org/x/sync/semaphore), Release gives it back.
type Semaphore struct {
	l         *loop.Loop
	size, cur int64
	q         waitq[int64]
}

// NewSemaphore returns a semaphore of total weight size.
func NewSemaphore(size int64) *Semaphore {
	if size < 0 {
		panic("cosync: NewSemaphore with a negative size")
	}
	return &Semaphore{size: size}
}

// Acquire takes n, waiting until it is free. It panics if n exceeds the
// semaphore's size, which could never be granted.
func (s *Semaphore) Acquire(h Handle, n int64) error { return s.AcquireTimeout(h, n, Forever) }

// AcquireTimeout is Acquire giving up with [ErrTimeout] after timeout.
func (s *Semaphore) AcquireTimeout(h Handle, n int64, timeout time.Duration) error {
	if n > s.size || n < 0 {
		panic("cosync: Acquire of a weight out of the semaphore's range")
	}
	return grantWait(&s.l, &s.q, h, n, timeout, s)
}

func (s *Semaphore) tryGrant(n int64) bool { return s.TryAcquire(n) }
func (s *Semaphore) regrant()              { s.grant() }

// TryAcquire takes n if it is free and nobody waits, and reports whether
// it did.
func (s *Semaphore) TryAcquire(n int64) bool {
	if s.size-s.cur < n || !s.q.empty() {
		return false
	}
	s.cur += n
	return true
}

// Release gives back n, granting waiters in order while they fit. It
// panics if more is released than is held.
func (s *Semaphore) Release(n int64) {
	s.cur -= n
	if s.cur < 0 || n < 0 {
		panic("cosync: Release of more than the semaphore holds")
	}
	s.grant()
}

func (s *Semaphore) grant() {
	for r := s.q.first(); r != nil && s.size-s.cur >= r.val; r = s.q.first() {
		s.q.unlink(r)
		s.cur += r.val
		r.complete(stDone)
	}
}

// Once runs one initialization that may suspend, for every coroutine that
// needs it: the first caller of Begin gets true, runs the initialization
// and calls End; the others wait in Begin until End, then get false.
//
//	if first, err := once.Begin(co); first {
//		conn, connErr = dial(co)
//		once.End()
//	} else if err != nil {
//		return err // canceled while waiting
//	}
type Once struct {
	l     *loop.Loop
	state uint8 // 0: not begun, 1: running, 2: done
	q     waitq[struct{}]
}

// Begin reports whether the caller is the first and must run the
// initialization; otherwise it waits until the initialization ends. err is
// [ErrCanceled] or [ErrClosed] if the wait ends first.
func (o *Once) Begin(h Handle) (first bool, err error) {
	r := h.Resumed()
	w := h.Waiter()
	if place(&o.l, w) {
		res := crossLoop(h, r, o.l, func(g Handle) recvResult[bool] {
			first, err := o.Begin(g)
			return recvResult[bool]{v: first, err: err}
		}, func(err error) recvResult[bool] { return recvResult[bool]{err: err} })
		return res.v, res.err
	}
	if r != loop.NotWoken {
		if rec := o.q.pending(h.OpSlot()); rec != nil {
			return false, grantEnd(&o.q, rec, r, o)
		}
		return false, failure(r)
	}
	switch o.state {
	case 0:
		o.state = 1
		return true, nil
	case 2:
		return false, nil
	}
	rec := o.q.wait(h.OpSlot(), w, struct{}{}, Forever)
	r, again := h.Suspend()
	if !again {
		return false, nil
	}
	return false, grantEnd(&o.q, rec, r, o)
}

func (o *Once) tryGrant(struct{}) bool { return o.state == 2 }
func (o *Once) regrant()               {}

// End ends the initialization and wakes the coroutines waiting in Begin.
// It panics unless Begin returned true and End was not called yet.
func (o *Once) End() {
	if o.state != 1 {
		panic("cosync: Once.End without a Begin that returned true")
	}
	o.state = 2
	for r := o.q.popAlive(); r != nil; r = o.q.popAlive() {
		r.complete(stDone)
	}
}

// Done reports whether the initialization has ended.
func (o *Once) Done() bool { return o.state == 2 }
