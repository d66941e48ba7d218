//go:build linux || darwin || freebsd

package conet

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

// opError wraps an operation's error as package net does, mapping the
// loop's errors to net's: a passed deadline to os.ErrDeadlineExceeded, a
// closed conn or loop to net.ErrClosed.
func (fd *netFD) opError(op string, err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	e := &net.OpError{Op: op, Net: fd.net, Err: mapErr(err)}
	if fd.laddr != nil {
		e.Source = fd.laddr
	}
	if fd.raddr != nil {
		e.Addr = fd.raddr
	}
	return e
}

func mapErr(err error) error {
	switch {
	case errors.Is(err, loop.ErrTimeout), err == context.DeadlineExceeded:
		return os.ErrDeadlineExceeded
	case errors.Is(err, loop.ErrFDClosed), errors.Is(err, loop.ErrClosed):
		return net.ErrClosed
	}
	return err
}

// wrapSyscall names the system call that failed, as package net does.
func wrapSyscall(name string, err error) error {
	if en, ok := err.(unix.Errno); ok {
		return os.NewSyscallError(name, en)
	}
	return err
}

// A netKind is a parsed network name.
type netKind struct {
	name   string // as given: "tcp4", "unixgram"...
	base   string // "tcp", "udp" or "unix"
	family int    // AF_INET or AF_INET6 if the name fixes it, AF_UNIX, or 0
	sotype int
}

func parseNetwork(network string) (netKind, error) {
	k := netKind{name: network}
	switch network {
	case "tcp", "tcp4", "tcp6":
		k.base, k.sotype = "tcp", unix.SOCK_STREAM
	case "udp", "udp4", "udp6":
		k.base, k.sotype = "udp", unix.SOCK_DGRAM
	case "unix":
		k.base, k.sotype, k.family = "unix", unix.SOCK_STREAM, unix.AF_UNIX
	case "unixgram":
		k.base, k.sotype, k.family = "unix", unix.SOCK_DGRAM, unix.AF_UNIX
	case "unixpacket":
		k.base, k.sotype, k.family = "unix", unix.SOCK_SEQPACKET, unix.AF_UNIX
	default:
		return k, net.UnknownNetworkError(network)
	}
	switch network[len(network)-1] {
	case '4':
		k.family = unix.AF_INET
	case '6':
		k.family = unix.AF_INET6
	}
	return k, nil
}

// sockaddr converts an IP address and port to a socket address of family.
func sockaddr(family int, ip netip.Addr, port int) unix.Sockaddr {
	if family == unix.AF_INET {
		return &unix.SockaddrInet4{Port: port, Addr: ip.Unmap().As4()}
	}
	sa := &unix.SockaddrInet6{Port: port, Addr: ip.As16()}
	if z := ip.Zone(); z != "" {
		if ifi, err := net.InterfaceByName(z); err == nil {
			sa.ZoneId = uint32(ifi.Index)
		} else if n, err := strconv.Atoi(z); err == nil {
			sa.ZoneId = uint32(n)
		}
	}
	return sa
}

// familyOf picks the socket family for ip on network k.
func familyOf(k netKind, ip netip.Addr) int {
	if k.family != 0 {
		return k.family
	}
	if ip.Unmap().Is4() {
		return unix.AF_INET
	}
	return unix.AF_INET6
}

// netAddr converts a socket address to the net.Addr of network k.
func netAddr(k netKind, sa unix.Sockaddr) net.Addr {
	var ip netip.Addr
	var port int
	switch sa := sa.(type) {
	case *unix.SockaddrInet4:
		ip, port = netip.AddrFrom4(sa.Addr), sa.Port
	case *unix.SockaddrInet6:
		ip, port = netip.AddrFrom16(sa.Addr), sa.Port
		if sa.ZoneId != 0 {
			zone := strconv.Itoa(int(sa.ZoneId))
			if ifi, err := net.InterfaceByIndex(int(sa.ZoneId)); err == nil {
				zone = ifi.Name
			}
			ip = ip.WithZone(zone)
		}
	case *unix.SockaddrUnix:
		return &net.UnixAddr{Name: sa.Name, Net: k.name}
	default:
		return nil
	}
	ap := netip.AddrPortFrom(ip, uint16(port))
	if k.base == "udp" {
		return net.UDPAddrFromAddrPort(ap)
	}
	return net.TCPAddrFromAddrPort(ap)
}

// addrOf converts a net.Addr given by the caller (a local address to bind,
// a destination of WriteTo) to a socket address of family.
func addrOf(family int, a net.Addr) (unix.Sockaddr, error) {
	switch a := a.(type) {
	case *net.TCPAddr:
		return ipSockaddr(family, a.AddrPort())
	case *net.UDPAddr:
		return ipSockaddr(family, a.AddrPort())
	case *net.UnixAddr:
		return &unix.SockaddrUnix{Name: a.Name}, nil
	case nil:
		return nil, nil
	}
	return nil, &net.AddrError{Err: "unsupported address type", Addr: a.String()}
}

func ipSockaddr(family int, ap netip.AddrPort) (unix.Sockaddr, error) {
	ip := ap.Addr()
	if !ip.IsValid() {
		if family == unix.AF_INET6 {
			ip = netip.IPv6Unspecified()
		} else {
			ip = netip.IPv4Unspecified()
		}
	}
	if family == unix.AF_INET && !ip.Unmap().Is4() {
		return nil, &net.AddrError{Err: "non-IPv4 address", Addr: ip.String()}
	}
	return sockaddr(family, ip, int(ap.Port())), nil
}

// socket creates a non-blocking, close-on-exec socket.
func socket(family, sotype int) (int, error) {
	s, err := loop.Socket(family, sotype, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	return s, nil
}

// setAddrs fills in fd's addresses from the kernel.
func (fd *netFD) setAddrs(k netKind, peer unix.Sockaddr) {
	if sa, err := unix.Getsockname(fd.sysfd); err == nil {
		fd.laddr = netAddr(k, sa)
	}
	if peer == nil {
		if sa, err := unix.Getpeername(fd.sysfd); err == nil {
			peer = sa
		}
	}
	if peer != nil {
		fd.raddr = netAddr(k, peer)
	}
}
