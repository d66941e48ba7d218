//go:build linux || darwin || freebsd

package conet

import (
	"context"
	"net"
	"net/netip"
	"os"
	"strconv"
	"time"

	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// A Dialer connects to addresses like net.Dialer, returning coroutine
// conns: a *Conn for stream networks (tcp, tcp4, tcp6, unix, unixpacket),
// a *PacketConn for datagram ones (udp, udp4, udp6, unixgram). In a hooked
// coroutine the connect and any name lookup wait on the env's loop; the
// returned conn is served by that env. The zero value is ready to use.
//
// Where net.Dialer races IPv4 and IPv6 (Happy Eyeballs), a Dialer tries
// the resolved addresses one after another within the shared deadline.
type Dialer struct {
	// Timeout bounds the whole dial, lookups included; 0 is none.
	Timeout time.Duration
	// Deadline is an absolute bound on the dial; zero is none.
	Deadline time.Time
	// LocalAddr, if set, is bound before connecting.
	LocalAddr net.Addr
	// KeepAlive is the TCP keep-alive period, as in net.Dialer: 0 means
	// 15 s, negative turns keep-alives off.
	KeepAlive time.Duration
	// Resolver resolves host names; nil is the default resolver.
	Resolver *Resolver
}

// Dial connects to address on network with a zero Dialer.
func Dial(network, address string) (net.Conn, error) {
	var d Dialer
	return d.Dial(network, address)
}

// DialTimeout is Dial giving up after timeout.
func DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	d := Dialer{Timeout: timeout}
	return d.Dial(network, address)
}

// Dial connects to address on network.
func (d *Dialer) Dial(network, address string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, address)
}

// DialContext connects to address on network. Cancelling ctx before the
// connection is established ends the dial with ctx's error; once
// connected, ctx no longer matters.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	k, err := parseNetwork(network)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	deadline := d.deadline(ctx)
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	targets, err := d.resolve(ctx, k, address)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Source: d.LocalAddr, Err: mapErr(err)}
	}
	var first error
	for _, sa := range targets {
		fd, err := d.dialOne(ctx, k, sa, deadline)
		if err == nil {
			if k.sotype == unix.SOCK_DGRAM {
				return &PacketConn{fd: fd}, nil
			}
			return newConn(fd), nil
		}
		if first == nil {
			first = &net.OpError{Op: "dial", Net: network, Source: d.LocalAddr, Addr: netAddr(k, sa), Err: mapErr(err)}
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

func (d *Dialer) deadline(ctx context.Context) time.Time {
	dl := d.Deadline
	if d.Timeout > 0 {
		t := time.Now().Add(d.Timeout)
		if dl.IsZero() || t.Before(dl) {
			dl = t
		}
	}
	if t, ok := ctx.Deadline(); ok && (dl.IsZero() || t.Before(dl)) {
		dl = t
	}
	return dl
}

// resolve turns address into the socket addresses to try, in order.
func (d *Dialer) resolve(ctx context.Context, k netKind, address string) ([]unix.Sockaddr, error) {
	if k.base == "unix" {
		return []unix.Sockaddr{&unix.SockaddrUnix{Name: address}}, nil
	}
	host, service, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(service)
	if err != nil {
		if port, err = d.Resolver.LookupPort(ctx, k.name, service); err != nil {
			return nil, err
		}
	}
	if port < 0 || port > 65535 {
		return nil, &net.AddrError{Err: "invalid port", Addr: address}
	}
	var ips []netip.Addr
	switch ip, err := netip.ParseAddr(host); {
	case host == "":
		// The local system, as in package net.
		ips = []netip.Addr{netip.IPv4Unspecified(), netip.IPv6Unspecified()}
	case err == nil:
		ips = []netip.Addr{ip}
	default:
		if ips, err = d.Resolver.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, err
		}
	}
	var out []unix.Sockaddr
	for _, ip := range ips {
		fam := familyOf(netKind{}, ip)
		if k.family != 0 && fam != k.family {
			continue
		}
		out = append(out, sockaddr(fam, ip, port))
	}
	if len(out) == 0 {
		return nil, &net.AddrError{Err: "no suitable address found", Addr: address}
	}
	return out, nil
}

// dialOne makes one socket and connects it to sa.
func (d *Dialer) dialOne(ctx context.Context, k netKind, sa unix.Sockaddr, deadline time.Time) (*netFD, error) {
	family := unix.AF_UNIX
	switch sa.(type) {
	case *unix.SockaddrInet4:
		family = unix.AF_INET
	case *unix.SockaddrInet6:
		family = unix.AF_INET6
	}
	s, err := socket(family, k.sotype)
	if err != nil {
		return nil, err
	}
	fd := newFD(s, family, k.sotype, k.name)
	if err := d.setup(fd, k); err != nil {
		fd.Close()
		return nil, err
	}
	if err := fd.connect(ctx, sa, deadline); err != nil {
		fd.Close()
		return nil, err
	}
	fd.setAddrs(k, nil)
	return fd, nil
}

// setup sets package net's socket options and binds LocalAddr.
func (d *Dialer) setup(fd *netFD, k netKind) error {
	s := fd.sysfd
	if fd.family != unix.AF_UNIX {
		switch k.sotype {
		case unix.SOCK_STREAM:
			unix.SetsockoptInt(s, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
			if d.KeepAlive >= 0 {
				period := d.KeepAlive
				if period == 0 {
					period = 15 * time.Second
				}
				secs := int(max((period+time.Second-1)/time.Second, 1))
				unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1)
				unix.SetsockoptInt(s, unix.IPPROTO_TCP, tcpKeepIdle, secs)
				unix.SetsockoptInt(s, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, secs)
			}
		case unix.SOCK_DGRAM:
			unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_BROADCAST, 1)
		}
	}
	if d.LocalAddr != nil {
		la, err := addrOf(fd.family, d.LocalAddr)
		if err != nil {
			return err
		}
		if err := unix.Bind(s, la); err != nil {
			return os.NewSyscallError("bind", err)
		}
	}
	return nil
}

