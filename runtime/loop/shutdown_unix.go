//go:build unix

package loop

import (
	"os"

	"golang.org/x/sys/unix"
)

// ShutdownWrite is shutdown(fd, SHUT_WR) once every byte written to fd
// through the loop is on its way: at once for an fd in readiness mode,
// whose writes are in the kernel already, and, for one in completion mode
// (see RegisterCompletion) with a send in flight, when the last send
// completes. The peer then reads everything written, then the end of the
// stream. Call it on the loop goroutine.
func (l *Loop) ShutdownWrite(fd int) error {
	if f := l.Lookup(fd); f != nil && f.cx != nil && f.cx.has(cfSending) {
		f.cx.set(cfShutWR)
		return nil
	}
	if err := unix.Shutdown(fd, unix.SHUT_WR); err != nil {
		return os.NewSyscallError("shutdown", err)
	}
	return nil
}
