//go:build unix && !linux

package loop

import "golang.org/x/sys/unix"

// sockType is getsockopt(fd, SOL_SOCKET, SO_TYPE); raw_linux.go has the
// raw form.
func sockType(fd int) (int, error) { return unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE) }
