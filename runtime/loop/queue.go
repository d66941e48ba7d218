package loop

// readyQueue is a growable FIFO ring of waiters: libco's active list without
// the per-node allocation. Push and pop are a few instructions and allocate
// only when the ring doubles.
//
// Beside the ring is the run-next slot (Go's runnext): a waiter woken by a
// direct hand-off ([Waiter.WakeNext]) runs right after the runner that woke
// it, ahead of the ring. Invariants: the slot holds at most one waiter; it
// is taken only while fewer than maxRunNext run-next runs have followed
// one another since the last run from the ring (streak), so a chain of
// hand-offs yields to the ring after maxRunNext runs; a waiter in the slot
// is in state queued, or was disarmed there and is skipped like a disarmed
// waiter in the ring.
type readyQueue struct {
	buf  []*Waiter // len is a power of two
	head uint      // index of the first element, unmasked
	tail uint      // index one past the last element, unmasked

	next   *Waiter // the run-next slot, or nil
	streak int     // run-next runs since the last run from the ring
}

// maxRunNext bounds a chain of direct hand-offs: after that many run-next
// runs in a row, a hand-off queues its waiter at the back of the ring like
// any wake-up, and the chain goes on only after the waiters queued before
// it have run. Go bounds its runnext by the time slice it inherits (10 ms);
// a count keeps the bound independent of the clock: 64 hand-offs of a
// stackless pair are a few microseconds.
const maxRunNext = 64

// tryNext puts w in the run-next slot if the slot is free and the chain of
// run-next runs is under its bound, and reports whether it did.
func (q *readyQueue) tryNext(w *Waiter) bool {
	if q.next != nil || q.streak >= maxRunNext {
		return false
	}
	q.next = w
	return true
}

// takeNext empties the run-next slot and returns what it held, counting a
// run-next run; nil if it was empty.
func (q *readyQueue) takeNext() *Waiter {
	w := q.next
	if w != nil {
		q.next = nil
		q.streak++
	}
	return w
}

// waiting is the number of waiters queued: the ring's and the slot's.
func (q *readyQueue) waiting() int {
	n := q.len()
	if q.next != nil {
		n++
	}
	return n
}

func (q *readyQueue) len() int { return int(q.tail - q.head) }

// tryPush appends w unless the ring is full. It is small enough to be
// inlined into the wake-up paths; push is the general case.
func (q *readyQueue) tryPush(w *Waiter) bool {
	n := uint(len(q.buf))
	if q.tail-q.head >= n {
		return false
	}
	q.buf[q.tail&(n-1)] = w
	q.tail++
	return true
}

func (q *readyQueue) push(w *Waiter) {
	if q.tail-q.head == uint(len(q.buf)) {
		q.grow()
	}
	q.buf[q.tail&uint(len(q.buf)-1)] = w
	q.tail++
}

func (q *readyQueue) pop() *Waiter {
	if q.head == q.tail {
		return nil
	}
	i := q.head & uint(len(q.buf)-1)
	w := q.buf[i]
	q.buf[i] = nil
	q.head++
	return w
}

func (q *readyQueue) grow() {
	n := 2 * len(q.buf)
	if n == 0 {
		n = 64
	}
	buf := make([]*Waiter, n)
	for i := q.head; i != q.tail; i++ {
		buf[i-q.head] = q.buf[i&uint(len(q.buf)-1)]
	}
	q.tail -= q.head
	q.head = 0
	q.buf = buf
}
