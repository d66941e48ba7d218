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
//
// On loops with completion I/O (io_uring) each listener is served by one
// multishot accept ([loop.Loop.RegisterAccept]); the connections stay on
// readiness, since the handler may read fd with code the loop does not
// see: [Group.ServeTCPCompletion] is the variant that puts them in
// completion mode too.
//
// Its stackless twin is stackless.Group.ServeTCP.
func (g *Group) ServeTCP(network, address string, handler func(co *Co, fd int)) (*net.TCPAddr, error) {
	return g.serve("ServeTCP", network, address, handler, false)
}

// ServeTCPCompletion is [Group.ServeTCP] for a handler that reads, writes,
// half-closes and closes fd only through the loop, with the contract of
// [Env.ServeTCPCompletion]: on loops with completion I/O (io_uring) each
// connection is registered with [loop.Loop.RegisterCompletion], and the
// loop receives and sends for it with no read(2) or write(2) per request.
// Elsewhere it is ServeTCP.
//
// Its stackless twin is stackless.Group.ServeTCP, whose handlers have this
// contract always.
func (g *Group) ServeTCPCompletion(network, address string, handler func(co *Co, fd int)) (*net.TCPAddr, error) {
	return g.serve("ServeTCPCompletion", network, address, handler, true)
}

func (g *Group) serve(name, network, address string, handler func(co *Co, fd int), comp bool) (*net.TCPAddr, error) {
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
			if err := acceptLoop(co, lfd, &closed[i], handler, nil, comp); err != nil && !errors.Is(err, net.ErrClosed) {
				g.Fail(fmt.Errorf("stackful: %s on env %d: %w", name, i, err))
			}
		})
	}
	return addr, nil
}

// acceptLoop accepts connections on lfd and runs handler for each in a new
// coroutine of co's env, until accept fails with a lasting error or
// *closed is set (it returns nil then). A non-nil started is told of each
// connection's coroutine before it starts. On a loop with completion I/O
// lfd is served by a multishot accept (only this coroutine accepts on
// it), and with comp set each connection is registered in completion mode
// before its handler starts.
func acceptLoop(co *Co, lfd int, closed *bool, handler func(co *Co, fd int), started func(*Co), comp bool) error {
	var delay time.Duration
	l := co.env.loop
	if l.Completion() && l.Lookup(lfd) == nil {
		l.RegisterAccept(lfd)
	}
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
		if comp && l.Completion() {
			// The handler reads and writes fd through the loop only
			// (ServeTCPCompletion's contract): a registration that fails
			// leaves fd unregistered, and the handler's first wait
			// registers it for readiness.
			l.RegisterCompletion(fd)
		}
		hc := co.env.Create(func(hc *Co) { handler(hc, fd) }, nil)
		if started != nil {
			started(hc)
		}
		hc.Resume()
	}
}
