//go:build linux

package cohttp

import (
	"errors"
	"fmt"
	"net"

	"github.com/cogen-go/cogen/runtime/loop"
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
	"golang.org/x/sys/unix"
)

// ServeStackfulGroup serves h on address with one SO_REUSEPORT listener and
// one [Server] per env of g (port 0 picks one port for all), each
// connection a coroutine of its env, with the limits lim (MaxConns per
// env). It returns the address listened on. g's Shutdown drains every
// server (an OnShutdown func per env: the listeners close, idle
// connections close, responses close theirs) and waits for the connections
// in flight; an accept loop that fails otherwise fails the group.
func ServeStackfulGroup(g *stackful.Group, network, address string, h Handler, lim Limits) (*net.TCPAddr, error) {
	return serveGroup(g.Group, network, address, func(i int, s *Server) {
		env := g.Env(i)
		s.start = func(fd int) {
			registerCompletion(env.Loop(), fd) // as ServeStackful's (models.go)
			c := s.track(fd)
			env.Create(func(co *stackful.Co) { connMain(co, c) }, nil).Resume()
		}
		g.Spawn(i, func(co *stackful.Co) { s.acceptEnd(g.Group, i, acceptLoop(co, s)) })
	}, h, lim)
}

// ServeStacklessGroup is ServeStackfulGroup for a group of stackless loops:
// the accept loop and the connections are tasks the group started.
func ServeStacklessGroup(g *stackless.Group, network, address string, h Handler, lim Limits) (*net.TCPAddr, error) {
	return serveGroup(g.Group, network, address, func(i int, s *Server) {
		s.start = func(fd int) {
			registerCompletion(g.Loop(i), fd)
			c := s.track(fd)
			g.Spawn(i, newConnTask(c))
		}
		g.Spawn(i, &acceptTaskFrame{acceptLoopFrame: *newAcceptLoopFrame(s), s: s, end: func(err error) { s.acceptEnd(g.Group, i, err) }})
	}, h, lim)
}

func serveGroup(g *loop.Group, network, address string, run func(i int, s *Server), h Handler, lim Limits) (*net.TCPAddr, error) {
	lfds, addr, err := g.ListenTCPEach(network, address)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*net.TCPAddr, error) {
		for _, fd := range lfds {
			unix.Close(fd)
		}
		return nil, err
	}
	servers := make([]*Server, len(lfds))
	for i, lfd := range lfds {
		servers[i] = newServer(g.Loop(i), lfd, h, lim)
		if err := g.OnShutdown(i, servers[i].Drain); err != nil {
			return fail(err)
		}
	}
	for i, s := range servers {
		run(i, s)
	}
	return addr, nil
}

// acceptEnd records the end of a group server's accept loop, failing the
// group unless the listener was closed by Drain.
func (s *Server) acceptEnd(g *loop.Group, i int, err error) {
	s.endAccept(err)
	if err != nil && !s.draining && !errors.Is(err, loop.ErrFDClosed) {
		g.Fail(fmt.Errorf("cohttp: accept loop on loop %d: %w", i, err))
	}
}
