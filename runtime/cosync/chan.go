package cosync

import (
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
)

// A Chan is a channel between coroutines of one loop, in either model: Go's
// channel semantics with a coroutine's suspension instead of a goroutine's.
// Senders and receivers that block wait in FIFO order; a send to a blocked
// receiver hands the value over directly; a receive from a closed channel
// drains the buffer and then returns the zero value and false; a send on a
// closed channel panics; Close wakes every waiter. A nil *Chan blocks
// forever, as a nil Go channel does, and closing it panics.
//
// A Chan binds to the loop of the first coroutine that sends or receives on
// it with a handle (or the loop given to [NewChanOn]); all of its methods
// must then be called on that loop's goroutine. Goroutines outside the loop
// use the bridge (see the package documentation).
type Chan[T any] struct {
	l      *loop.Loop
	buf    []T // ring of cap(buf) slots; cap 0 is unbuffered
	head   int
	n      int
	closed bool
	sendq  waitq[T] // blocked senders, with the values they send
	recvq  waitq[T] // blocked receivers
}

// NewChan returns a channel with a buffer of size (0: unbuffered). It binds
// to the loop of its first coroutine user.
func NewChan[T any](size int) *Chan[T] {
	if size < 0 {
		panic("cosync: NewChan with a negative size")
	}
	return &Chan[T]{buf: make([]T, size)}
}

// NewChanOn returns a channel with a buffer of size bound to l.
func NewChanOn[T any](l *loop.Loop, size int) *Chan[T] {
	c := NewChan[T](size)
	c.l = l
	return c
}

// Len returns the number of values in the buffer.
func (c *Chan[T]) Len() int {
	if c == nil {
		return 0
	}
	return c.n
}

// Cap returns the size of the buffer.
func (c *Chan[T]) Cap() int {
	if c == nil {
		return 0
	}
	return len(c.buf)
}

// Send sends v, waiting until a receiver takes it or the buffer has room.
// It panics if the channel is closed, before or while it waits. It returns
// nil once v is sent, [ErrCanceled] if the stackless task is canceled first
// and [ErrClosed] if the loop closes first; v is then not sent.
func (c *Chan[T]) Send(h Handle, v T) error { return c.send(h, v, Forever) }

// SendTimeout is Send giving up with [ErrTimeout] after timeout (negative:
// never; 0: only if it can send at once).
func (c *Chan[T]) SendTimeout(h Handle, v T, timeout time.Duration) error {
	return c.send(h, v, timeout)
}

// TrySend sends v if a receiver waits or the buffer has room, and reports
// whether it did. It panics if the channel is closed.
func (c *Chan[T]) TrySend(v T) bool {
	if c == nil {
		return false
	}
	return c.trySend(v)
}

// Recv receives a value, waiting until one is sent. It returns the value and
// true, or the zero value and false once the channel is closed and drained;
// also when the stackless task is canceled or the loop closes (RecvTimeout
// tells these apart).
func (c *Chan[T]) Recv(h Handle) (T, bool) {
	v, ok, _ := c.recv(h, Forever)
	return v, ok
}

// RecvTimeout is Recv giving up after timeout (negative: never; 0: only if
// a value is there at once). err is nil when the receive completed (ok
// false: the channel is closed and drained), else [ErrTimeout],
// [ErrCanceled] or [ErrClosed].
func (c *Chan[T]) RecvTimeout(h Handle, timeout time.Duration) (v T, ok bool, err error) {
	return c.recv(h, timeout)
}

// TryRecv receives a value if one is there at once. ready reports whether
// the receive completed; ok is false if it did because the channel is
// closed and drained.
func (c *Chan[T]) TryRecv() (v T, ok, ready bool) {
	if c == nil {
		return v, false, false
	}
	v, ok, ready = c.tryRecv()
	return
}

// Close closes the channel: blocked receivers get the zero value and false,
// blocked senders panic, and later receives drain the buffer. Closing a
// closed or nil channel panics.
func (c *Chan[T]) Close() {
	if c == nil {
		panic("cosync: close of nil channel")
	}
	if c.closed {
		panic("cosync: close of closed channel")
	}
	c.closed = true
	c.recvq.closeAll()
	c.sendq.closeAll()
}

func (c *Chan[T]) trySend(v T) bool {
	if c.closed {
		panic("cosync: send on closed channel")
	}
	if c.recvq.head != nil { // inlined test: the call only when someone may wait
		if r := c.recvq.popAlive(); r != nil {
			r.val = v
			r.handOff()
			return true
		}
	}
	if c.n < len(c.buf) {
		i := c.head + c.n
		if i >= len(c.buf) {
			i -= len(c.buf)
		}
		c.buf[i] = v
		c.n++
		return true
	}
	return false
}

