package chans

import (
	"time"

	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

type box struct {
	ch *cosync.Chan[string]
}

// take is a waiting operation built by the user on the handle protocol: a
// call passing the handle to a cosync.Handle parameter suspends.
func take(h cosync.Handle, c *cosync.Chan[int]) (int, bool) {
	return c.Recv(h)
}

// Run covers the operations of cosync.Chan as suspension points: blocking
// sends and receives on a buffered and an unbuffered channel fed and
// drained by timers, a receiver evaluated once, a user-built operation,
// close, and timeouts.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	c := cosync.NewChan[int](2)
	for i := 0; i < 4; i++ {
		if c.TrySend(i) {
			t.Printf("buffered %d", i)
			continue
		}
		t.Loop.AfterFunc(time.Duration(1+t.Rand.Intn(2))*time.Millisecond, func() {
			v, ok, ready := c.TryRecv()
			t.Printf("timer took %d %v %v", v, ok, ready)
		})
		if err := c.Send(co, i*10); err != nil {
			t.Printf("send: %v", err)
		}
		t.Printf("sent %d after a wait", i*10)
	}
	var b box
	b.ch = cosync.NewChan[string](0)
	t.Loop.AfterFunc(time.Millisecond, func() { b.ch.TrySend("hello") })
	s, ok := b.ch.Recv(co)
	t.Printf("recv %q %v", s, ok)

	calls := 0
	get := func() *cosync.Chan[int] { calls++; return c }
	v, ok := get().Recv(co)
	t.Printf("recv %d %v, receiver evaluated %d times", v, ok, calls)
	v, ok = take(co, c)
	t.Printf("take %d %v", v, ok)
	c.Close()
	for {
		v, ok := c.Recv(co)
		if !ok {
			break
		}
		t.Printf("drained %d", v)
	}
	_, ok, err := c.RecvTimeout(co, 5*time.Millisecond)
	t.Printf("closed: ok=%v err=%v", ok, err)
	d := cosync.NewChan[int](0)
	_, _, err = d.RecvTimeout(co, time.Millisecond)
	t.Printf("empty: err=%v", err)
	err = d.SendTimeout(co, 1, 0)
	t.Printf("no receiver: err=%v", err)
	selects(co, t)
}

// selects covers cosync.Select as a suspension point whose cases are
// evaluated once, and a Mutex held across a suspension.
//
//co:stackless
func selects(co *stackful.Co, t *trace.T) {
	a, b := cosync.NewChan[int](0), cosync.NewChan[int](1)
	var mu cosync.Mutex
	for i := 0; i < 3; i++ {
		if t.Rand.Intn(2) == 0 {
			t.Loop.AfterFunc(time.Millisecond, func() { a.TrySend(i) })
		}
		var v int
		var ok bool
		switch cosync.Select(co, a.RecvCase(&v, &ok), b.SendCase(i), cosync.After(5*time.Millisecond)) {
		case 0:
			t.Printf("select %d: received %d %v", i, v, ok)
		case 1:
			w, _, _ := b.TryRecv()
			t.Printf("select %d: sent %d", i, w)
		case 2:
			t.Printf("select %d: timed out", i)
		}
		b.TrySend(-1) // b full: the next send case blocks
	}
	mu.Lock(co)
	t.Loop.AfterFunc(time.Millisecond, mu.Unlock)
	err := mu.LockTimeout(co, time.Second)
	t.Printf("locked again: %v", err)
}
