//go:build !race

package stackful

import (
	"sync/atomic"
	"unsafe"
)

// The switch path writes the env's current coroutine and Resume count with
// plain stores: the watchdog (stall.go) reads them with atomic loads, a
// race on single words that it tolerates (a stale value only delays a
// report by one sample). Under the race detector (current_race.go) the
// switch path also publishes both with atomic operations, in fields the
// watchdog reads instead, so that the detector sees no race.

// noteResume follows the store of co into e.current by Resume.
func (e *Env) noteResume(co *Co) { e.switches++ }

// noteCurrent follows any other store into e.current.
func (e *Env) noteCurrent(co *Co) {}

func (e *Env) loadCurrent() *Co {
	return (*Co)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(&e.current))))
}

func (e *Env) loadSwitches() uint64 { return atomic.LoadUint64(&e.switches) }
