//go:build linux

package hook

import (
	"errors"
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/cotest"

	"golang.org/x/sys/unix"
)

// The shared helpers live in internal/cotest; these names keep the tests short.
var (
	newEnv            = cotest.NewEnv
	spawn             = cotest.Spawn
	runUntil          = cotest.RunUntil
	startTicker       = cotest.StartTicker
	openFDs           = cotest.OpenFDs
	settledGoroutines = cotest.SettledGoroutines
)

// socketpair returns a connected pair of hook descriptors, closed at the
// end of the test unless the test closed them.
func socketpair(t testing.TB, typ int) (a, b int) {
	t.Helper()
	fds, err := Socketpair(unix.AF_UNIX, typ, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Close(fds[0]); Close(fds[1]) })
	return fds[0], fds[1]
}

// listen returns a hook descriptor listening on 127.0.0.1 and its address.
func listen(t testing.TB, backlog int) (int, *unix.SockaddrInet4) {
	t.Helper()
	fd, err := Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, backlog); err != nil {
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fd, sa.(*unix.SockaddrInet4)
}

// tcpPair returns both ends of a TCP connection on 127.0.0.1, made outside
// any coroutine (the hooked calls then block plainly).
func tcpPair(t testing.TB) (client, server int) {
	t.Helper()
	lfd, sa := listen(t, 8)
	client, err := Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Close(client) })
	if err := Connect(client, sa); err != nil {
		t.Fatal(err)
	}
	server, _, err = Accept(lfd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Close(server) })
	return client, server
}

// fillSendBuffer writes to fd until the kernel takes no more, with the
// send buffer shrunk first; it returns the bytes written.
func fillSendBuffer(t testing.TB, fd int) int {
	t.Helper()
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 4096)
	buf := make([]byte, 4096)
	total := 0
	for {
		n, err := unix.Write(fd, buf)
		if err == unix.EAGAIN {
			return total
		}
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
}

func setTimeout(t testing.TB, fd, opt int, d time.Duration) {
	t.Helper()
	tv := unix.NsecToTimeval(int64(d))
	if err := SetsockoptTimeval(fd, unix.SOL_SOCKET, opt, &tv); err != nil {
		t.Fatal(err)
	}
}

func isErrno(err error, want unix.Errno) bool {
	var e unix.Errno
	return errors.As(err, &e) && e == want
}