// connect connects fd to sa: in a hooked coroutine with the loop's
// TryConnect, elsewhere through Go's poller. The deadline and ctx bound
// the wait.
func (fd *netFD) connect(ctx context.Context, sa unix.Sockaddr, deadline time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// The connect's deadline rides on the write deadline, which no one
	// else can see yet.
	fd.wdeadline.Store(deadlineValue(deadline))
	defer fd.wdeadline.Store(0)
	var err error
	if co := hooked(); co != nil {
		err = fd.coConnect(ctx, co, sa)
	} else {
		err = fd.plainConnect(ctx, sa)
	}
	if err == os.ErrDeadlineExceeded || err == net.ErrClosed {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
	}
	return err
}

func (fd *netFD) coConnect(ctx context.Context, co *stackful.Co, sa unix.Sockaddr) error {
	l, err := fd.claim(co, true)
	if err == errFallback {
		co.Offload(func() { err = fd.plainConnect(ctx, sa) })
		return err
	}
	if err != nil {
		return err
	}
	if ctx.Done() != nil {
		// Cancelling ctx wakes the wait through the loop. The submitted
		// func checks that this connect is still the one waiting.
		stop := context.AfterFunc(ctx, func() {
			l.Submit(func() {
				if fd.wco == co {
					co.Waiter().Cancel()
				}
			})
		})
		defer stop()
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, err := timeout(&fd.wdeadline)
		if err != nil {
			return err
		}
		wait, err := l.TryConnect(co.Waiter(), fd.sysfd, sa, t)
		if !wait || err != nil {
			return err
		}
		if err := fd.await(co, true); err != nil {
			return err
		}
	}
}

// plainConnect connects from a goroutine that is no hooked coroutine (one
// that go-redis's pool dials in, say). While the connect is in progress it
// waits for writability with poll(2) on its own thread, in slices of
// plainConnectSlice so that a cancel of ctx, the write deadline and Close
// are seen, rather than in Go's poller: that would take an *os.File, which
// registers the descriptor with Go's poller for the conn's whole life, so
// that every later deadline change is applied there too and every
// readiness edge also wakes Go's poller - costs that the coroutines using
// the conn afterwards would pay on every request.
func (fd *netFD) plainConnect(ctx context.Context, sa unix.Sockaddr) error {
	err := unix.Connect(fd.sysfd, sa)
	for {
		switch err {
		case nil, unix.EISCONN:
			return nil
		case unix.EINPROGRESS, unix.EALREADY, unix.EINTR:
		default:
			return os.NewSyscallError("connect", err)
		}
		if err := fd.awaitConnect(ctx); err != nil {
			return err
		}
		err = unix.Connect(fd.sysfd, sa)
	}
}

// plainConnectSlice is the longest poll(2) of plainConnect: how late it
// sees a cancel or a Close.
const plainConnectSlice = 10 * time.Millisecond

// awaitConnect waits until fd is writable (or reports an error or hang-up),
// ctx ends, the write deadline passes or fd is closed.
func (fd *netFD) awaitConnect(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if fd.closed() {
			return errClosed
		}
		t, err := timeout(&fd.wdeadline)
		if err != nil {
			return err
		}
		if t < 0 || t > plainConnectSlice {
			t = plainConnectSlice
		}
		pfd := []unix.PollFd{{Fd: int32(fd.sysfd), Events: unix.POLLOUT}}
		n, err := unix.Poll(pfd, int((t+time.Millisecond-1)/time.Millisecond))
		switch {
		case err == unix.EINTR || (err == nil && n == 0):
		case err != nil:
			return os.NewSyscallError("poll", err)
		default:
			return nil
		}
	}
}
