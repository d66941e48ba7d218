//go:build unix

package loop

import "golang.org/x/sys/unix"

// Sockaddr is a socket address as the system calls take it.
type Sockaddr = unix.Sockaddr

func closeDescriptor(fd int) error { return unix.Close(fd) }

// isStream reports whether fd is a byte stream, where a short read means the
// kernel's buffer is empty: a SOCK_STREAM socket, a pipe or a FIFO. It costs
// one or two system calls, paid once per registration; the socket's type is
// read with a raw getsockopt where the platform allows (sockType), and the
// rarer FIFO test is out of line, so that Register stays shallow.
func isStream(fd int) bool {
	typ, err := sockType(fd)
	if err == nil {
		return typ == unix.SOCK_STREAM
	}
	return isFIFO(fd)
}

//go:noinline
func isFIFO(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO
}
