//go:build !amd64 && !arm64

package stackful

import "runtime"

// goroutineID returns the calling goroutine's id, parsed from the first line
// of its stack trace ("goroutine 42 [running]:"); ids are unique for the
// life of the process. This costs about a microsecond; amd64 and arm64 read
// the goroutine's descriptor address instead (goid_asm.go).
func goroutineID() uintptr {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) <= len(prefix) {
		panic("stackful: cannot read the goroutine id")
	}
	var id uintptr
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uintptr(c-'0')
	}
	if id == 0 {
		panic("stackful: cannot read the goroutine id")
	}
	return id
}

// checkGoroutine disables Yield's goroutine check here: parsing a stack
// trace on every Yield would cost a microsecond. A Yield from a foreign
// goroutine is still a data race that the race detector reports.
const checkGoroutine = false

func getg() uintptr { return 0 }
