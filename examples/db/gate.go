package db

import "github.com/cogen-go/cogen/runtime/stackful"

// A Gate admits at most n coroutines of one env at a time, the others
// waiting on the env's loop in arrival order: put it around every call of
// a driver whose pool waits in Go's scheduler when exhausted, with n the
// pool's size, and the pool never waits.
type Gate struct {
	free int
	c    stackful.Cond
}

// NewGate returns a gate admitting n coroutines at a time.
func NewGate(n int) *Gate {
	if n < 1 {
		panic("db: NewGate with n < 1")
	}
	return &Gate{free: n}
}

// Enter waits on co's loop until the gate admits co.
func (g *Gate) Enter(co *stackful.Co) {
	for g.free == 0 {
		co.Wait(&g.c, -1)
	}
	g.free--
}

// Leave lets the next waiting coroutine in.
func (g *Gate) Leave() {
	g.free++
	g.c.Signal()
}
