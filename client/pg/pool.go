package pg

import (
	"fmt"

	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// A Pool hands out up to Size conns to the coroutines (or tasks) of one
// loop. A coroutine that finds every conn in use waits in Acquire through
// its handle (a cosync.Semaphore of the pool's size): it suspends, and the
// env goes on running the coroutines that hold the conns. This is what a
// stock driver's pool cannot do on coroutines: its wait for a free conn
// blocks in Go's scheduler and freezes the env (see client/gate).
//
// Conns are dialled on demand and kept; each new conn prepares the pool's
// statements in one round trip. A conn released broken is closed, and the
// next Acquire dials a new one, so a restarted server or a dropped
// connection costs the calls that were using it, not the pool.
type Pool struct {
	cfg    Config
	size   int
	defs   []StmtDef
	sem    *cosync.Semaphore
	idle   []*Conn
	dials  int
	closed bool
}

// NewPool returns a pool of at most size conns to cfg, each with stmts
// prepared.
func NewPool(cfg Config, size int, stmts ...StmtDef) *Pool {
	if size <= 0 {
		panic(fmt.Sprintf("pg: NewPool: size %d", size))
	}
	return &Pool{cfg: cfg, size: size, defs: stmts, sem: cosync.NewSemaphore(int64(size))}
}

// Size returns the pool's size.
func (p *Pool) Size() int { return p.size }

// Idle returns the number of conns kept for reuse.
func (p *Pool) Idle() int { return len(p.idle) }

// Dials returns the number of conns the pool has dialled.
func (p *Pool) Dials() int { return p.dials }

// Acquire returns a conn for the caller's use until Release, waiting
// (suspending the caller) while all are in use, and dialling one when
// none is idle.
//
//co:stackless
func (p *Pool) Acquire(co *stackful.Co) (*Conn, error) {
	if err := p.sem.Acquire(co, 1); err != nil {
		return nil, fmt.Errorf("pg: pool: %w", err)
	}
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		return c, nil
	}
	p.dials++
	c, err := Connect(co, p.cfg)
	if err != nil {
		p.sem.Release(1)
		return nil, err
	}
	if err := c.PrepareAll(co, p.defs); err != nil {
		c.Close(co)
		p.sem.Release(1)
		return nil, err
	}
	return c, nil
}

// Release gives a conn back. A broken conn, or one with results not read,
// is closed instead of kept.
//
//co:stackless
func (p *Pool) Release(co *stackful.Co, c *Conn) {
	if p.closed || c.Err() != nil || !c.Idle() || c.TxStatus() != 'I' {
		c.Close(co)
	} else {
		p.idle = append(p.idle, c)
	}
	p.sem.Release(1)
}

// Close closes the idle conns; conns in use are closed when released.
// Acquire still works after Close (it dials): Close is for the end of the
// pool's use.
//
//co:stackless
func (p *Pool) Close(co *stackful.Co) {
	p.closed = true
	for _, c := range p.idle {
		c.Close(co)
	}
	clear(p.idle)
	p.idle = p.idle[:0]
}
