//go:build amd64 || arm64

package stackful

// getg returns the address of the calling goroutine's runtime descriptor
// as an opaque number (see self.go).
func getg() uintptr

func goroutineID() uintptr { return getg() }

// checkGoroutine enables Yield's check that it runs on the coroutine's own
// goroutine: reading the identity costs about a nanosecond here.
const checkGoroutine = true
