//go:build race

package loop

import (
	"runtime"
	"unsafe"
)

// raceWritten and raceRead tell the race detector what a raw system call
// did to a buffer, as x/sys/unix's Read and Write do for theirs.
func raceWritten(p []byte) {
	if len(p) > 0 {
		runtime.RaceWriteRange(unsafe.Pointer(&p[0]), len(p))
	}
}

func raceRead(p []byte) {
	if len(p) > 0 {
		runtime.RaceReadRange(unsafe.Pointer(&p[0]), len(p))
	}
}
