//go:build unix

package loop

import "golang.org/x/sys/unix"

// Sockaddr is a socket address as the system calls take it.
type Sockaddr = unix.Sockaddr

func closeDescriptor(fd int) error { return unix.Close(fd) }

// isStream reports whether fd is a byte stream, where a short read means the
// kernel's buffer is empty: a SOCK_STREAM socket, a pipe or a FIFO. It costs
// one or two system calls, paid once per registration.
func isStream(fd int) bool {
	typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	if err == nil {
		return typ == unix.SOCK_STREAM
	}
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO
}
