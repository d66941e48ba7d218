//go:build linux || darwin || freebsd

package loop

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// ListenTCP returns a non-blocking, close-on-exec TCP socket listening on
// address ("host:port"; an empty host is every IPv4 address, or every IPv6
// one for tcp6; port 0 picks a free port) for the loop's TryAccept, and the
// address it is bound to: the listener of raw-fd servers in both models
// (a stackless task's or a stackful coroutine's Accept). network is tcp,
// tcp4 or tcp6. With reusePort, SO_REUSEPORT is set before binding, so that
// one listener per loop of a [Group] can listen on the same port (bind the
// first to port 0, the others to the port it got); the kernel spreads the
// incoming connections among them. The backlog is the system's maximum.
func ListenTCP(network, address string, reusePort bool) (fd int, addr *net.TCPAddr, err error) {
	ap, err := resolveTCP(network, address)
	if err != nil {
		return -1, nil, &net.OpError{Op: "listen", Net: network, Err: err}
	}
	family, sa := unix.AF_INET, unix.Sockaddr(&unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()})
	if ap.Addr().Is6() {
		family, sa = unix.AF_INET6, &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
	}
	fd, err = Socket(family, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, nil, &net.OpError{Op: "listen", Net: network, Err: os.NewSyscallError("socket", err)}
	}
	fail := func(call string, err error) (int, *net.TCPAddr, error) {
		unix.Close(fd)
		return -1, nil, &net.OpError{Op: "listen", Net: network, Addr: net.TCPAddrFromAddrPort(ap), Err: os.NewSyscallError(call, err)}
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return fail("setsockopt", err)
	}
	if reusePort {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1); err != nil {
			return fail("setsockopt", err)
		}
	}
	if err := unix.Bind(fd, sa); err != nil {
		return fail("bind", err)
	}
	if err := unix.Listen(fd, somaxconn()); err != nil {
		return fail("listen", err)
	}
	bound, err := unix.Getsockname(fd)
	if err != nil {
		return fail("getsockname", err)
	}
	switch b := bound.(type) {
	case *unix.SockaddrInet4:
		addr = &net.TCPAddr{IP: net.IP(b.Addr[:]).To16(), Port: b.Port}
	case *unix.SockaddrInet6:
		addr = &net.TCPAddr{IP: net.IP(b.Addr[:]), Port: b.Port}
	}
	return fd, addr, nil
}

// resolveTCP turns a listen address into an IP and port of network's family.
func resolveTCP(network, address string) (netip.AddrPort, error) {
	if network != "tcp" && network != "tcp4" && network != "tcp6" {
		return netip.AddrPort{}, net.UnknownNetworkError(network)
	}
	host, service, err := net.SplitHostPort(address)
	if err != nil {
		return netip.AddrPort{}, err
	}
	port, err := strconv.ParseUint(service, 10, 16)
	if err != nil {
		p, lerr := net.DefaultResolver.LookupPort(context.Background(), network, service)
		if lerr != nil {
			return netip.AddrPort{}, lerr
		}
		port = uint64(p)
	}
	var ip netip.Addr
	switch {
	case host == "" && network == "tcp6":
		ip = netip.IPv6Unspecified()
	case host == "":
		ip = netip.IPv4Unspecified()
	default:
		if ip, err = netip.ParseAddr(host); err != nil {
			ips, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip", host)
			if err != nil {
				return netip.AddrPort{}, err
			}
			ip = ips[0]
			for _, x := range ips {
				if x.Unmap().Is4() == (network != "tcp6") {
					ip = x
					break
				}
			}
		}
	}
	ip = ip.Unmap()
	if (network == "tcp4" && !ip.Is4()) || (network == "tcp6" && !ip.Is6()) {
		return netip.AddrPort{}, &net.AddrError{Err: "no suitable address found", Addr: address}
	}
	return netip.AddrPortFrom(ip, uint16(port)), nil
}

// somaxconn is the system's maximum listen backlog.
func somaxconn() int {
	b, err := os.ReadFile("/proc/sys/net/core/somaxconn")
	if err == nil {
		var n int
		if _, err := fmt.Sscan(string(b), &n); err == nil && n > 0 {
			return min(n, 1<<16-1)
		}
	}
	return unix.SOMAXCONN
}

// ListenTCPEach opens one SO_REUSEPORT listener per loop of g on address,
// all on the port the first one is bound to (so port 0 picks one free port
// for the whole group): the listeners of a group's servers, lfds[i] for
// loop i. On failure it closes what it opened.
func (g *Group) ListenTCPEach(network, address string) (lfds []int, addr *net.TCPAddr, err error) {
	lfds = make([]int, 0, g.Len())
	for range g.Len() {
		fd, a, err := ListenTCP(network, address, true)
		if err != nil {
			for _, fd := range lfds {
				unix.Close(fd)
			}
			return nil, nil, err
		}
		if addr == nil {
			addr, address = a, a.String()
		}
		lfds = append(lfds, fd)
	}
	return lfds, addr, nil
}
