//go:build linux

package conet_test

import (
	"fmt"
	"net"
	"syscall"

	"github.com/cogen-go/cogen/runtime/stackful/conet"
)

// SyscallConn gives the descriptor to code that needs it, such as a
// liveness check of a pooled conn before reuse (go-redis makes one): a
// non-blocking read that finds nothing means the peer has not closed.
func ExampleConn_SyscallConn() {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	c, err := conet.Dial("tcp", ln.Addr().String())
	if err != nil {
		panic(err)
	}
	defer c.Close()
	peer, _ := ln.Accept()

	alive := func() bool {
		rc, err := c.(*conet.Conn).SyscallConn()
		if err != nil {
			return false
		}
		ok := false
		rc.Read(func(fd uintptr) bool {
			var b [1]byte
			_, err := syscall.Read(int(fd), b[:])
			ok = err == syscall.EAGAIN // nothing to read, no end of stream
			return true                // never wait
		})
		return ok
	}
	fmt.Println("before the peer closes:", alive())
	peer.Close()
	for alive() {
	}
	fmt.Println("after:", alive())
	// Output:
	// before the peer closes: true
	// after: false
}
