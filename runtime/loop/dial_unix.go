//go:build linux || darwin || freebsd

package loop

import (
	"net/netip"

	"golang.org/x/sys/unix"
)

// TCPSocket returns a new non-blocking, close-on-exec TCP socket for ap's
// family with TCP_NODELAY set, and ap as the address to connect it to: the
// first half of a dial by a coroutine or task (the handle's Connect is the
// second).
func TCPSocket(ap netip.AddrPort) (int, Sockaddr, error) {
	var sa Sockaddr = &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	family := unix.AF_INET
	if !ap.Addr().Is4() {
		family = unix.AF_INET6
		sa = &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
	}
	fd, err := Socket(family, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, nil, err
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	return fd, sa, nil
}
