//go:build linux || darwin || freebsd

package conet

import (
	"context"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// A ListenConfig creates listeners and packet conns, like net.ListenConfig.
// The zero value is ready to use.
type ListenConfig struct {
	// ReusePort sets SO_REUSEPORT before binding, so that several sockets
	// (one per env, each on its own goroutine and core) can listen on one
	// address; the kernel spreads incoming connections among them.
	ReusePort bool
	// Backlog is listen(2)'s backlog; 0 means the system's maximum
	// (net.core.somaxconn), as in package net.
	Backlog int
}

// Listen announces on the local network address, like net.Listen, and
// returns a *Listener: tcp, tcp4, tcp6, unix or unixpacket. An empty host
// listens on every address (dual-stack for tcp when IPv6 is available).
func Listen(network, address string) (net.Listener, error) {
	var lc ListenConfig
	return lc.Listen(context.Background(), network, address)
}

// ListenReusePort is Listen with SO_REUSEPORT: call it once per env to have
// N envs accept on one port.
func ListenReusePort(network, address string) (net.Listener, error) {
	lc := ListenConfig{ReusePort: true}
	return lc.Listen(context.Background(), network, address)
}

// ListenPacket announces on the local network address, like
// net.ListenPacket, and returns a *PacketConn: udp, udp4, udp6 or
// unixgram.
func ListenPacket(network, address string) (net.PacketConn, error) {
	var lc ListenConfig
	return lc.ListenPacket(context.Background(), network, address)
}

// Listen is the package-level Listen with lc's settings. Name lookups for
// the address use ctx.
func (lc *ListenConfig) Listen(ctx context.Context, network, address string) (net.Listener, error) {
	k, err := parseNetwork(network)
	if err == nil && k.sotype == unix.SOCK_DGRAM {
		err = net.UnknownNetworkError(network)
	}
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: err}
	}
	fd, path, err := lc.bind(ctx, k, address)
	if err != nil {
		return nil, err
	}
	if err := unix.Listen(fd.sysfd, lc.backlog()); err != nil {
		fd.Close()
		return nil, &net.OpError{Op: "listen", Net: network, Addr: fd.laddr, Err: os.NewSyscallError("listen", err)}
	}
	return &Listener{fd: fd, path: path, kind: k}, nil
}

// ListenPacket is the package-level ListenPacket with lc's settings.
func (lc *ListenConfig) ListenPacket(ctx context.Context, network, address string) (net.PacketConn, error) {
	k, err := parseNetwork(network)
	if err == nil && k.sotype != unix.SOCK_DGRAM {
		err = net.UnknownNetworkError(network)
	}
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: err}
	}
	fd, _, err := lc.bind(ctx, k, address)
	if err != nil {
		return nil, err
	}
	return &PacketConn{fd: fd}, nil
}

// bind makes a socket for network k bound to address.
func (lc *ListenConfig) bind(ctx context.Context, k netKind, address string) (*netFD, string, error) {
	fail := func(err error) (*netFD, string, error) {
		return nil, "", &net.OpError{Op: "listen", Net: k.name, Err: mapErr(err)}
	}
	var sa unix.Sockaddr
	family := unix.AF_UNIX
	path := ""
	if k.base == "unix" {
		sa = &unix.SockaddrUnix{Name: address}
		if address != "" && address[0] != '@' {
			path = address
		}
	} else {
		host, service, err := net.SplitHostPort(address)
		if err != nil {
			return fail(err)
		}
		port, err := strconv.Atoi(service)
		if err != nil {
			var r Resolver
			if port, err = r.LookupPort(ctx, k.name, service); err != nil {
				return fail(err)
			}
		}
		var ip netip.Addr
		switch {
		case host == "":
			ip = netip.IPv4Unspecified()
			if k.family != unix.AF_INET && ipv6Available() {
				ip = netip.IPv6Unspecified()
			}
		default:
			if ip, err = netip.ParseAddr(host); err != nil {
				var r Resolver
				ips, err := r.LookupNetIP(ctx, "ip", host)
				if err != nil {
					return fail(err)
				}
				ip = ips[0]
				for _, x := range ips {
					if familyOf(netKind{}, x) == k.family {
						ip = x
						break
					}
				}
			}
		}
		family = familyOf(k, ip)
		if family == unix.AF_INET && !ip.Unmap().Is4() {
			return fail(&net.AddrError{Err: "no suitable address found", Addr: address})
		}
		sa = sockaddr(family, ip, port)
	}
	s, err := socket(family, k.sotype)
	if err != nil {
		return fail(err)
	}
	fd := newFD(s, family, k.sotype, k.name)
	if family != unix.AF_UNIX {
		if k.sotype == unix.SOCK_STREAM {
			unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
		} else {
			unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_BROADCAST, 1)
		}
		if family == unix.AF_INET6 && k.family == 0 {
			unix.SetsockoptInt(s, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 0) // dual-stack
		}
		if lc.ReusePort {
			if err := unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1); err != nil {
				fd.Close()
				return fail(os.NewSyscallError("setsockopt", err))
			}
		}
	}
	if err := unix.Bind(s, sa); err != nil {
		fd.Close()
		return nil, "", &net.OpError{Op: "listen", Net: k.name, Addr: netAddr(k, sa), Err: os.NewSyscallError("bind", err)}
	}
	fd.setAddrs(k, nil)
	return fd, path, nil
}

