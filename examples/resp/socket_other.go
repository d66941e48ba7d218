//go:build !linux && !darwin && !freebsd

package resp

import (
	"net/netip"

	"github.com/cogen-go/cogen/runtime/loop"
)

// socketFor fails: the loop takes no socket descriptors here.
func socketFor(ap netip.AddrPort) (int, loop.Sockaddr, error) {
	return -1, nil, loop.ErrNotSupported
}
