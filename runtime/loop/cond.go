package loop

import "time"

// A Cond is a FIFO of waiters woken by Signal and Broadcast: libco's
// co_cond. A woken waiter joins the ready queue and runs on a later step of
// the loop, never inline in the signaller. The zero value is ready to use.
type Cond struct {
	head, tail *Waiter
	n          int
}

// Wait arms w on c, with Timeout after timeout (negative: none; zero: w
// wakes with Timeout at once, never joining c).
func (c *Cond) Wait(w *Waiter, timeout time.Duration) {
	if !w.arm(timeout) {
		return
	}
	if timeout == 0 {
		w.wake(Timeout, 0)
		return
	}
	w.cond = c
	w.cprev, w.cnext = c.tail, nil
	if c.tail == nil {
		c.head = w
	} else {
		c.tail.cnext = w
	}
	c.tail = w
	c.n++
}

// Signal wakes the longest-waiting waiter with Signaled; it reports whether
// there was one.
func (c *Cond) Signal() bool {
	w := c.head
	if w == nil {
		return false
	}
	w.wake(Signaled, 0)
	return true
}

// Broadcast wakes every waiter, in arrival order, and returns how many.
func (c *Cond) Broadcast() int {
	n := 0
	for c.head != nil {
		c.head.wake(Signaled, 0)
		n++
	}
	return n
}

// Len returns the number of waiters.
func (c *Cond) Len() int { return c.n }

func (c *Cond) unlink(w *Waiter) {
	if w.cprev == nil {
		c.head = w.cnext
	} else {
		w.cprev.cnext = w.cnext
	}
	if w.cnext == nil {
		c.tail = w.cprev
	} else {
		w.cnext.cprev = w.cprev
	}
	w.cprev, w.cnext, w.cond = nil, nil, nil
	c.n--
}