func (lc *ListenConfig) backlog() int {
	if lc.Backlog > 0 {
		return lc.Backlog
	}
	return somaxconn()
}

var somaxconn = sync.OnceValue(func() int {
	b, err := os.ReadFile("/proc/sys/net/core/somaxconn")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
			return min(n, 1<<16-1)
		}
	}
	return unix.SOMAXCONN
})

var ipv6Available = sync.OnceValue(func() bool {
	s, err := loop.Socket(unix.AF_INET6, unix.SOCK_STREAM, 0)
	if err != nil {
		return false
	}
	defer unix.Close(s)
	return unix.Bind(s, &unix.SockaddrInet6{Addr: [16]byte{15: 1}}) == nil
})

// A Listener accepts stream connections on coroutines: a net.Listener
// whose Accept, in a hooked coroutine, waits on the env's loop, and
// returns *Conn connections served by that env.
type Listener struct {
	fd   *netFD
	path string // a Unix socket file to remove on Close
	kind netKind
	once sync.Once
}

var _ net.Listener = (*Listener)(nil)

// Accept implements net.Listener. Accepted TCP connections have
// TCP_NODELAY set, as in package net. Errors such as EMFILE are returned
// as package net returns them (Temporary); [Serve] backs off on them.
func (ln *Listener) Accept() (net.Conn, error) {
	c, err := ln.AcceptConn()
	if err != nil {
		return nil, err
	}
	return c, nil
}

// AcceptConn is Accept returning the *Conn.
func (ln *Listener) AcceptConn() (*Conn, error) {
	nfd, sa, err := ln.fd.accept()
	if err != nil {
		return nil, &net.OpError{Op: "accept", Net: ln.fd.net, Addr: ln.fd.laddr, Err: mapErr(err)}
	}
	fd := newFD(nfd, ln.fd.family, ln.fd.sotype, ln.fd.net)
	if ln.kind.base == "tcp" {
		unix.SetsockoptInt(nfd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		fd.laddr = ln.fd.laddr
		if a, ok := fd.laddr.(*net.TCPAddr); !ok || a.IP.IsUnspecified() {
			fd.laddr = nil
		}
		fd.raddr = netAddr(ln.kind, sa)
		if fd.laddr == nil {
			fd.setAddrs(ln.kind, sa)
		}
	} else {
		fd.setAddrs(ln.kind, sa)
	}
	return newConn(fd), nil
}

func (fd *netFD) accept() (nfd int, sa unix.Sockaddr, err error) {
	if err := fd.incref(); err != nil {
		return -1, nil, err
	}
	defer fd.decref()
	if co := hooked(); co != nil {
		return fd.coAccept(co)
	}
	return fd.plainAccept()
}

func (fd *netFD) plainAccept() (nfd int, sa unix.Sockaddr, err error) {
	err = fd.plain(false, func(s int) (err error) {
		for {
			nfd, sa, err = loop.Accept(s)
			if err != unix.EINTR && err != unix.ECONNABORTED {
				return err
			}
		}
	})
	if err != nil {
		return -1, nil, wrapSyscall("accept", err)
	}
	return nfd, sa, nil
}

func (fd *netFD) coAccept(co *stackful.Co) (int, unix.Sockaddr, error) {
	l, err := fd.claim(co, false)
	if err == errFallback {
		nfd, sa := -1, unix.Sockaddr(nil)
		co.Offload(func() { nfd, sa, err = fd.plainAccept() })
		return nfd, sa, err
	}
	if err != nil {
		return -1, nil, err
	}
	if err := fd.lock(co, false); err != nil {
		return -1, nil, err
	}
	defer fd.unlock(false)
	for {
		t, err := timeout(&fd.rdeadline)
		if err != nil {
			return -1, nil, err
		}
		nfd, sa, wait, err := l.TryAccept(co.Waiter(), fd.sysfd, t)
		if !wait || err != nil {
			return nfd, sa, err
		}
		if err := fd.await(co, false); err != nil {
			return -1, nil, err
		}
	}
}

// Close implements net.Listener: a coroutine waiting in Accept wakes with
// net.ErrClosed. A Unix socket file created by Listen is removed.
func (ln *Listener) Close() error {
	err := ln.fd.Close()
	if ln.path != "" {
		ln.once.Do(func() { os.Remove(ln.path) })
	}
	if err != nil {
		return &net.OpError{Op: "close", Net: ln.fd.net, Addr: ln.fd.laddr, Err: err}
	}
	return nil
}

// Addr implements net.Listener.
func (ln *Listener) Addr() net.Addr { return ln.fd.laddr }

// SetDeadline sets the deadline of Accept, pending calls included.
func (ln *Listener) SetDeadline(t time.Time) error {
	if err := ln.fd.setDeadline(t, true, false); err != nil {
		return &net.OpError{Op: "set", Net: ln.fd.net, Addr: ln.fd.laddr, Err: err}
	}
	return nil
}
