//go:build linux || darwin || freebsd

package resp

import (
	"net/netip"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

// socketFor returns a new non-blocking TCP socket with TCP_NODELAY for ap's
// family, and ap as the address to connect it to.
func socketFor(ap netip.AddrPort) (int, loop.Sockaddr, error) {
	var sa loop.Sockaddr = &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	family := unix.AF_INET
	if !ap.Addr().Is4() {
		family = unix.AF_INET6
		sa = &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
	}
	fd, err := loop.Socket(family, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, nil, err
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	return fd, sa, nil
}
