//go:build linux || darwin || freebsd

package echoload

import (
	"fmt"
	"os"
	"strconv"

	"github.com/cogen-go/cogen/runtime/loop"
	"golang.org/x/sys/unix"
)

// ListenFD returns a non-blocking, close-on-exec TCP socket listening on
// 127.0.0.1 at a free port, with a backlog large enough for every
// connection of a run to queue, and its address: the listener of the servers
// that run on the event loop.
func ListenFD() (fd int, addr string, err error) {
	fd, err = loop.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, "", fmt.Errorf("echoload: %w", os.NewSyscallError("socket", err))
	}
	fail := func(call string, err error) (int, string, error) {
		unix.Close(fd)
		return -1, "", fmt.Errorf("echoload: %w", os.NewSyscallError(call, err))
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return fail("setsockopt", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fail("bind", err)
	}
	if err := unix.Listen(fd, 4096); err != nil {
		return fail("listen", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return fail("getsockname", err)
	}
	return fd, "127.0.0.1:" + strconv.Itoa(sa.(*unix.SockaddrInet4).Port), nil
}
