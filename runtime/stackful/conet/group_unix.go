//go:build linux || darwin || freebsd

package conet

import (
	"errors"
	"fmt"
	"net"

	"github.com/cogen-go/cogen/runtime/stackful"
)

// ServeGroup listens on address with one SO_REUSEPORT listener per env of
// g ([ListenReusePort]; port 0 picks one port for all) and runs [Serve] on
// each env, with handler and attr. It returns the address listened on.
//
// g's Shutdown closes the listeners (an OnShutdown func per env), which
// ends the Serve coroutines; the handlers are the envs' in-flight work. A
// Serve that ends with another error fails the group.
func ServeGroup(g *stackful.Group, network, address string, handler func(co *stackful.Co, c net.Conn), attr *stackful.Attr) (net.Addr, error) {
	return ServeGroupConns(g, network, address, 0, handler, attr)
}

// ServeGroupConns is [ServeGroup] with [ServeConns]: each env runs at most
// maxConns handlers at once (maxConns <= 0: no bound).
func ServeGroupConns(g *stackful.Group, network, address string, maxConns int, handler func(co *stackful.Co, c net.Conn), attr *stackful.Attr) (net.Addr, error) {
	lns := make([]net.Listener, 0, g.Len())
	fail := func(err error) (net.Addr, error) {
		for _, ln := range lns {
			ln.Close()
		}
		return nil, err
	}
	for range g.Len() {
		ln, err := ListenReusePort(network, address)
		if err != nil {
			return fail(err)
		}
		if len(lns) == 0 {
			address = ln.Addr().String()
		}
		lns = append(lns, ln)
	}
	for i, ln := range lns {
		if err := g.OnShutdown(i, func() { ln.Close() }); err != nil {
			return fail(err)
		}
	}
	for i, ln := range lns {
		g.Spawn(i, func(co *stackful.Co) {
			if err := ServeConns(co, ln, maxConns, handler, attr); !errors.Is(err, net.ErrClosed) {
				g.Fail(fmt.Errorf("conet: ServeGroup on env %d: %w", i, err))
			}
		})
	}
	return lns[0].Addr(), nil
}
