//go:build linux || darwin || freebsd

package stackful

import (
	"errors"
	"fmt"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// ServeTCP listens on address with one SO_REUSEPORT listener per env
// ([loop.ListenTCP]; port 0 picks one port for all), and on each env runs a
// coroutine that accepts connections and runs handler(co, fd) in a new
// coroutine for each one, with TCP_NODELAY set. The handler owns fd and
// must close it ([Co.Close]). It returns the address listened on.
//
// Shutdown closes the listeners (an OnShutdown func per env) and so ends
// the accept coroutines; the handlers are the env's in-flight work.
// Temporary accept errors (out of descriptors or memory) make an accept
// coroutine back off from 5 ms, doubling up to 1 s; any other error fails
// the group.
func (g *Group) ServeTCP(network, address string, handler func(co *Co, fd int)) (*net.TCPAddr, error) {
	lfds, addr, err := g.Group.ListenTCPEach(network, address)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*net.TCPAddr, error) {
		for _, fd := range lfds {
			unix.Close(fd)
		}
		return nil, err
	}
	closed := make([]bool, len(lfds))
	for i, lfd := range lfds {
		// The accept coroutine may be sleeping off an accept error:
		// closed keeps it from accepting on the closed descriptor's number.
		if err := g.OnShutdown(i, func() { closed[i] = true; g.envs[i].main.Close(lfd) }); err != nil {
			return fail(err)
		}
	}
	for i, lfd := range lfds {
		g.Spawn(i, func(co *Co) {
			if err := acceptLoop(co, lfd, &closed[i], handler, nil); err != nil && !errors.Is(err, net.ErrClosed) {
				g.Fail(fmt.Errorf("stackful: ServeTCP on env %d: %w", i, err))
			}
		})
	}
	return addr, nil
}

// acceptLoop accepts connections on lfd and runs handler for each in a new
// coroutine of co's env, until accept fails with a lasting error or
// *closed is set (it returns nil then). A non-nil started is told of each
// connection's coroutine before it starts.
func acceptLoop(co *Co, lfd int, closed *bool, handler func(co *Co, fd int), started func(*Co)) error {
	var delay time.Duration
	for {
		if *closed {
			return nil
		}
		fd, _, err := co.Accept(lfd)
		if err != nil && *closed {
			return nil
		}
		if err != nil {
			if errors.Is(err, unix.EMFILE) || errors.Is(err, unix.ENFILE) || errors.Is(err, unix.ENOBUFS) || errors.Is(err, unix.ENOMEM) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				co.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		hc := co.env.Create(func(hc *Co) { handler(hc, fd) }, nil)
		if started != nil {
			started(hc)
		}
		hc.Resume()
	}
}
