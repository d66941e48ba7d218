package cosync

import (
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// Record states.
//
//	free --push--> waiting --complete--> done   (a waker completed the operation, then woke the owner)
//	                       --closeAll--> closed (the channel closed under it, then woke the owner)
//	                       --popAlive--> dropped (a waker found it dead: owner woken otherwise, or gone)
//	                       --remove--> free     (the owner gave up: timeout, cancel, loop closed)
//	done, closed, dropped --release by the owner--> free
const (
	stFree uint8 = iota
	stWaiting
	stDone
	stClosed
	stDropped
)

// A record is one blocked operation on one queue: what the owner waits for
// (val: the value to send, the value received, a weight) and how to wake
// it. Records are pooled per queue, so a blocked operation allocates
// nothing in steady state; a record never points into a goroutine stack.
type record[T any] struct {
	prev, next *record[T]
	q          *waitq[T]
	w          *loop.Waiter
	slot       *any      // the owner's OpSlot
	sel        *selState // the select this record is a case of, or nil
	val        T
	idx        int // the case index in its select
	state      uint8
}

// alive reports whether the owner still waits for r: its waiter is armed
// and its slot holds r (or r's select). A record whose owner was woken by
// something else (a timeout, a cancel, another case of its select) or is
// gone (an unwound coroutine, an ended task) is dead.
func (r *record[T]) alive() bool {
	if !r.w.Armed() {
		return false
	}
	// Type assertions, not interface comparisons: a compare of the type
	// word and the pointer, without a call.
	if r.sel != nil {
		st, _ := (*r.slot).(*selState)
		return st == r.sel
	}
	p, _ := (*r.slot).(*record[T])
	return p == r
}

// complete ends a waiting record with state st and wakes its owner.
func (r *record[T]) complete(st uint8) {
	r.state = st
	if r.sel != nil {
		r.sel.fired = r.idx
	}
	r.w.Wake(loop.Signaled)
}

// handOff completes a waiting record with stDone, the transfer already
// made, and makes its owner run next on the loop (see the package
// documentation's "Hand-off").
func (r *record[T]) handOff() {
	r.state = stDone
	if r.sel != nil {
		r.sel.fired = r.idx
	}
	r.w.WakeNext(loop.Signaled)
}

// A waitq is a FIFO of blocked operations with a pool of free records.
type waitq[T any] struct {
	head, tail *record[T]
	free       *record[T]
}

// get takes a record from the pool and binds it to the owner whose waiter
// is w and whose operation slot is slot.
func (q *waitq[T]) get(slot *any, w *loop.Waiter) *record[T] {
	r := q.free
	if r != nil {
		q.free = r.next
		r.next = nil
	} else {
		r = &record[T]{q: q}
	}
	r.w = w
	r.slot = slot
	return r
}

// release puts r back in the pool; r must not be queued.
func (q *waitq[T]) release(r *record[T]) {
	var zero T
	r.val = zero
	r.w, r.slot, r.sel = nil, nil, nil
	r.state = stFree
	r.prev = nil
	r.next = q.free
	q.free = r
}

func (q *waitq[T]) enqueue(r *record[T]) {
	r.state = stWaiting
	r.prev, r.next = q.tail, nil
	if q.tail == nil {
		q.head = r
	} else {
		q.tail.next = r
	}
	q.tail = r
}

func (q *waitq[T]) unlink(r *record[T]) {
	if r.prev == nil {
		q.head = r.next
	} else {
		r.prev.next = r.next
	}
	if r.next == nil {
		q.tail = r.prev
	} else {
		r.next.prev = r.prev
	}
	r.prev, r.next = nil, nil
}

// first returns the longest-waiting live record without dequeuing it;
// dead records met on the way are dropped.
func (q *waitq[T]) first() *record[T] {
	for r := q.head; r != nil; r = q.head {
		if r.alive() {
			return r
		}
		q.unlink(r)
		q.drop(r)
	}
	return nil
}

// popAlive dequeues the longest-waiting live record.
func (q *waitq[T]) popAlive() *record[T] {
	r := q.first()
	if r != nil {
		q.unlink(r)
	}
	return r
}

// drop marks a dequeued dead record: its owner releases it if it comes
// back; an owner that is gone leaves it to the garbage collector.
func (q *waitq[T]) drop(r *record[T]) {
	r.state = stDropped
	if p, _ := (*r.slot).(*record[T]); r.sel == nil && p != r {
		// The owner moved on (an unwound coroutine, an ended task): no
		// one will release it.
		r.w, r.slot = nil, nil
	}
}

// empty reports whether no live record waits; dead ones are dropped.
func (q *waitq[T]) empty() bool { return q.first() == nil }

// wait queues a record for the operation of the owner of w and slot, arms
// w with timeout (negative: none) and makes the record the owner's pending
// operation.
func (q *waitq[T]) wait(slot *any, w *loop.Waiter, val T, timeout time.Duration) *record[T] {
	r := q.get(slot, w)
	r.val = val
	*r.slot = r
	q.enqueue(r)
	r.w.Park(timeout)
	return r
}

// pending returns the pending record in slot (nil: the owner has none) if
// it belongs to q, clearing the slot: the call made again after a
// stackless suspension finishes with it.
func (q *waitq[T]) pending(slot *any) *record[T] {
	if slot == nil {
		return nil
	}
	r, _ := (*slot).(*record[T])
	if r == nil || r.q != q {
		return nil
	}
	*slot = nil
	return r
}

// done is pending's fast path for the call made again after a hand-off:
// the record in slot, taken out of it, if it is q's and completed (stDone:
// off the queue, its transfer made); nil otherwise, the slot untouched.
// The caller releases the record once it has read its value.
func (q *waitq[T]) done(slot *any) *record[T] {
	if slot == nil {
		return nil
	}
	r, _ := (*slot).(*record[T])
	if r == nil || r.q != q || r.state != stDone {
		return nil
	}
	*slot = nil
	return r
}

// finish ends h's wait on r: r is taken off the queue if still on it, and
// released; the state and value it ended with are returned.
func (q *waitq[T]) finish(r *record[T]) (uint8, T) {
	if r.state == stWaiting {
		q.unlink(r)
	}
	if p, _ := (*r.slot).(*record[T]); p == r {
		*r.slot = nil
	}
	st, v := r.state, r.val
	q.release(r)
	return st, v
}

// closeAll completes every live record with stClosed and drops the dead.
func (q *waitq[T]) closeAll() {
	for r := q.popAlive(); r != nil; r = q.popAlive() {
		r.complete(stClosed)
	}
}
