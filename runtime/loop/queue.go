package loop

// readyQueue is a growable FIFO ring of waiters: libco's active list without
// the per-node allocation. Push and pop are a few instructions and allocate
// only when the ring doubles.
type readyQueue struct {
	buf  []*Waiter // len is a power of two
	head uint      // index of the first element, unmasked
	tail uint      // index one past the last element, unmasked
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
