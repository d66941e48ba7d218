package netio

import (
	"cogentest/trace"
	"github.com/cogen-go/cogen/runtime/stackful"
	"golang.org/x/sys/unix"
)

// Run covers Accept and Connect on loopback TCP sockets: connect (the
// handshake completes into the listen backlog), accept, then a round trip.
//
//co:stackless
func Run(co *stackful.Co, t *trace.T) {
	lfd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Printf("socket: %v", err)
		return
	}
	addr := &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	if err := unix.Bind(lfd, addr); err != nil {
		t.Printf("bind: %v", err)
		return
	}
	unix.Listen(lfd, 8)
	sa, _ := unix.Getsockname(lfd)
	cfd, _ := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	err = co.Connect(cfd, sa)
	t.Printf("connect %v", err)
	afd, _, err := co.Accept(lfd)
	t.Printf("accept %v", err)
	msg := []byte{byte(t.Rand.Intn(256)), 'x'}
	n, err := co.Write(cfd, msg)
	t.Printf("write %d %v", n, err)
	var buf [8]byte
	n, err = co.Read(afd, buf[:])
	t.Printf("read %v %v", buf[:n], err)
	for _, fd := range []int{afd, cfd, lfd} {
		co.Close(fd)
	}
}
