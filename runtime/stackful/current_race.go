//go:build race

package stackful

import (
	"sync/atomic"
	"unsafe"
)

// Atomic stores for the race detector; see current_norace.go.

func (e *Env) setCurrent(co *Co) {
	atomic.StorePointer((*unsafe.Pointer)(unsafe.Pointer(&e.current)), unsafe.Pointer(co))
}

func (e *Env) countSwitch() { atomic.AddUint64(&e.switches, 1) }

func (e *Env) loadCurrent() *Co {
	return (*Co)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(&e.current))))
}

func (e *Env) loadSwitches() uint64 { return atomic.LoadUint64(&e.switches) }
