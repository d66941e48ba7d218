//go:build cogen_coroswitch && race

package stackful

import (
	"runtime"
	"unsafe"
)

// The raw switch's edges for the race detector, as iter.Pull makes them:
// what one side did before a switch happens before what the other does
// after it.

func raceRelease(s *coSwitch) { runtime.RaceRelease(unsafe.Pointer(s)) }

func raceAcquire(s *coSwitch) { runtime.RaceAcquire(unsafe.Pointer(s)) }
