//go:build !linux && !darwin && !freebsd

package loop

import "net/netip"

// TCPSocket fails: the loop takes no socket descriptors here.
func TCPSocket(ap netip.AddrPort) (int, Sockaddr, error) {
	return -1, nil, ErrNotSupported
}
