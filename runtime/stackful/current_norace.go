//go:build !race

package stackful

import (
	"sync/atomic"
	"unsafe"
)

// The switch path writes the env's current coroutine and Resume count with
// plain stores: the watchdog (stall.go) reads them with atomic loads, a
// race on single words that it tolerates (a stale value only delays a
// report by one sample). The race-detector build uses atomic stores
// (current_race.go) so that the detector sees no race.

func (e *Env) setCurrent(co *Co) { e.current = co }

func (e *Env) countSwitch() { e.switches++ }

func (e *Env) loadCurrent() *Co {
	return (*Co)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(&e.current))))
}

func (e *Env) loadSwitches() uint64 { return atomic.LoadUint64(&e.switches) }
