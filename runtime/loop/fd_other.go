//go:build !unix

package loop

import "syscall"

// Sockaddr is a socket address as the system calls take it.
type Sockaddr = syscall.Sockaddr

// Descriptors are not ints here: no fd can be registered (the poller's add
// fails with ErrNotSupported), so these are never reached with one.

func closeDescriptor(fd int) error { return ErrNotSupported }

func isStream(fd int) bool { return false }
