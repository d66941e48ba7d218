//go:build !linux && !darwin && !freebsd

package conet

import (
	"net"

	"github.com/cogen-go/cogen/runtime/loop"
)

// enterCompletion does nothing: there is no completion I/O here.
func enterCompletion(c net.Conn, l *loop.Loop) {}
