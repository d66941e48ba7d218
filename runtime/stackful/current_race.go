//go:build race

package stackful

import "sync/atomic"

// Atomic copies for the race detector; see current_norace.go.

func (e *Env) noteResume(co *Co) {
	atomic.AddUint64(&e.switches, 1)
	e.stall.current.Store(co)
}

func (e *Env) noteCurrent(co *Co) { e.stall.current.Store(co) }

func (e *Env) loadCurrent() *Co { return e.stall.current.Load() }

func (e *Env) loadSwitches() uint64 { return atomic.LoadUint64(&e.switches) }