func (c *Chan[T]) tryRecv() (v T, ok, ready bool) {
	if c.n > 0 {
		v = c.buf[c.head]
		var zero T
		c.buf[c.head] = zero
		c.head++
		if c.head == len(c.buf) {
			c.head = 0
		}
		c.n--
		// A blocked sender's value takes the freed slot, in order.
		if c.sendq.head == nil {
			return v, true, true
		}
		if r := c.sendq.popAlive(); r != nil {
			i := c.head + c.n
			if i >= len(c.buf) {
				i -= len(c.buf)
			}
			c.buf[i] = r.val
			c.n++
			r.handOff()
		}
		return v, true, true
	}
	if c.sendq.head != nil {
		if r := c.sendq.popAlive(); r != nil {
			v = r.val
			r.handOff()
			return v, true, true
		}
	}
	if c.closed {
		return v, false, true
	}
	return v, false, false
}

func (c *Chan[T]) send(h Handle, v T, timeout time.Duration) error {
	r, w, slot := h.Begin()
	if c == nil {
		if r != loop.NotWoken {
			return failure(r)
		}
		return blockForever(h, timeout)
	}
	if r != loop.NotWoken {
		// The call made again after a hand-off: the record in the slot is
		// done. (A cross-loop operation keeps a goOp there, not a record.)
		if rec := c.sendq.done(slot); rec != nil {
			c.sendq.release(rec)
			return nil
		}
	}
	if place(&c.l, w) {
		return crossLoop(h, r, c.l, func(g Handle) error { return c.send(g, v, timeout) }, errResult)
	}
	if r != loop.NotWoken {
		return c.sendResumed(slot, r)
	}
	if c.trySend(v) {
		return nil
	}
	if timeout == 0 {
		return ErrTimeout
	}
	rec := c.sendq.wait(slotOf(h, slot), w, v, timeout)
	r, again := h.Suspend()
	if !again {
		return nil
	}
	return c.sendEnd(rec, r)
}

func (c *Chan[T]) sendResumed(slot *any, r loop.Reason) error {
	if rec := c.sendq.pending(slot); rec != nil {
		return c.sendEnd(rec, r)
	}
	return failure(r)
}

func (c *Chan[T]) sendEnd(rec *record[T], r loop.Reason) error {
	switch st, _ := c.sendq.finish(rec); st {
	case stDone:
		return nil
	case stClosed:
		panic("cosync: send on closed channel")
	}
	return failure(r)
}

func (c *Chan[T]) recv(h Handle, timeout time.Duration) (v T, ok bool, err error) {
	r, w, slot := h.Begin()
	if c == nil {
		if r != loop.NotWoken {
			return v, false, failure(r)
		}
		return v, false, blockForever(h, timeout)
	}
	if r != loop.NotWoken {
		// The call made again after a hand-off (see send).
		if rec := c.recvq.done(slot); rec != nil {
			v = rec.val
			c.recvq.release(rec)
			return v, true, nil
		}
	}
	if place(&c.l, w) {
		res := crossLoop(h, r, c.l, func(g Handle) recvResult[T] {
			v, ok, err := c.recv(g, timeout)
			return recvResult[T]{v, ok, err}
		}, func(err error) recvResult[T] { return recvResult[T]{err: err} })
		return res.v, res.ok, res.err
	}
	if r != loop.NotWoken {
		return c.recvResumed(slot, r)
	}
	// The call only when it can complete: the test is inlined.
	if c.n > 0 || c.sendq.head != nil || c.closed {
		if v, ok, ready := c.tryRecv(); ready {
			return v, ok, nil
		}
	}
	if timeout == 0 {
		return v, false, ErrTimeout
	}
	rec := c.recvq.wait(slotOf(h, slot), w, v, timeout)
	r, again := h.Suspend()
	if !again {
		return v, false, nil
	}
	return c.recvEnd(rec, r)
}

func (c *Chan[T]) recvResumed(slot *any, r loop.Reason) (v T, ok bool, err error) {
	if rec := c.recvq.pending(slot); rec != nil {
		return c.recvEnd(rec, r)
	}
	return v, false, failure(r)
}

func (c *Chan[T]) recvEnd(rec *record[T], r loop.Reason) (v T, ok bool, err error) {
	switch st, val := c.recvq.finish(rec); st {
	case stDone:
		return val, true, nil
	case stClosed:
		return v, false, nil
	}
	return v, false, failure(r)
}

// blockForever is an operation on a nil primitive: it waits until its
// timeout, a cancel or the loop's close, since nothing can complete it.
func blockForever(h Handle, timeout time.Duration) error {
	if timeout == 0 {
		return ErrTimeout
	}
	h.Waiter().Park(timeout)
	r, again := h.Suspend()
	if !again {
		return nil
	}
	return failure(r)
}
