package conet

import (
	"context"
	"net"
	"net/netip"

	"github.com/cogen-go/cogen/runtime/stackful/hook"
)

// A Resolver makes the lookups of a *net.Resolver yield: in a hooked
// coroutine, each lookup runs on a worker of the env's offload pool
// ([hook.Offload]) while the coroutine waits on its env's loop and the
// env's other coroutines run; elsewhere it is the plain lookup. The zero
// value uses net.DefaultResolver; set Resolver for another configuration
// (PreferGo, a custom Dial to a DNS server, StrictErrors...).
//
// Why not a *net.Resolver whose Dial returns coroutine conns: Go's resolver
// runs its queries (A and AAAA in parallel) on goroutines of its own and
// waits for them on channels. A coroutine blocked on a channel stops its
// whole env, and conns dialled from those goroutines are not in any
// coroutine, so nothing would yield. Offloading the lookup as a whole
// keeps every resolver feature (nsswitch, cgo, /etc/hosts) and yields.
type Resolver struct {
	Resolver *net.Resolver
}

func (r *Resolver) net() *net.Resolver {
	if r == nil || r.Resolver == nil {
		return net.DefaultResolver
	}
	return r.Resolver
}

// LookupHost is net.Resolver.LookupHost.
func (r *Resolver) LookupHost(ctx context.Context, host string) (addrs []string, err error) {
	hook.Offload(func() { addrs, err = r.net().LookupHost(ctx, host) })
	return addrs, err
}

// LookupIPAddr is net.Resolver.LookupIPAddr.
func (r *Resolver) LookupIPAddr(ctx context.Context, host string) (addrs []net.IPAddr, err error) {
	hook.Offload(func() { addrs, err = r.net().LookupIPAddr(ctx, host) })
	return addrs, err
}

// LookupNetIP is net.Resolver.LookupNetIP.
func (r *Resolver) LookupNetIP(ctx context.Context, network, host string) (addrs []netip.Addr, err error) {
	hook.Offload(func() { addrs, err = r.net().LookupNetIP(ctx, network, host) })
	return addrs, err
}

// LookupPort is net.Resolver.LookupPort.
func (r *Resolver) LookupPort(ctx context.Context, network, service string) (port int, err error) {
	hook.Offload(func() { port, err = r.net().LookupPort(ctx, network, service) })
	return port, err
}

// LookupAddr is net.Resolver.LookupAddr.
func (r *Resolver) LookupAddr(ctx context.Context, addr string) (names []string, err error) {
	hook.Offload(func() { names, err = r.net().LookupAddr(ctx, addr) })
	return names, err
}

// LookupCNAME is net.Resolver.LookupCNAME.
func (r *Resolver) LookupCNAME(ctx context.Context, host string) (cname string, err error) {
	hook.Offload(func() { cname, err = r.net().LookupCNAME(ctx, host) })
	return cname, err
}

// LookupMX is net.Resolver.LookupMX.
func (r *Resolver) LookupMX(ctx context.Context, name string) (mx []*net.MX, err error) {
	hook.Offload(func() { mx, err = r.net().LookupMX(ctx, name) })
	return mx, err
}

// LookupTXT is net.Resolver.LookupTXT.
func (r *Resolver) LookupTXT(ctx context.Context, name string) (txt []string, err error) {
	hook.Offload(func() { txt, err = r.net().LookupTXT(ctx, name) })
	return txt, err
}

// LookupSRV is net.Resolver.LookupSRV.
func (r *Resolver) LookupSRV(ctx context.Context, service, proto, name string) (cname string, addrs []*net.SRV, err error) {
	hook.Offload(func() { cname, addrs, err = r.net().LookupSRV(ctx, service, proto, name) })
	return cname, addrs, err
}
