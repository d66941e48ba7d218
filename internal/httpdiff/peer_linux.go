package httpdiff

import (
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// waitPeerGone waits, without reading, until the server has ended the
// connection c (its FIN or RST has arrived: POLLRDHUP, POLLHUP or
// POLLERR), for at most limit, and reports whether it did. Reading would
// let a server that is merely slow go on writing.
func waitPeerGone(c net.Conn, limit time.Duration) bool {
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		return false
	}
	gone := false
	deadline := time.Now().Add(limit)
	rc.Control(func(fd uintptr) {
		for !gone && time.Now().Before(deadline) {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
			n, err := unix.Poll(fds, int(time.Until(deadline)/time.Millisecond)+1)
			if err == unix.EINTR {
				continue
			}
			gone = err == nil && n > 0 && fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0
			if err != nil || n == 0 {
				return
			}
		}
	})
	return gone
}
